package agent_test

import (
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/google/go-cmp/cmp"

	"github.com/kimigo/kimigo/agent/agenttest"
	"github.com/kimigo/kimigo/agent/permission"
	"github.com/kimigo/kimigo/agent/records"
	"github.com/kimigo/kimigo/agent/replay"
	"github.com/kimigo/kimigo/agent/turn"
	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/llm/scripted"
	"github.com/kimigo/kimigo/loop"
	"github.com/kimigo/kimigo/tools"
)

// The permission manager inside the agent: the real chain decides inside
// a turn, approvals reach an Approver, and the mode and session approvals
// are records that Resume restores (spec 04 §1.4, §4; spec 02 §6.3).

const (
	typeSetMode        = records.Type(permission.TypeSetMode)
	typeApprovalResult = records.Type(permission.TypeApprovalResult)
)

// permissionHarness runs an agent with the built-in tools and a permission
// manager built from o.
func permissionHarness(t *testing.T, o permission.Options, opts ...agenttest.Option) *agenttest.Harness {
	t.Helper()
	return newHarness(t, append([]agenttest.Option{agenttest.BuiltinTools(), agenttest.Permission(o)}, opts...)...)
}

// bashCall is a model response calling the built-in Bash with command.
func bashCall(id, command string) scripted.Response {
	return call(id, "Bash", `{"command":"`+command+`"}`)
}

// ran counts the shell scripts started that are command, or end with it
// after a cd.
func ran(h *agenttest.Harness, command string) int {
	n := 0
	for _, c := range h.Env().Runner().Commands() {
		if k := len(c.Args); k > 0 && (c.Args[k-1] == command || strings.HasSuffix(c.Args[k-1], " && "+command)) {
			n++
		}
	}
	return n
}

// resultTexts are the outputs of the tool.result events, in order.
func resultTexts(h *agenttest.Harness) []string {
	var out []string
	for _, r := range eventsOf[event.ToolResult](h) {
		out = append(out, r.Output.Text())
	}
	return out
}

// The issue's acceptance: "Resume restores the mode and session
// approvals" (spec 04 §10 scenarios 45, 47 and 50 through the agent).
func TestPermissionSessionApprovalAndModeSurviveResume(t *testing.T) {
	approver := agenttest.NewApprover()
	h := permissionHarness(t, permission.Options{Approver: approver})
	a := agentOf(h)
	if got := a.Permission().Mode(); got != permission.ModeManual {
		t.Fatalf("initial mode = %q, want manual", got)
	}

	h.Model(bashCall("c1", "printf first"), scripted.Text("Printed."))
	h.Start("print it")
	q := approver.Next(t)
	want := permission.ApprovalRequest{TurnID: 0, ToolCallID: "c1", ToolName: "Bash", Action: "Running: printf first",
		Display: &loop.CommandDisplay{Command: "printf first", Cwd: "/ws", Language: "bash"}}
	if d := cmp.Diff(want, q.Request); d != "" {
		t.Errorf("approval request (-want +got):\n%s", d)
	}
	if n := ran(h, "printf first"); n != 0 {
		t.Errorf("the command ran %d times before the answer", n)
	}
	q.Answer(event.ApproveSession)
	if res := h.Wait(); res.Event.Reason != event.EndCompleted {
		t.Fatalf("turn 0 ended %+v", res.Event)
	}

	h.Model(bashCall("c2", "printf first"), scripted.Text("Printed again."))
	if res := h.Prompt("print it again"); res.Event.Reason != event.EndCompleted {
		t.Fatalf("turn 1 ended %+v", res.Event)
	}
	if n := len(approver.Requests()); n != 1 {
		t.Errorf("%d approval requests, want 1: the session approval covers the second call", n)
	}
	if n := ran(h, "printf first"); n != 2 {
		t.Errorf("the command ran %d times, want 2", n)
	}
	approvals := recordStrings(h, typeApprovalResult)
	if len(approvals) != 1 || !strings.Contains(approvals[0], `"sessionApprovalRule":"Bash(printf first)"`) ||
		!strings.Contains(approvals[0], `"result":{"decision":"approved","scope":"session"}`) {
		t.Errorf("approval records = %q", approvals)
	}

	before := len(eventsOf[event.Status](h))
	if err := a.SetPermissionMode(t.Context(), permission.ModeYolo); err != nil {
		t.Fatal(err)
	}
	statuses := eventsOf[event.Status](h)
	if len(statuses) != before+1 || statuses[len(statuses)-1].Permission != event.ModeYolo {
		t.Errorf("SetPermissionMode published %d statuses (want 1), the last %+v; want mode yolo",
			len(statuses)-before, statuses[max(0, len(statuses)-1):])
	}
	if got := a.Status().Permission; got != event.ModeYolo {
		t.Errorf("Status().Permission = %q, want yolo", got)
	}
	if got := recordStrings(h, typeSetMode); len(got) != 1 || !strings.Contains(got[0], `"mode":"yolo"`) {
		t.Errorf("set_mode records = %q", got)
	}

	expectPermissionResumed(t, h)
}

