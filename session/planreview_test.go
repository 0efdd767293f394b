package session_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/llm/llmtest"
	"github.com/kimigo/kimigo/session"
	"github.com/kimigo/kimigo/tools"
)

// presentPlan turns plan mode on, writes plan to the plan file and sends
// a prompt the model answers with an ExitPlanMode call; it returns the
// approval request of the review.
func presentPlan(t *testing.T, r *rig, s *session.Session, sub *event.Subscription, id, plan string) event.ApprovalRequested {
	t.Helper()
	if err := s.SetPlanMode(t.Context(), true); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(s.PlanState().Path, []byte(plan), 0o600); err != nil {
		t.Fatal(err)
	}
	r.srv.Add(llmtest.ToolCall(id, "ExitPlanMode", `{}`), llmtest.Text("carrying on"))
	if err := s.Prompt(t.Context(), textParts("present the plan")); err != nil {
		t.Fatal(err)
	}
	for {
		ev, err := sub.Next(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		switch e := ev.(type) {
		case event.ApprovalRequested:
			return e
		case event.ToolResult:
			t.Fatalf("%s was not reviewed: result %q", e.ToolCallID, e.Output.Text())
		case event.TurnEnded:
			t.Fatalf("the turn ended without a plan review: %+v", e)
		}
	}
}

// configFiles are the contents of every config.toml an "always" answer
// could write: the config home's and the session home's.
func configFiles(t *testing.T, r *rig) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, dir := range []string{r.cfgHome, r.root} {
		p := filepath.Join(dir, "config.toml")
		b, err := os.ReadFile(p)
		if err == nil {
			out[p] = string(b)
		}
	}
	return out
}

// A plan review is never remembered: answering it "for the session" or
// "always" approves this plan only. The next plan is reviewed again and
// no allow rule reaches config.toml. The request says so, so front ends
// offer neither choice.
func TestPlanReviewIsAskedEveryTime(t *testing.T) {
	r := newRig(t)
	o := r.opts("")
	o.Requests = session.Answered
	s, err := session.Open(t.Context(), o)
	if err != nil {
		t.Fatal(err)
	}
	defer closeSession(t, s)
	sub := s.Subscribe()
	defer sub.Close()

	// A Write approved "always" writes its rule: the files watched below
	// are the ones an always answer changes.
	r.srv.Add(llmtest.ToolCall("w1", "Write", writeArgs), llmtest.Text("written"))
	if err := s.Prompt(t.Context(), textParts("write b.txt")); err != nil {
		t.Fatal(err)
	}
	req := next[event.ApprovalRequested](t, sub)
	if req.OnceOnly {
		t.Error("an ordinary Write approval is marked once-only")
	}
	if err := s.AnswerApproval(req.RequestID, event.ApprovalAnswer{Choice: event.ApproveAlways}); err != nil {
		t.Fatal(err)
	}
	waitEnded(t, sub)
	before := configFiles(t, r)
	if !strings.Contains(strings.Join(mapValues(before), "\n"), `pattern = "Write`) {
		t.Fatalf("the always answer to Write wrote no rule; config files %v", before)
	}

	for i, choice := range []event.Choice{event.ApproveAlways, event.ApproveSession, event.ApproveOnce} {
		id := "x" + string(rune('1'+i))
		req := presentPlan(t, r, s, sub, id, "# Plan "+id+"\n1. do it")
		if req.ToolName != "ExitPlanMode" || req.ToolCallID != id || !req.OnceOnly {
			t.Errorf("review %d = %+v, want a once-only ExitPlanMode request", i, req)
		}
		if err := s.AnswerApproval(req.RequestID, event.ApprovalAnswer{Choice: choice}); err != nil {
			t.Fatal(err)
		}
		res := toolResult(t, sub)
		if res.IsError || !strings.Contains(res.Output.Text(), "## Approved Plan:\n# Plan "+id) {
			t.Errorf("review %d answered %s: result %q", i, choice, res.Output.Text())
		}
		if ended := waitEnded(t, sub); ended.Reason != event.EndCompleted {
			t.Fatalf("turn ended %+v", ended)
		}
		if s.PlanMode() {
			t.Errorf("plan mode still on after approving plan %s", id)
		}
	}
	after := configFiles(t, r)
	if len(after) != len(before) {
		t.Errorf("config files %v, want %v", after, before)
	}
	for p, text := range before {
		if after[p] != text {
			t.Errorf("%s changed by plan reviews:\n%s", p, after[p])
		}
	}
}

