package agent

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kimigo/kimigo/agent/agenttest"
	"github.com/kimigo/kimigo/agent/compaction"
	"github.com/kimigo/kimigo/agent/goal"
	"github.com/kimigo/kimigo/agent/history"
	"github.com/kimigo/kimigo/agent/permission"
	"github.com/kimigo/kimigo/agent/plan"
	"github.com/kimigo/kimigo/agent/records"
	"github.com/kimigo/kimigo/agent/swarm"
	"github.com/kimigo/kimigo/agent/turn"
	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/loop"
	"github.com/kimigo/kimigo/osenv/osenvtest"
	"github.com/kimigo/kimigo/tools"
)

// knownRecordTypes are the record types the subsystems that exist today
// declare. A type added to one of these lists without an apply fails
// TestApplyHandlesEveryKnownRecordType.
func knownRecordTypes() []records.Type {
	known := []records.Type{records.TypeMetadata, records.TypeForked, records.TypeToolsSnapshot,
		records.TypeLLMRequest, records.TypeMCPToolsDiscovered, TypeConfigUpdate, TypeUsageRecord,
		tools.UpdateStoreRecordType, tools.SetActiveToolsRecordType}
	known = append(known, turn.RecordTypes()...)
	known = append(known, compaction.RecordTypes()...)
	for _, t := range history.RecordTypes() {
		known = append(known, records.Type(t))
	}
	for _, t := range permission.RecordTypes() {
		known = append(known, records.Type(t))
	}
	for _, t := range plan.RecordTypes() {
		known = append(known, records.Type(t))
	}
	for _, t := range goal.RecordTypes() {
		known = append(known, records.Type(t))
	}
	for _, t := range swarm.RecordTypes() {
		known = append(known, records.Type(t))
	}
	return known
}

// applySamples is one valid record of every known type, in an order that
// applies cleanly.
var applySamples = []struct {
	typ    records.Type
	fields any
}{
	{records.TypeMetadata, map[string]any{"protocol_version": records.ProtocolVersion, "created_at": 1}},
	{records.TypeForked, nil},
	{records.TypeToolsSnapshot, map[string]any{"hash": "h", "tools": []any{}}},
	{records.TypeLLMRequest, map[string]any{"kind": "loop", "provider": "p", "model": "m"}},
	{records.TypeMCPToolsDiscovered, map[string]any{"serverName": "s", "hash": "h", "tools": []any{}}},
	{turn.TypePrompt, turn.InputRecord{Input: []llm.ContentPart{llm.TextPart("hi")}, TurnID: new(int)}},
	{turn.TypeSteer, turn.InputRecord{Input: []llm.ContentPart{llm.TextPart("more")}}},
	{turn.TypeCancel, turn.CancelRecord{}},
	{TypeConfigUpdate, map[string]any{"systemPrompt": "sys"}},
	{TypeUsageRecord, UsageRecord{Model: "m", Usage: llm.TokenUsage{Output: 1}, Scope: UsageScopeTurn}},
	{tools.UpdateStoreRecordType, tools.UpdateStore{Key: "todo", Value: json.RawMessage(`[]`)}},
	{tools.SetActiveToolsRecordType, map[string]any{"names": []string{"Read"}}},
	{records.Type(history.TypeAppendMessage), history.AppendMessageRecord{Message: history.Message{
		Message: llm.UserMessage("hi"), Origin: history.UserOrigin()}}},
	{records.Type(history.TypeAppendLoopEvent), history.AppendLoopEventRecord{Event: loop.StepBeginEvent{
		UUID: "s1", TurnID: "4", Step: 1}}},
	{records.Type(history.TypeUpdateTokenCount), history.UpdateTokenCountRecord{TokenCount: 5}},
	{records.Type(history.TypeUndo), history.UndoRecord{Count: 1}},
	{records.Type(history.TypeClear), history.ClearRecord{}},
	{turn.TypeLaunch, turn.LaunchRecord{TurnID: 2}},
	{compaction.TypeBegin, compaction.BeginRecord{Source: compaction.SourceManual, Instruction: "focus"}},
	{records.Type(history.TypeApplyCompaction), history.ApplyCompactionRecord{Summary: "s"}},
	{compaction.TypeComplete, compaction.CompleteRecord{}},
	{compaction.TypeCancel, compaction.CancelRecord{}},
	{records.Type(permission.TypeSetMode), permission.SetModeRecord{Mode: permission.ModeYolo}},
	{records.Type(permission.TypeApprovalResult), permission.ApprovalResultRecord{TurnID: 4, ToolCallID: "c1",
		ToolName: "Bash", Action: "Running: ls", SessionApprovalRule: "Bash(ls)",
		Result: agenttest.Response(event.ApproveSession)}},
	{records.Type(plan.TypeEnter), plan.EnterRecord{ID: "p"}},
	{records.Type(plan.TypeExit), plan.ExitRecord{ID: "p"}},
	{records.Type(plan.TypeCancel), plan.CancelRecord{}},
	{records.Type(goal.TypeCreate), goal.CreateRecord{GoalID: "g", Objective: "work"}},
	{records.Type(goal.TypeUpdate), goal.UpdateRecord{Status: tools.GoalPaused, Reason: "lunch", TurnsUsed: intp(2)}},
	{records.Type(goal.TypeClear), goal.ClearRecord{}},
	{records.Type(goal.TypeQueue), goal.QueueRecord{Upcoming: []goal.Upcoming{{ID: "q", Objective: "next"}}}},
	{records.Type(swarm.TypeEnter), swarm.EnterRecord{Trigger: swarm.TriggerManual}},
	{records.Type(swarm.TypeExit), swarm.ExitRecord{}},
}