// expectPermissionResumed checks that a resumed agent has the mode yolo
// and the session approval of "printf first", that the replay shows both,
// and that the approval comes from its record alone.
func expectPermissionResumed(t *testing.T, h *agenttest.Harness) {
	t.Helper()
	r := h.ExpectResumeMatches()
	resumed := r.Agent.(host).Agent
	if got := resumed.Permission().Mode(); got != permission.ModeYolo {
		t.Errorf("resumed mode = %q, want yolo", got)
	}
	if d := cmp.Diff([]string{"Bash(printf first)"}, resumed.Permission().SessionPatterns()); d != "" {
		t.Errorf("resumed session approvals (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"approval_result:c1", "permission_updated:yolo"}, permissionCards(r.Cards)); d != "" {
		t.Errorf("permission replay cards (-want +got):\n%s", d)
	}

	// The records are the truth: without the approval record the resumed
	// agent has no session approval.
	var without []records.Record
	for _, rec := range h.Records() {
		if rec.Type != typeApprovalResult {
			without = append(without, rec)
		}
	}
	bare := h.Resume(without).Agent.(host).Agent
	if got := bare.Permission().SessionPatterns(); len(got) != 0 {
		t.Errorf("session approvals restored without their record: %q", got)
	}
}

// permissionCards describes the approval and mode cards of a replay.
func permissionCards(cards []replay.Card) []string {
	var out []string
	for _, c := range cards {
		switch c.Type {
		case replay.CardPermissionUpdated:
			out = append(out, "permission_updated:"+c.Mode)
		case replay.CardApprovalResult:
			var rec permission.ApprovalResultRecord
			p, err := permission.DecodeRecord(permission.TypeApprovalResult, c.Fields)
			if err == nil {
				rec = p.(permission.ApprovalResultRecord)
			}
			out = append(out, "approval_result:"+rec.ToolCallID)
		}
	}
	return out
}

// Spec 04 §10 scenario 5 and §2.10: a deny rule blocks a Write inside a
// turn, before any approval, with the rule's reason.
func TestPermissionDenyRuleBlocksWrite(t *testing.T) {
	approver := agenttest.NewApprover()
	h := permissionHarness(t, permission.Options{Approver: approver, Rules: []permission.Rule{
		{Decision: permission.DecisionDeny, Pattern: "Write(/ws/gen/**)", Reason: "generated files are read-only"},
	}})
	h.Model(call("c1", "Write", `{"path":"gen/api.go","content":"package gen"}`), scripted.Text("Understood."))
	if res := h.Prompt("regenerate the API"); res.Event.Reason != event.EndCompleted {
		t.Fatalf("turn ended %+v", res.Event)
	}
	want := []string{`Tool "Write" was denied by permission rule. Reason: generated files are read-only`}
	if d := cmp.Diff(want, resultTexts(h)); d != "" {
		t.Errorf("tool results (-want +got):\n%s", d)
	}
	if res := eventsOf[event.ToolResult](h); len(res) != 1 || !res[0].IsError {
		t.Errorf("tool.result events = %+v, want one error", res)
	}
	if _, err := h.Env().ReadFile("/ws/gen/api.go"); err == nil {
		t.Error("the denied Write wrote the file")
	}
	if n := len(approver.Requests()); n != 0 {
		t.Errorf("%d approval requests, want none", n)
	}
	if got := recordStrings(h, typeApprovalResult); len(got) != 0 {
		t.Errorf("approval records = %q, want none", got)
	}
	h.ExpectResumeMatches()
}

// ruleLog is a RuleWriter that remembers the rules of "always" answers.
type ruleLog struct {
	mu    sync.Mutex
	rules []string
}

func (l *ruleLog) AddUserAllowRule(pattern string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.rules = append(l.rules, pattern)
	return nil
}

func (l *ruleLog) list() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.rules...)
}

