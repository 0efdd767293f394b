package agent

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kimigo/kimigo/agent/records"
)

// specRecordTypes is the record catalogue of spec 02 §6.3, plus kimigo's
// own turn.launch (ERRATA 31) and goal.queue (the /goal next queue, which
// upstream keeps beside the log in upcoming-goals.json).
var specRecordTypes = []records.Type{
	"metadata", "forked", "turn.prompt", "turn.steer", "turn.cancel", "turn.launch", "config.update",
	"profile.bind", "tools.reset_active_tools", "permission.set_mode", "permission.record_approval_result",
	"full_compaction.begin", "full_compaction.cancel", "full_compaction.complete", "micro_compaction.apply",
	"plan_mode.enter", "plan_mode.cancel", "plan_mode.exit", "swarm_mode.enter", "swarm_mode.exit",
	"tools.register_user_tool", "tools.unregister_user_tool", "tools.set_active_tools", "tools.update_store",
	"usage.record", "context.append_message", "context.append_loop_event", "context.update_token_count",
	"context.clear", "context.apply_compaction", "context.undo", "goal.create", "goal.update", "goal.clear", "goal.queue",
	"llm.tools_snapshot", "llm.request", "mcp.tools_discovered",
}

// Every record type of the catalogue has exactly one place in the one
// table: an owner that applies it, or pending with what it would restore;
// and the table knows nothing the catalogue does not.
func TestRecordOwnersCoverTheCatalogue(t *testing.T) {
	spec := map[records.Type]bool{}
	for _, typ := range specRecordTypes {
		spec[typ] = true
		_, owned := recordOwners[typ]
		what, pending := pendingRecords[typ]
		switch {
		case owned && pending:
			t.Errorf("%s is both owned and pending", typ)
		case !owned && !pending:
			t.Errorf("%s has no owner and is not pending", typ)
		case pending && what == "":
			t.Errorf("pending %s does not say what it would restore", typ)
		}
	}
	for typ := range recordOwners {
		if !spec[typ] {
			t.Errorf("owned %s is not in the catalogue", typ)
		}
	}
	for typ := range pendingRecords {
		if !spec[typ] {
			t.Errorf("pending %s is not in the catalogue", typ)
		}
	}
	for _, typ := range knownRecordTypes() {
		if _, ok := recordOwners[typ]; !ok {
			t.Errorf("%s, declared by its subsystem, has no owner", typ)
		}
	}
}

// A log with records whose owner kimigo does not have yet resumes; each
// such type is reported once, naming it and what was not restored (two
// records of one type are one line); the
// records stay in the log as they were; the unknown type of a newer
// writer stays ignored and unreported.
func TestResumeReportsRecordsItCannotRestoreYet(t *testing.T) {
	lines := []string{
		`{"type":"metadata","protocol_version":"1.4","created_at":1}`,
		`{"type":"config.update","systemPrompt":"s","time":1}`,
		`{"type":"micro_compaction.apply","cutoff":1,"time":2}`,
		`{"type":"plan_mode.enter","id":"p1","time":3}`,
		`{"type":"goal.create","goalId":"g","objective":"ship it","time":3}`,
		`{"type":"tools.reset_active_tools","time":4}`,
		`{"type":"profile.bind","profileName":"coder","activeToolNames":["Read"],"time":5}`,
		`{"type":"future.thing","x":1,"time":6}`,
		`{"type":"micro_compaction.apply","cutoff":2,"time":7}`,
	}
	var recs []records.Record
	for _, l := range lines {
		var r records.Record
		if err := r.UnmarshalJSON([]byte(l)); err != nil {
			t.Fatal(err)
		}
		recs = append(recs, r)
	}
	store := records.NewMemory(records.MemoryOptions{Records: recs})
	a := New(Options{Persistence: store})
	defer a.Close(t.Context())
	res, err := a.Resume(t.Context(), ResumeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := res.Unrestored
	if len(got) != 3 {
		t.Fatalf("Unrestored = %q, want one line per type (plan, goal and swarm records have their owners)", got)
	}
	for i, w := range []struct{ typ, what string }{
		{"micro_compaction.apply", "2 records"}, {"profile.bind", "the profile"}, {"tools.reset_active_tools", "1 record"},
	} {
		if !strings.Contains(got[i], w.typ) || !strings.Contains(got[i], w.what) {
			t.Errorf("line %d = %q, want it to name %s and %s", i, got[i], w.typ, w.what)
		}
	}
	var after []string
	for _, r := range store.Records() {
		after = append(after, r.String())
	}
	if d := cmp.Diff(lines, after); d != "" {
		t.Errorf("the log changed (-before +after):\n%s", d)
	}
}
