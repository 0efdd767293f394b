package permission_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/google/go-cmp/cmp"

	"github.com/kimigo/kimigo/agent/permission"
	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/loop"
)

func TestScenario45Payload(t *testing.T) {
	r := newRig(t)
	r.call("Bash", `{"command":"printf x"}`)
	got, _ := json.Marshal(r.approver.last())
	want := `{"turnId":0,"toolCallId":"c1","toolName":"Bash","action":"Running: printf x",` +
		`"display":{"kind":"command","command":"printf x","cwd":"/repo","language":"bash"}}`
	if string(got) != want {
		t.Errorf("request\n got %s\nwant %s", got, want)
	}
	r.call("Custom", `{"query":"q"}`)
	got, _ = json.Marshal(r.approver.last())
	want = `{"turnId":0,"toolCallId":"c2","toolName":"Custom","action":"Call Custom",` +
		`"display":{"kind":"generic","summary":"Approve Custom","detail":{"query":"q"}}}`
	if string(got) != want {
		t.Errorf("generic request\n got %s\nwant %s", got, want)
	}
	r.callExec("Custom", `{}`, &loop.Execution{Description: "Doing things"})
	if req := r.approver.last(); req.Action != "Doing things" || req.Display.(*loop.GenericDisplay).Summary != "Doing things" {
		t.Errorf("described request = %+v", req)
	}
}

func TestScenario46ApproveOnce(t *testing.T) {
	r := newRig(t)
	for range 2 {
		if got := r.judge("Bash", `{"command":"printf first"}`); got != asked {
			t.Fatalf("got %s; want ask", got)
		}
	}
	recs := r.log.of(permission.TypeApprovalResult)
	if len(recs) != 2 || strings.Contains(recs[0]+recs[1], "sessionApprovalRule") {
		t.Errorf("records %v", recs)
	}
}

func TestScenario47ApproveForSession(t *testing.T) {
	r := newRig(t, withAnswers(answer(event.ApproveSession)))
	r.judge("Bash", `{"command":"printf first"}`)
	want := `{"turnId":0,"toolCallId":"c1","toolName":"Bash","action":"Running: printf first",` +
		`"sessionApprovalRule":"Bash(printf first)","result":{"decision":"approved","scope":"session"}}`
	if recs := r.log.of(permission.TypeApprovalResult); len(recs) != 1 || recs[0] != want {
		t.Errorf("records\n got %v\nwant %s", recs, want)
	}
	if got := r.judge("Bash", `{"command":"printf first"}`); got != approved {
		t.Errorf("same command = %s", got)
	}
	if got := r.judge("Bash", `{"command":"printf second"}`); got != asked {
		t.Errorf("other command = %s", got)
	}
}

func TestScenario48LiteralEscaping(t *testing.T) {
	r := newRig(t, withAnswers(answer(event.ApproveSession)))
	r.judge("Bash", `{"command":"printf *"}`)
	if p := r.m.SessionPatterns(); len(p) != 1 || p[0] != `Bash(printf \*)` {
		t.Errorf("patterns %q", p)
	}
	if got := r.judge("Bash", `{"command":"printf hello"}`); got != asked {
		t.Errorf("printf hello = %s", got)
	}
	if got := r.judge("Bash", `{"command":"printf *"}`); got != approved {
		t.Errorf("printf * = %s", got)
	}
}

func TestScenario49SubjectlessTools(t *testing.T) {
	r := newRig(t, withAnswers(answer(event.ApproveSession)))
	r.judge("Custom", `{"query":"first"}`)
	if got := r.judge("Custom", `{"query":"second"}`); got != approved {
		t.Errorf("second call = %s", got)
	}
	if p := r.m.SessionPatterns(); len(p) != 1 || p[0] != "Custom" {
		t.Errorf("patterns %q", p)
	}
}

func TestScenario50Persistence(t *testing.T) {
	r := newRig(t, withAnswers(answer(event.ApproveSession)))
	r.judge("Bash", `{"command":"printf first"}`)
	resumed := newRig(t)
	r.log.replay(t, resumed.m)
	if got := resumed.judge("Bash", `{"command":"printf first"}`); got != approved {
		t.Errorf("after resume: %s", got)
	}
	if d := resumed.m.Data(); len(d.Rules) != 0 {
		t.Errorf("Data().Rules = %v", d.Rules)
	}
}