// Spec 04 §4.1–4.3, §2.10, ERRATA 10: what each answer does inside a turn
// (scenarios 46, 47, 51, 52 and the "always" answer).
func TestPermissionApprovalAnswers(t *testing.T) {
	for _, tt := range []struct {
		name     string
		response permission.ApprovalResponse
		runs     int
		result   string // what the tool result contains
		absent   string // what it must not contain
		record   string // in the approval record
		session  []string
		written  []string
	}{
		{name: "once", response: agenttest.Response(event.ApproveOnce), runs: 1, record: `"result":{"decision":"approved"}`},
		{name: "session", response: agenttest.Response(event.ApproveSession), runs: 1,
			record: `"sessionApprovalRule":"Bash(printf x)"`, session: []string{"Bash(printf x)"}},
		{name: "always", response: agenttest.Response(event.ApproveAlways), runs: 1,
			record: `"scope":"always"`, session: []string{"Bash(printf x)"}, written: []string{"Bash(printf x)"}},
		{name: "reject with feedback",
			response: permission.ApprovalResponse{Decision: permission.ApprovalRejected, Feedback: "too risky"},
			result:   `Tool "Bash" was not run because the user rejected the approval request. Reason: too risky Do not re-attempt`,
			record:   `"result":{"decision":"rejected","feedback":"too risky"}`},
		{name: "cancelled by the front end",
			response: permission.ApprovalResponse{Decision: permission.ApprovalCancelled},
			result:   `Tool "Bash" was not run because the approval request was cancelled.`, absent: "re-attempt",
			record: `"result":{"decision":"cancelled"}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			approver, writer := agenttest.NewApprover(), &ruleLog{}
			h := permissionHarness(t, permission.Options{Approver: approver, RuleWriter: writer})
			h.Model(bashCall("c1", "printf x"), scripted.Text("Done."))
			h.Start("print x")
			approver.Next(t).Respond(tt.response)
			if res := h.Wait(); res.Event.Reason != event.EndCompleted {
				t.Fatalf("turn ended %+v", res.Event)
			}
			if n := ran(h, "printf x"); n != tt.runs {
				t.Errorf("the command ran %d times, want %d", n, tt.runs)
			}
			texts := resultTexts(h)
			if len(texts) != 1 || !strings.Contains(texts[0], tt.result) || (tt.absent != "" && strings.Contains(texts[0], tt.absent)) {
				t.Errorf("tool result = %q; want it to contain %q (and not %q)", texts, tt.result, tt.absent)
			}
			if got := recordStrings(h, typeApprovalResult); len(got) != 1 || !strings.Contains(got[0], tt.record) {
				t.Errorf("approval records = %q, want one with %s", got, tt.record)
			}
			a := agentOf(h)
			if d := cmp.Diff(tt.session, a.Permission().SessionPatterns()); d != "" {
				t.Errorf("session approvals (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tt.written, writer.list()); d != "" {
				t.Errorf("rules written to the user config (-want +got):\n%s", d)
			}
			h.ExpectResumeMatches()
		})
	}
}

// An agent with a manager but no Approver never approves an ask and never
// waits for one: the call is blocked at once with a message that says
// why, and auto mode (print mode's) runs the same call without asking.
func TestPermissionWithoutApprover(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := permissionHarness(t, permission.Options{})
		h.Model(bashCall("c1", "printf x"), scripted.Text("Blocked."))
		if res := h.Prompt("print x"); res.Event.Reason != event.EndCompleted {
			t.Fatalf("turn ended %+v", res.Event)
		}
		texts := resultTexts(h)
		if len(texts) != 1 || !strings.Contains(texts[0], `Tool "Bash" was not run`) ||
			!strings.Contains(texts[0], "nobody is here to approve it") || !strings.Contains(texts[0], "Bash(printf x)") {
			t.Errorf("tool results = %q", texts)
		}
		if n := ran(h, "printf x"); n != 0 {
			t.Errorf("the command ran %d times without approval", n)
		}
		if got := recordStrings(h, typeApprovalResult); len(got) != 0 {
			t.Errorf("approval records = %q, want none", got)
		}

		if err := agentOf(h).SetPermissionMode(t.Context(), permission.ModeAuto); err != nil {
			t.Fatal(err)
		}
		h.Model(bashCall("c2", "printf x"), scripted.Text("Printed."))
		h.Prompt("print x, in auto mode")
		if n := ran(h, "printf x"); n != 1 {
			t.Errorf("in auto mode the command ran %d times, want 1", n)
		}
		h.ExpectResumeMatches()
	})
}

// The agent's hook runner serves the chain too: a PreToolUse block denies
// the call with the hook's reason, before any approval (spec 04 §2.4.1).
func TestPermissionPreToolUseOnTheAgentHooks(t *testing.T) {
	approver := agenttest.NewApprover()
	hooks := &agenttest.Hooks{OnBlock: func(ev turn.HookEvent, input map[string]any) []turn.HookResult {
		if ev == turn.HookEvent(permission.HookPreToolUse) && strings.Contains(input["toolInput"].(map[string]any)["command"].(string), "grep") {
			return []turn.HookResult{{Block: true, Reason: "use rg", Message: "not shown to the model"}}
		}
		return nil
	}}
	h := permissionHarness(t, permission.Options{Approver: approver}, agenttest.HookRunner(hooks))
	h.Model(bashCall("c1", "grep -r x ."), scripted.Text("Switching."))
	h.Prompt("search")
	if d := cmp.Diff([]string{"use rg"}, resultTexts(h)); d != "" {
		t.Errorf("tool results (-want +got):\n%s", d)
	}
	pre := hooks.Calls(turn.HookEvent(permission.HookPreToolUse))
	if len(pre) != 1 || pre[0].Matcher != "Bash" || pre[0].Input["toolCallId"] != "c1" || !pre[0].Awaited {
		t.Errorf("PreToolUse hooks = %+v", pre)
	}
	if n := len(approver.Requests()); n != 0 {
		t.Errorf("%d approval requests, want none", n)
	}
	h.ExpectResumeMatches()
}

// At most one approval request is open per agent: two calls of one batch
// are asked about one after the other (spec 04 §2.1, §4).
func TestPermissionOneOpenRequest(t *testing.T) {
	approver := agenttest.NewApprover()
	h := permissionHarness(t, permission.Options{Approver: approver})
	h.Model(scripted.ToolCalls(scripted.Call{ID: "c1", Name: "Bash", Arguments: `{"command":"printf one"}`},
		scripted.Call{ID: "c2", Name: "Bash", Arguments: `{"command":"printf two"}`}), scripted.Text("Both."))
	h.Start("print both")
	first := approver.Next(t)
	if n := len(approver.Requests()); n != 1 {
		t.Errorf("%d requests open while the first waits, want 1", n)
	}
	first.Answer(event.ApproveOnce)
	second := approver.Next(t)
	second.Answer(event.ApproveOnce)
	h.Wait()
	var ids []string
	for _, r := range approver.Requests() {
		ids = append(ids, r.ToolCallID)
	}
	if d := cmp.Diff([]string{"c1", "c2"}, ids); d != "" {
		t.Errorf("requests (-want +got):\n%s", d)
	}
	h.ExpectResumeMatches()
}

// permission names the built-in tools its rules and policies are about
// without importing tools; the names must be the tools' own.
func TestPermissionToolNamesAreTheTools(t *testing.T) {
	builtin := map[string]bool{}
	for _, n := range []string{tools.NameBash, tools.NameWrite, tools.NameEdit, tools.NameAskUserQuestion,
		tools.NameRead, tools.NameGlob, tools.NameGrep} {
		builtin[n] = true
	}
	for _, n := range permission.ToolNames() {
		if !builtin[n] {
			t.Errorf("permission refers to tool %q, which the tools package does not name", n)
		}
	}
}
