package permission_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kimigo/kimigo/agent/permission"
	"github.com/kimigo/kimigo/event"
)

// TestRecordJSON pins the payloads of spec 02 §6.3.
func TestRecordJSON(t *testing.T) {
	for _, tt := range []struct {
		p    permission.Payload
		want string
	}{
		{permission.SetModeRecord{Mode: permission.ModeYolo}, `{"mode":"yolo"}`},
		{permission.ApprovalResultRecord{TurnID: 3, ToolCallID: "c1", ToolName: "Bash", Action: "Running: ls",
			Result: answer(event.ApproveOnce)},
			`{"turnId":3,"toolCallId":"c1","toolName":"Bash","action":"Running: ls","result":{"decision":"approved"}}`},
		{permission.ApprovalResultRecord{TurnID: 3, ToolCallID: "c1", ToolName: "Bash", Action: "Running: ls",
			SessionApprovalRule: "Bash(ls)", Result: permission.ApprovalResponse{Decision: permission.ApprovalApproved,
				Scope: permission.ApprovalSession, Feedback: "ok", SelectedLabel: "Approve"}},
			`{"turnId":3,"toolCallId":"c1","toolName":"Bash","action":"Running: ls","sessionApprovalRule":"Bash(ls)",` +
				`"result":{"decision":"approved","scope":"session","feedback":"ok","selectedLabel":"Approve"}}`},
	} {
		got, err := json.Marshal(tt.p)
		if err != nil || string(got) != tt.want {
			t.Errorf("%s:\n got %s, %v\nwant %s", tt.p.RecordType(), got, err, tt.want)
		}
		back, err := permission.DecodeRecord(tt.p.RecordType(), got)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(tt.p, back); d != "" {
			t.Errorf("round trip (-want +got):\n%s", d)
		}
	}
	if d := cmp.Diff([]permission.RecordType{"permission.set_mode", "permission.record_approval_result"}, permission.RecordTypes()); d != "" {
		t.Errorf("RecordTypes (-want +got):\n%s", d)
	}
}

func TestDecodeRecordErrors(t *testing.T) {
	if _, err := permission.DecodeRecord("permission.other", []byte(`{}`)); err == nil {
		t.Error("an unknown type decoded")
	}
	if _, err := permission.DecodeRecord(permission.TypeSetMode, []byte(`{"mode":`)); err == nil || !strings.Contains(err.Error(), "permission.set_mode") {
		t.Errorf("malformed payload: %v", err)
	}
}

func TestApplyRejectsCorruptRecords(t *testing.T) {
	m := newRig(t).m
	if err := m.Apply(permission.SetModeRecord{Mode: "turbo"}); err == nil {
		t.Error("applied an unknown mode")
	}
	if err := m.Apply(&permission.SetModeRecord{Mode: permission.ModeAuto}); err != nil || m.Mode() != permission.ModeAuto {
		t.Errorf("pointer payload: %v, mode %s", err, m.Mode())
	}
	if err := m.SetMode(t.Context(), "turbo"); err == nil {
		t.Error("SetMode accepted an unknown mode")
	}
}

// TestSetModeRecordsEveryTime: setting the same mode again writes another
// record (spec 04 §1.4).
func TestSetModeRecordsEveryTime(t *testing.T) {
	r := newRig(t)
	for range 2 {
		if err := r.m.SetMode(t.Context(), permission.ModeYolo); err != nil {
			t.Fatal(err)
		}
	}
	if got := r.log.of(permission.TypeSetMode); len(got) != 2 {
		t.Errorf("set_mode records %v", got)
	}
}

// TestResumeRestoresState is the package-level half of the agent's
// ExpectResumeMatches: replaying the records into a fresh manager gives the
// same mode, session approvals and data, and the same decisions.
func TestResumeRestoresState(t *testing.T) {
	live := newRig(t, withRules(rule(permission.DecisionAsk, "Write")),
		withAnswers(answer(event.ApproveSession), answer(event.Reject), answer(event.ApproveAlways)))
	ctx := t.Context()
	live.m.SetMode(ctx, permission.ModeYolo)
	live.judge("Write", `{"path":"a.txt","content":"x"}`)
	live.judge("Write", `{"path":"b.txt","content":"x"}`)
	live.judge("Write", `{"path":"/elsewhere/c.txt","content":"x"}`)
	live.m.SetMode(ctx, permission.ModeManual)
	live.m.SetMode(ctx, permission.ModeYolo)

	resumed := newRig(t, withRules(rule(permission.DecisionAsk, "Write")))
	live.log.replay(t, resumed.m)
	if d := cmp.Diff(live.m.Data(), resumed.m.Data()); d != "" {
		t.Errorf("Data (-live +resumed):\n%s", d)
	}
	if d := cmp.Diff(live.m.SessionPatterns(), resumed.m.SessionPatterns()); d != "" {
		t.Errorf("session patterns (-live +resumed):\n%s", d)
	}
	want := []string{"Write(/repo/a.txt)", "Write(/elsewhere/c.txt)"}
	if d := cmp.Diff(want, resumed.m.SessionPatterns()); d != "" {
		t.Errorf("session patterns (-want +got):\n%s", d)
	}
	for _, p := range []string{"a.txt", "/elsewhere/c.txt"} {
		if got := resumed.judge("Write", `{"path":"`+p+`","content":"y"}`); got != approved {
			t.Errorf("after resume, Write %s = %s", p, got)
		}
	}
	if got := resumed.judge("Write", `{"path":"b.txt","content":"y"}`); got != asked {
		t.Errorf("after resume, the rejected Write = %s", got)
	}
}
