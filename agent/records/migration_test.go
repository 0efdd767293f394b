package records_test

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kimigo/kimigo/agent/records"
)

func meta(version string) string {
	return `{"type":"metadata","protocol_version":"` + version + `","created_at":1}`
}

// migrated replays a log of the given version and lines, and returns the
// replayed records and the file's lines afterwards.
func migrated(t *testing.T, version string, lines ...string) ([]records.Record, []string) {
	t.Helper()
	dir := t.TempDir()
	writeWire(t, dir, append([]string{meta(version)}, lines...)...)
	o := openLog(t, dir)
	recs, _ := o.replayAll(t)
	o.close(t)
	return recs, readLines(t, dir)
}

func TestS47FlattenToolCalls(t *testing.T) {
	dir := t.TempDir()
	msg := `{"type":"context.append_message","message":{"role":"assistant","content":[],"toolCalls":[` +
		`{"type":"function","id":"c1","function":{"name":"Bash","arguments":"{\"command\":\"pwd\"}"}}]},"time":2}`
	writeWire(t, dir, meta("1.0"), msg)
	o := openLog(t, dir)
	recs, _ := o.replayAll(t)
	o.close(t)

	var f struct {
		Message struct{ ToolCalls []map[string]any }
	}
	if err := records.Decode(recs[1], &f); err != nil {
		t.Fatal(err)
	}
	wantCall := map[string]any{"type": "function", "id": "c1", "name": "Bash", "arguments": `{"command":"pwd"}`}
	if d := cmp.Diff([]map[string]any{wantCall}, f.Message.ToolCalls); d != "" {
		t.Fatalf("replayed tool call (-want +got):\n%s", d)
	}
	want := []string{
		meta("1.4"),
		`{"type":"context.append_message","message":{"role":"assistant","content":[],"toolCalls":[` +
			`{"type":"function","id":"c1","name":"Bash","arguments":"{\"command\":\"pwd\"}"}]},"time":2}`,
	}
	if d := cmp.Diff(want, readLines(t, dir)); d != "" {
		t.Fatalf("rewritten log (-want +got):\n%s", d)
	}

	st, err := os.Stat(wirePath(dir))
	if err != nil {
		t.Fatal(err)
	}
	o = openLog(t, dir)
	o.replayAll(t)
	o.close(t)
	st2, err := os.Stat(wirePath(dir))
	if err != nil {
		t.Fatal(err)
	}
	if !os.SameFile(st, st2) {
		t.Error("a second resume rewrote the log again")
	}
}