func TestScenario51RejectionText(t *testing.T) {
	reject := permission.ApprovalResponse{Decision: permission.ApprovalRejected, Feedback: "too risky"}
	r := newRig(t, withAnswers(reject))
	a, err := r.call("Bash", `{"command":"rm x"}`)
	wantBlock(t, a, err, "was not run because the user rejected", "Reason: too risky", "Do not re-attempt the exact same call")
	sub := newRig(t, withAgentType(permission.AgentSub), withAnswers(reject))
	a, err = sub.call("Bash", `{"command":"rm x"}`)
	wantBlock(t, a, err, "was not run because the user rejected", "Reason: too risky", "don't retry the same call")
	if strings.Contains(a.Reason, "re-attempt") {
		t.Errorf("subagent text has the main agent's guidance: %q", a.Reason)
	}
}

func TestScenario52CancellationText(t *testing.T) {
	r := newRig(t, withAnswers(permission.ApprovalResponse{Decision: permission.ApprovalCancelled}))
	a, err := r.call("Bash", `{"command":"rm x"}`)
	wantBlock(t, a, err, `Tool "Bash" was not run because the approval request was cancelled.`)
	if strings.Contains(a.Reason, "re-attempt") || strings.Contains(a.Reason, "retry") {
		t.Errorf("cancellation text has guidance: %q", a.Reason)
	}
}

func TestScenario53ObserverHooks(t *testing.T) {
	r := newRig(t, withAnswers(permission.ApprovalResponse{Decision: permission.ApprovalRejected, Feedback: "no", SelectedLabel: "Reject"}))
	r.approver.onCall = func(context.Context) {
		req := r.hooks.of(permission.HookPermissionRequest)
		if len(req) != 1 || len(r.hooks.of(permission.HookPermissionResult)) != 0 {
			t.Errorf("while waiting: %d request and %d result hooks", len(req), len(r.hooks.of(permission.HookPermissionResult)))
			return
		}
		in := req[0].input
		if d := cmp.Diff(map[string]any{"command": "rm x"}, in["toolInput"]); d != "" || in["display"] == nil || in["turnId"] != 0 {
			t.Errorf("PermissionRequest input %v", in)
		}
	}
	r.call("Bash", `{"command":"rm x"}`)
	res := r.hooks.of(permission.HookPermissionResult)
	if len(res) != 1 {
		t.Fatalf("%d result hooks", len(res))
	}
	for k, v := range map[string]any{"decision": "rejected", "scope": "", "feedback": "no", "selectedLabel": "Reject", "toolName": "Bash"} {
		if res[0].input[k] != v {
			t.Errorf("PermissionResult %s = %v; want %v", k, res[0].input[k], v)
		}
	}
	headless := newRig(t, withoutApprover())
	a, err := headless.call("Bash", `{"command":"rm x"}`)
	if err != nil || !a.Block || !strings.Contains(a.Reason, "nobody is here to approve it") ||
		!strings.Contains(a.Reason, "Bash(rm x)") {
		t.Errorf("without an approver: %+v, %v; want a denial naming the rule that would allow it", a, err)
	}
	if n := len(headless.hooks.of(permission.HookPermissionRequest)) + len(headless.hooks.of(permission.HookPermissionResult)); n != 0 {
		t.Errorf("headless approval fired %d hooks", n)
	}
}

func TestScenario54TransportError(t *testing.T) {
	r := newRig(t)
	r.approver.err = errors.New("closed")
	_, err := r.call("Bash", `{"command":"rm x"}`)
	if err == nil || !strings.Contains(err.Error(), "closed") {
		t.Fatalf("error = %v; want one carrying the transport's", err)
	}
	res := r.hooks.of(permission.HookPermissionResult)
	if len(res) != 1 || res[0].input["decision"] != "error" {
		t.Errorf("PermissionResult hooks %v", res)
	}
	if recs := r.log.of(permission.TypeApprovalResult); len(recs) != 0 {
		t.Errorf("approval records written: %v", recs)
	}
	plan := newRig(t, withPlan("# Plan"))
	plan.approver.err = errors.New("closed")
	if _, err := plan.call("ExitPlanMode", `{}`); err == nil || !plan.planActive() {
		t.Errorf("error %v, plan active %v; want an error and plan mode untouched", err, plan.planActive())
	}
}