func intp(n int) *int { return &n }

func TestApplyHandlesEveryKnownRecordType(t *testing.T) {
	store := records.NewMemory(records.MemoryOptions{})
	env := osenvtest.New(osenvtest.Options{})
	a := New(Options{Persistence: store, Env: env, Permission: &permission.Options{},
		Plan: plan.New(plan.Options{Env: env, HomeDir: "/h"}), Goals: goal.New(goal.Options{}), Swarm: swarm.New(),
		NewToolManager: func(c tools.StoreCommitter) *tools.Manager {
			return tools.New(tools.Options{Base: tools.Base{Env: env}, Committer: c})
		}})
	sub := a.Events().Subscribe()
	defer sub.Close()
	sampled := map[records.Type]bool{}
	for _, s := range applySamples {
		rec, err := records.New(s.typ, s.fields)
		if err != nil {
			t.Fatal(err)
		}
		a.mu.Lock()
		_, handled, err := a.apply(rec)
		a.mu.Unlock()
		if err != nil || !handled {
			t.Errorf("apply(%s) = handled %v, %v", s.typ, handled, err)
		}
		sampled[s.typ] = true
	}
	for _, typ := range knownRecordTypes() {
		if !sampled[typ] {
			t.Errorf("known record type %s has no sample: add one, and make apply handle it", typ)
		}
	}
	if n := len(store.Records()); n != 0 {
		t.Errorf("apply appended %d records", n)
	}
	none, cancel := context.WithCancel(t.Context())
	cancel() // only what is queued already
	if ev, err := sub.Next(none); err == nil {
		t.Errorf("apply published %s", ev.EventType())
	}
	if got := a.turns.CurrentID(); got != 4 {
		t.Errorf("turn counter after a loop event of turn 4 = %d", got)
	}
	if got := a.Permission().Mode(); got != permission.ModeYolo {
		t.Errorf("permission mode after set_mode(yolo) = %q", got)
	}
	if d := cmp.Diff([]string{"Bash(ls)"}, a.Permission().SessionPatterns()); d != "" {
		t.Errorf("session approvals (-want +got):\n%s", d)
	}
}

// An agent without a permission manager (a library agent, the preview
// replay) accepts permission records but rejects corrupt ones.
func TestApplyPermissionWithoutManager(t *testing.T) {
	a := New(Options{})
	for _, tt := range []struct {
		name   string
		typ    records.Type
		fields any
		ok     bool
	}{
		{"set mode", records.Type(permission.TypeSetMode), map[string]any{"mode": "auto"}, true},
		{"approval result", records.Type(permission.TypeApprovalResult), map[string]any{"toolName": "Bash"}, true},
		{"corrupt payload", records.Type(permission.TypeSetMode), map[string]any{"mode": 3}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rec, err := records.New(tt.typ, tt.fields)
			if err != nil {
				t.Fatal(err)
			}
			a.mu.Lock()
			_, handled, err := a.apply(rec)
			a.mu.Unlock()
			if !handled || (err == nil) != tt.ok {
				t.Errorf("apply = handled %v, %v; want handled, ok %v", handled, err, tt.ok)
			}
		})
	}
	if a.Permission() != nil {
		t.Error("an agent built without Options.Permission has a manager")
	}
	if err := a.SetPermissionMode(t.Context(), permission.ModeYolo); err == nil {
		t.Error("SetPermissionMode succeeded without a permission manager")
	}
}

// A corrupt mode fails the apply, live and on resume alike.
func TestApplyRejectsAnUnknownMode(t *testing.T) {
	a := New(Options{Env: osenvtest.New(osenvtest.Options{}), Permission: &permission.Options{}})
	rec, err := records.New(records.Type(permission.TypeSetMode), map[string]any{"mode": "reckless"})
	if err != nil {
		t.Fatal(err)
	}
	a.mu.Lock()
	_, handled, err := a.apply(rec)
	a.mu.Unlock()
	if !handled || err == nil {
		t.Errorf("apply(set_mode reckless) = handled %v, %v; want an error", handled, err)
	}
	if got := a.Permission().Mode(); got != permission.ModeManual {
		t.Errorf("mode after a rejected record = %q, want manual", got)
	}
}

func TestApplyIgnoresUnknownTypes(t *testing.T) {
	a := New(Options{})
	rec, err := records.New("future.thing", map[string]any{"x": 1})
	if err != nil {
		t.Fatal(err)
	}
	a.mu.Lock()
	_, handled, err := a.apply(rec)
	a.mu.Unlock()
	if handled || err != nil {
		t.Errorf("apply(future.thing) = handled %v, %v; want ignored", handled, err)
	}
}