// An allow rule for ExitPlanMode in config.toml does not skip the review:
// a plan is always put to the user (kimigo departs from spec 04 §2.3 here;
// see agent/permission's chain).
func TestAllowRuleDoesNotSkipPlanReview(t *testing.T) {
	r := newRig(t)
	r.writeConfig(mustRead(t, r) + "\n[[permission.rules]]\ndecision = \"allow\"\npattern = \"ExitPlanMode\"\nscope = \"user\"\n")
	o := r.opts("")
	o.Requests = session.Answered
	s, err := session.Open(t.Context(), o)
	if err != nil {
		t.Fatal(err)
	}
	defer closeSession(t, s)
	sub := s.Subscribe()
	defer sub.Close()
	req := presentPlan(t, r, s, sub, "x1", "# Plan\n1. do it")
	if err := s.AnswerApproval(req.RequestID, event.ApprovalAnswer{Choice: event.Reject, Feedback: "Add tests first."}); err != nil {
		t.Fatal(err)
	}
	if res := toolResult(t, sub); res.IsError || !strings.Contains(res.Output.Text(), "User rejected the plan. Feedback:\n\nAdd tests first.") {
		t.Errorf("rejected review result %+v", res)
	}
	waitEnded(t, sub)
	if !s.PlanMode() {
		t.Error("a rejected plan ended plan mode")
	}
}

func mapValues(m map[string]string) []string {
	var out []string
	for _, v := range m {
		out = append(out, v)
	}
	return out
}

// The plan file is the plan (spec 04 §5.6): when the user edits it
// during the review, approving approves the edited text, and that is
// what the model reads in the result and in its next request.
func TestApprovedPlanIsTheEditedFile(t *testing.T) {
	r := newRig(t)
	o := r.opts("")
	o.Requests = session.Answered
	s, err := session.Open(t.Context(), o)
	if err != nil {
		t.Fatal(err)
	}
	defer closeSession(t, s)
	sub := s.Subscribe()
	defer sub.Close()
	req := presentPlan(t, r, s, sub, "x1", "# Plan\n1. rewrite everything")
	path := s.PlanState().Path
	if d, ok := req.Display.(*tools.PlanReviewDisplay); !ok || !strings.Contains(d.Plan, "rewrite everything") || d.Path != path {
		t.Fatalf("review display %#v", req.Display)
	}
	const edited = "# Plan (edited)\n1. fix the one failing test\n"
	if err := os.WriteFile(path, []byte(edited), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := s.AnswerApproval(req.RequestID, event.ApprovalAnswer{Choice: event.ApproveOnce, SelectedLabel: "Approve"}); err != nil {
		t.Fatal(err)
	}
	res := toolResult(t, sub)
	if res.IsError || !strings.Contains(res.Output.Text(), "## Approved Plan:\n"+edited) || strings.Contains(res.Output.Text(), "rewrite everything") {
		t.Errorf("approved result %q; want the edited plan", res.Output.Text())
	}
	if ended := waitEnded(t, sub); ended.Reason != event.EndCompleted {
		t.Fatalf("turn ended %+v", ended)
	}
	if s.PlanMode() {
		t.Error("plan mode still on after the approval")
	}
	body := string(r.srv.Request(len(r.srv.Requests()) - 1).Body)
	if !strings.Contains(body, "fix the one failing test") || strings.Contains(body, "rewrite everything") {
		t.Error("the model's next request does not carry the edited plan alone")
	}
	if b, err := os.ReadFile(path); err != nil || string(b) != edited {
		t.Errorf("plan file %q, %v; want the edit kept", b, err)
	}
}