func TestScenario55AbortDuringApproval(t *testing.T) {
	r := newRig(t)
	ctx, cancel := context.WithCancelCause(t.Context())
	r.approver.blocking = true
	r.approver.onCall = func(context.Context) { cancel(loop.ErrUserCancelled) }
	exec, _ := r.resolve("Bash", `{"command":"rm x"}`)
	tc := llm.ToolCall{ID: "c1", Name: "Bash", Arguments: `{"command":"rm x"}`}
	_, err := r.m.Authorize(ctx, loop.ToolCtx{ToolCall: tc, ToolCalls: []llm.ToolCall{tc}, Args: []byte(tc.Arguments), Execution: exec})
	if !errors.Is(err, permission.ErrApprovalCancelled) || !errors.Is(err, loop.ErrUserCancelled) ||
		!strings.Contains(err.Error(), "approval request was cancelled") {
		t.Errorf("error = %v", err)
	}
	if recs := r.log.of(permission.TypeApprovalResult); len(recs) != 0 {
		t.Errorf("a cancelled request was recorded: %v", recs)
	}
}

// TestOneOpenRequestPerAgent: a second call waits until the first
// request is answered.
func TestOneOpenRequestPerAgent(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t)
		release := make(chan struct{})
		r.approver.onCall = func(context.Context) { <-release }
		var wg sync.WaitGroup
		for range 2 {
			wg.Go(func() { r.call("Bash", `{"command":"rm x"}`) })
		}
		synctest.Wait()
		if n := r.requests(); n != 1 {
			t.Errorf("%d requests open at once; want 1", n)
		}
		close(release)
		wg.Wait()
		if n := r.requests(); n != 2 {
			t.Errorf("%d requests in total; want 2", n)
		}
	})
}

// TestCancelWhileWaitingForSlot: a call queued behind an open request is
// cancelled with its turn, without ever reaching the user.
func TestCancelWhileWaitingForSlot(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t)
		release := make(chan struct{})
		r.approver.onCall = func(context.Context) { <-release }
		go r.call("Bash", `{"command":"rm x"}`)
		synctest.Wait()
		ctx, cancel := context.WithCancelCause(t.Context())
		done := make(chan error)
		go func() {
			exec, _ := r.resolve("Bash", `{"command":"rm y"}`)
			tc := llm.ToolCall{ID: "c9", Name: "Bash"}
			_, err := r.m.Authorize(ctx, loop.ToolCtx{ToolCall: tc, Args: []byte(`{"command":"rm y"}`), Execution: exec})
			done <- err
		}()
		synctest.Wait()
		cancel(loop.ErrUserCancelled)
		if err := <-done; !errors.Is(err, permission.ErrApprovalCancelled) {
			t.Errorf("error = %v", err)
		}
		if n := r.requests(); n != 1 {
			t.Errorf("%d requests; the queued call reached the user", n)
		}
		close(release)
	})
}