func TestS48SessionApprovalRule(t *testing.T) {
	approval := func(action, extra string) string {
		return `{"type":"permission.record_approval_result","turnId":1,"toolCallId":"c1","toolName":"Shell","action":"` +
			action + `","result":{"decision":"approved","scope":"session"}` + extra + `,"time":2}`
	}
	for _, tt := range []struct {
		name, line, want string
	}{
		{"run command maps to Bash", approval("run command", ""),
			`{"type":"permission.record_approval_result","turnId":1,"toolCallId":"c1","toolName":"Shell","action":"run command","result":{"decision":"approved","scope":"session"},"time":2,"sessionApprovalRule":"Bash"}`},
		{"edit file maps to Write", approval("edit file", ""),
			`{"type":"permission.record_approval_result","turnId":1,"toolCallId":"c1","toolName":"Shell","action":"edit file","result":{"decision":"approved","scope":"session"},"time":2,"sessionApprovalRule":"Write"}`},
		{"background command stays", approval("run background command", ""), approval("run background command", "")},
		{"plan-mode command stays", approval("run command in plan mode", ""), approval("run command in plan mode", "")},
		{"unmapped action uses the tool name", approval("fetch url", ""),
			`{"type":"permission.record_approval_result","turnId":1,"toolCallId":"c1","toolName":"Shell","action":"fetch url","result":{"decision":"approved","scope":"session"},"time":2,"sessionApprovalRule":"Shell"}`},
		{"existing rule stays", approval("run command", `,"sessionApprovalRule":"Bash(ls)"`), approval("run command", `,"sessionApprovalRule":"Bash(ls)"`)},
		{"one-off approval stays",
			`{"type":"permission.record_approval_result","toolName":"Shell","action":"run command","result":{"decision":"approved"},"time":2}`,
			`{"type":"permission.record_approval_result","toolName":"Shell","action":"run command","result":{"decision":"approved"},"time":2}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, lines := migrated(t, "1.1", tt.line)
			if d := cmp.Diff([]string{meta("1.4"), tt.want}, lines); d != "" {
				t.Fatalf("(-want +got):\n%s", d)
			}
		})
	}
}

func TestS49GoalRecords(t *testing.T) {
	_, lines := migrated(t, "1.3",
		`{"type":"goal.create","goalId":"g1","objective":"ship it","status":"active","actor":"user","budgetLimits":{"turns":5},"completionCriterion":"tests pass","time":2}`,
		`{"type":"goal.account_usage","goalId":"g1","usageKind":"token","delta":40,"tokensUsed":42,"wallClockMs":1000,"time":3}`,
		`{"type":"goal.continuation","goalId":"g1","turnsUsed":3,"time":4}`,
		`{"type":"goal.update","goalId":"g1","status":"paused","actor":"user","reason":"lunch","time":5}`,
		`{"type":"goal.clear","goalId":"g1","actor":"user","reason":"done","time":6}`,
	)
	want := []string{
		meta("1.4"),
		`{"type":"goal.create","goalId":"g1","objective":"ship it","completionCriterion":"tests pass","time":2}`,
		`{"type":"goal.update","tokensUsed":42,"wallClockMs":1000,"time":3}`,
		`{"type":"goal.update","turnsUsed":3,"time":4}`,
		`{"type":"goal.update","status":"paused","reason":"lunch","actor":"user","time":5}`,
		`{"type":"goal.clear","time":6}`,
	}
	if d := cmp.Diff(want, lines); d != "" {
		t.Fatalf("(-want +got):\n%s", d)
	}
	// The goal owner folds the updates; the counters survive the migration.
	counters := map[string]json.Number{}
	for _, l := range lines[1:5] {
		var m map[string]json.RawMessage
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{"tokensUsed", "turnsUsed", "wallClockMs"} {
			if v, ok := m[k]; ok {
				counters[k] = json.Number(v)
			}
		}
	}
	if d := cmp.Diff(map[string]json.Number{"tokensUsed": "42", "turnsUsed": "3", "wallClockMs": "1000"}, counters); d != "" {
		t.Errorf("accumulated counters (-want +got):\n%s", d)
	}
}

func TestS50VersionHandling(t *testing.T) {
	body := `{"type":"goal.clear","goalId":"g1","time":6}`
	t.Run("newer version replays with a warning and no rewrite", func(t *testing.T) {
		dir := t.TempDir()
		writeWire(t, dir, meta("9.9"), body)
		before := readRaw(t, dir)
		o := openLog(t, dir)
		recs, warning := o.replayAll(t)
		o.close(t)
		const want = "Session wire protocol version 9.9 is newer than the current version 1.4. Records will be replayed without migration."
		if warning != want {
			t.Errorf("warning = %q, want %q", warning, want)
		}
		if len(recs) != 2 || recs[1].String() != body {
			t.Errorf("records were migrated: %q", strs(recs))
		}
		if !bytes.Equal(before, readRaw(t, dir)) {
			t.Error("a newer-version log was rewritten")
		}
	})
	t.Run("current version is never rewritten", func(t *testing.T) {
		dir := t.TempDir()
		writeWire(t, dir, meta("1.4"), body)
		before := readRaw(t, dir)
		o := openLog(t, dir)
		recs, warning := o.replayAll(t)
		o.close(t)
		if warning != "" || recs[1].String() != body || !bytes.Equal(before, readRaw(t, dir)) {
			t.Errorf("1.4 log changed: warning %q, records %q", warning, strs(recs))
		}
	})
	for _, tt := range []struct{ name, metadata, want string }{
		{"version without a migration", meta("0.9"), "Missing wire migration for version 0.9"},
		{"version with a letter", meta("1.x"), `protocol_version "1.x"`},
		{"empty version", meta(""), `protocol_version ""`},
		{"numeric version", `{"type":"metadata","protocol_version":1.4,"created_at":1}`, "protocol_version 1.4"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			writeWire(t, dir, tt.metadata, body)
			before := readRaw(t, dir)
			o := openLog(t, dir)
			_, err := o.log.Replay(t.Context(), func(records.Record) error { return nil })
			o.close(t)
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "line 1") {
				t.Fatalf("Replay = %v, want an error with %q naming line 1", err, tt.want)
			}
			if !bytes.Equal(before, readRaw(t, dir)) {
				t.Error("a failed replay changed the log")
			}
		})
	}
	t.Run("keep old format", func(t *testing.T) {
		dir := t.TempDir()
		writeWire(t, dir, meta("1.3"), body)
		before := readRaw(t, dir)
		fp, err := records.OpenFile(records.FileOptions{Dir: dir})
		if err != nil {
			t.Fatal(err)
		}
		l := records.NewLog(records.LogOptions{Persistence: fp, KeepOldFormat: true})
		var got []string
		if _, err := l.Replay(t.Context(), func(r records.Record) error { got = append(got, r.String()); return nil }); err != nil {
			t.Fatal(err)
		}
		if err := l.Close(t.Context()); err != nil {
			t.Fatal(err)
		}
		if got[1] != `{"type":"goal.clear","time":6}` || !bytes.Equal(before, readRaw(t, dir)) {
			t.Errorf("KeepOldFormat: replayed %q; file changed: %v", got, !bytes.Equal(before, readRaw(t, dir)))
		}
	})
}
