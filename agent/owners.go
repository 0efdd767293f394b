package agent

import (
	"fmt"
	"sort"

	"github.com/kimigo/kimigo/agent/compaction"
	"github.com/kimigo/kimigo/agent/goal"
	"github.com/kimigo/kimigo/agent/history"
	"github.com/kimigo/kimigo/agent/permission"
	"github.com/kimigo/kimigo/agent/plan"
	"github.com/kimigo/kimigo/agent/records"
	"github.com/kimigo/kimigo/agent/swarm"
	"github.com/kimigo/kimigo/agent/turn"
	"github.com/kimigo/kimigo/tools"
)

// owner is the one subsystem that applies a record type, live right after
// the record's append and on resume alike (spec 02 §6.3, STYLE.md §5).
// apply runs under the agent's state lock; it never appends and never
// publishes.
type owner struct {
	name  string
	apply func(a *Agent, rec records.Record) (applied, error)
}

// recordOwners is the table of record owners: every record type kimigo
// writes or restores, with the subsystem that applies it. A type missing
// here is either pending (below) or unknown.
var recordOwners = map[records.Type]owner{
	// The log's own bookkeeping.
	records.TypeMetadata: {"records", applyNothing},
	// A fork drops a copied goal and leaves the fork reminder (spec 02
	// §6.3).
	records.TypeForked: {"goal mode", (*Agent).applyForked},
	// Observability: the request recorder's write-dedup cursor, nothing
	// else (spec 02 §6.1).
	records.TypeToolsSnapshot:      {"request recorder", (*Agent).applyToolsSnapshot},
	records.TypeLLMRequest:         {"request recorder", applyNothing},
	records.TypeMCPToolsDiscovered: {"request recorder", applyNothing},
	// The turn counter (spec 02 §6.10).
	turn.TypePrompt: {"turn flow", (*Agent).applyInput},
	turn.TypeSteer:  {"turn flow", (*Agent).applyInput},
	turn.TypeLaunch: {"turn flow", (*Agent).applyLaunch},
	turn.TypeCancel: {"turn flow", applyNothing}, // it cancels a running turn; nothing to restore
	// A compaction never survives a restart: a begin without its complete
	// is a round that died, and context.apply_compaction carries the
	// rewrite.
	compaction.TypeBegin:    {"full compaction", applyNothing},
	compaction.TypeCancel:   {"full compaction", applyNothing},
	compaction.TypeComplete: {"full compaction", applyNothing},
	TypeConfigUpdate:        {"configuration", (*Agent).applyConfig},
	TypeUsageRecord:         {"usage recorder", (*Agent).applyUsage},
	// The tool manager: its store and its activation.
	tools.UpdateStoreRecordType:    {"tool store", (*Agent).applyStore},
	tools.SetActiveToolsRecordType: {"tool manager", (*Agent).applyActiveTools},
	// History: the conversation.
	records.Type(history.TypeAppendMessage):    {"history", (*Agent).applyHistory},
	records.Type(history.TypeAppendLoopEvent):  {"history", (*Agent).applyHistory},
	records.Type(history.TypeUpdateTokenCount): {"history", (*Agent).applyHistory},
	records.Type(history.TypeClear):            {"history", (*Agent).applyHistory},
	records.Type(history.TypeUndo):             {"history", (*Agent).applyHistory},
	records.Type(history.TypeApplyCompaction):  {"history", (*Agent).applyHistory},
	// The permission manager: the mode and the session approvals.
	records.Type(permission.TypeSetMode):        {"permission", (*Agent).applyPermission},
	records.Type(permission.TypeApprovalResult): {"permission", (*Agent).applyPermission},
	// Plan mode and goal mode (modes.go).
	records.Type(plan.TypeEnter):  {"plan mode", (*Agent).applyPlan},
	records.Type(plan.TypeCancel): {"plan mode", (*Agent).applyPlan},
	records.Type(plan.TypeExit):   {"plan mode", (*Agent).applyPlan},
	records.Type(goal.TypeCreate): {"goal mode", (*Agent).applyGoal},
	records.Type(goal.TypeUpdate): {"goal mode", (*Agent).applyGoal},
	records.Type(goal.TypeClear):  {"goal mode", (*Agent).applyGoal},
	records.Type(goal.TypeQueue):  {"goal mode", (*Agent).applyGoal},
	// Swarm mode (swarm_mode.go).
	records.Type(swarm.TypeEnter): {"swarm mode", (*Agent).applySwarm},
	records.Type(swarm.TypeExit):  {"swarm mode", (*Agent).applySwarm},
}

// pendingRecords are the record types of spec 02 §6.3 whose owner kimigo
// does not have yet, with what they would restore. Such a record is kept
// in the log untouched (a later kimigo with the owner restores it) and a
// resume reports it once per type (ResumeResult.Unrestored).
var pendingRecords = map[records.Type]string{
	"profile.bind":               "the profile, model and active tools another engine bound",
	"tools.reset_active_tools":   "a reset of the active tools",
	"tools.register_user_tool":   "a tool the user registered",
	"tools.unregister_user_tool": "the removal of a user tool",
	"micro_compaction.apply":     "a micro-compaction cutoff",
}

func applyNothing(*Agent, records.Record) (applied, error) { return applied{}, nil }

// unrestored collects the pending record types one replay met, for the
// resume's report.
type unrestored map[records.Type]int

// messages words the report: one line per type, in type order.
func (u unrestored) messages() []string {
	types := make([]string, 0, len(u))
	for t := range u {
		types = append(types, string(t))
	}
	sort.Strings(types)
	out := make([]string, 0, len(types))
	for _, t := range types {
		what := "1 record"
		if n := u[records.Type(t)]; n > 1 {
			what = fmt.Sprintf("%d records", n)
		}
		out = append(out, fmt.Sprintf("%s of type %s kept in the log but not restored: kimigo does not restore %s yet",
			what, t, pendingRecords[records.Type(t)]))
	}
	return out
}