func TestApproveAlways(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(cfg, []byte("# kimigo\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	w := &fileRuleWriter{path: cfg}
	r := newRig(t, withWriter(w), withAnswers(answer(event.ApproveAlways), answer(event.ApproveAlways), answer(event.ApproveAlways)))
	r.judge("Bash", `{"command":"git status && go test ./... | tee out.txt"}`)
	r.judge("Write", `{"path":"/elsewhere/a.txt","content":"x"}`)
	r.judge("Bash", `{"command":"eval \"$CMD\""}`) // allow rules can never approve this: nothing is written
	data, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var patterns []string
	for _, line := range strings.Split(string(data), "\n") {
		if p, ok := strings.CutPrefix(line, "pattern = "); ok {
			var s string
			if err := json.Unmarshal([]byte(p), &s); err != nil {
				t.Fatal(err)
			}
			patterns = append(patterns, s)
		}
	}
	want := []string{"Bash(git status)", "Bash(go test ./...)", "Bash(tee out.txt)", "Write(/elsewhere/a.txt)"}
	if d := cmp.Diff(want, patterns); d != "" || !strings.HasPrefix(string(data), "# kimigo\n") || strings.Count(string(data), `decision = "allow"`) != 4 {
		t.Errorf("config.toml:\n%s\npatterns (-want +got):\n%s", data, d)
	}
	recs := r.log.of(permission.TypeApprovalResult)
	if len(recs) != 3 || !strings.Contains(recs[0], `"scope":"always"`) || !strings.Contains(recs[0], `"sessionApprovalRule":"Bash(git status \u0026\u0026 go test ./... \\| tee out.txt)"`) {
		t.Errorf("records %v", recs)
	}
	// The rules written approve the same script in a later session.
	loaded, errs := permission.LoadRules(specsOf(patterns), permission.LoadOptions{})
	next := newRig(t, withRules(loaded...))
	if got := next.judge("Bash", `{"command":"git status && go test ./... | tee out.txt"}`); got != approved || len(errs) != 0 {
		t.Errorf("next session: %s (load errors %v)", got, errs)
	}
}

func specsOf(patterns []string) []permission.RuleSpec {
	var out []permission.RuleSpec
	for _, p := range patterns {
		out = append(out, permission.RuleSpec{Decision: "allow", Pattern: p})
	}
	return out
}

func TestUnknownAnswerIsAnError(t *testing.T) {
	r := newRig(t, withAnswers(permission.ApprovalResponse{Decision: "maybe"}))
	if _, err := r.call("Bash", `{"command":"ls"}`); err == nil || !strings.Contains(err.Error(), "maybe") {
		t.Errorf("error = %v", err)
	}
}

func TestRecordFailureBlocksTheCall(t *testing.T) {
	r := newRig(t)
	r.log.fail = errors.New("disk full")
	if _, err := r.call("Bash", `{"command":"ls"}`); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Errorf("error = %v", err)
	}
}

func TestTelemetryHasNoArgumentText(t *testing.T) {
	r := newRig(t, withRules(rule(permission.DecisionAsk, "Bash(curl *)")), withAnswers(answer(event.ApproveSession)))
	r.call("Bash", `{"command":"curl secret.example?token=abc"}`)
	for _, ev := range r.tele.events {
		b, _ := json.Marshal(ev.props)
		if strings.Contains(string(b), "secret") || strings.Contains(string(b), "curl") {
			t.Errorf("%s carries argument text: %s", ev.name, b)
		}
	}
	d := r.tele.last(permission.EventApprovalResult)
	if d["result"] != "approved_for_session" || d["approval_surface"] != "command" || d["policy_name"] != "user-configured-ask" {
		t.Errorf("approval telemetry %v", d)
	}
}

// A front end's answer maps to one response; a choice that does not
// exist is an error naming it.
func TestResponseForEveryChoice(t *testing.T) {
	for _, tt := range []struct {
		in   event.ApprovalAnswer
		want permission.ApprovalResponse
	}{
		{event.ApprovalAnswer{Choice: event.ApproveOnce}, permission.ApprovalResponse{Decision: permission.ApprovalApproved}},
		{event.ApprovalAnswer{Choice: event.ApproveSession}, permission.ApprovalResponse{Decision: permission.ApprovalApproved, Scope: permission.ApprovalSession}},
		{event.ApprovalAnswer{Choice: event.ApproveAlways}, permission.ApprovalResponse{Decision: permission.ApprovalApproved, Scope: permission.ApprovalAlways}},
		{event.ApprovalAnswer{Choice: event.Reject, Feedback: "use rg"}, permission.ApprovalResponse{Decision: permission.ApprovalRejected, Feedback: "use rg"}},
		{event.ApprovalAnswer{Choice: event.Dismiss}, permission.ApprovalResponse{Decision: permission.ApprovalCancelled}},
		{event.ApprovalAnswer{Choice: event.ApproveOnce, SelectedLabel: "B"}, permission.ApprovalResponse{Decision: permission.ApprovalApproved, SelectedLabel: "B"}},
	} {
		got, err := permission.Response(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("Response(%+v) = %+v, %v; want %+v", tt.in, got, err, tt.want)
		}
	}
	if _, err := permission.Response(event.ApprovalAnswer{Choice: "maybe"}); err == nil || !strings.Contains(err.Error(), `"maybe"`) {
		t.Errorf("Response(maybe) = %v; want an error naming it", err)
	}
}
