package agent_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kimigo/kimigo/agent/agenttest"
	"github.com/kimigo/kimigo/agent/turn"
	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/llm/scripted"
	"github.com/kimigo/kimigo/loop"
	"github.com/kimigo/kimigo/loop/looptest"
)

// What FinalizeToolResult wires (spec 03 §1.7): the deduplicator, the
// PostToolUse hooks and the result budget, in that order.

func TestSameStepDuplicateRunsOnceThroughTheAgent(t *testing.T) {
	gate := agenttest.NewApprovals()
	bash := bashTool()
	hooks := &agenttest.Hooks{}
	h := newHarness(t, agenttest.Gate(gate), agenttest.Tools(bash), agenttest.HookRunner(hooks))
	h.Model(scripted.ToolCalls(
		scripted.Call{ID: "c1", Name: "Bash", Arguments: `{"command":"printf dup"}`},
		scripted.Call{ID: "c2", Name: "Bash", Arguments: `{ "command": "printf dup" }`}),
		scripted.Text("done"))
	h.Start("twice")
	gate.Next(t).Approve()
	h.Wait()
	if d := cmp.Diff([]string{"c1"}, gate.Asked()); d != "" {
		t.Errorf("approvals asked (-want +got):\n%s", d)
	}
	if n := len(bash.Executions()); n != 1 {
		t.Errorf("the command ran %d times, want 1", n)
	}
	var outputs []string
	for _, r := range eventsOf[event.ToolResult](h) {
		outputs = append(outputs, r.Output.Text())
	}
	if d := cmp.Diff([]string{"ran printf dup", "ran printf dup"}, outputs); d != "" {
		t.Errorf("results (-want +got):\n%s", d)
	}
	if n := len(hooks.Calls(turn.HookPostToolUse)); n != 2 {
		t.Errorf("PostToolUse fired %d times, want 2", n)
	}
	h.ExpectResumeMatches()
}

func TestPostToolUseHooks(t *testing.T) {
	fail := &looptest.Tool{Name: "Fail", Accesses: loop.None(),
		Run: func(context.Context, json.RawMessage, loop.ExecCtx) (loop.ToolResult, error) {
			return loop.ErrorResult("no such file"), nil
		}}
	hooks := &agenttest.Hooks{}
	h := newHarness(t, agenttest.Tools(looptest.Echo(), fail), agenttest.HookRunner(hooks))
	h.Model(scripted.ToolCalls(scripted.Call{ID: "c1", Name: "echo", Arguments: `{"text":"hi"}`},
		scripted.Call{ID: "c2", Name: "Fail", Arguments: `{}`}), scripted.Text("ok"))
	h.Prompt("go")
	ok := hooks.Calls(turn.HookPostToolUse)
	if len(ok) != 1 || ok[0].Matcher != "echo" || ok[0].Input["toolOutput"] != "hi" || ok[0].Input["toolCallId"] != "c1" ||
		string(ok[0].Input["toolInput"].(json.RawMessage)) != `{"text":"hi"}` {
		t.Errorf("PostToolUse = %+v", ok)
	}
	failed := hooks.Calls(turn.HookPostToolUseFailure)
	if len(failed) != 1 || failed[0].Matcher != "Fail" {
		t.Fatalf("PostToolUseFailure = %+v", failed)
	}
	if e, _ := failed[0].Input["error"].(event.ErrorPayload); e.Code != "internal" || e.Message != "no such file" {
		t.Errorf("PostToolUseFailure error = %+v", failed[0].Input["error"])
	}
	h.ExpectResumeMatches()
}

func TestResultBudgetSpillsToTheHomeDir(t *testing.T) {
	big := strings.Repeat("x", 60_000) + "tail survives"
	lookup := &looptest.Tool{Name: "Lookup", Accesses: loop.None(),
		Run: func(context.Context, json.RawMessage, loop.ExecCtx) (loop.ToolResult, error) {
			return loop.TextResult(big), nil
		}}
	h := newHarness(t, agenttest.Tools(lookup), agenttest.HomeDir("/home/user/.kimigo/agents/main"))
	h.Model(call("call_lookup", "Lookup", `{}`), scripted.Text("read it"))
	h.Prompt("look it up")
	stored := llm.ExtractText(agentOf(h).History()[2].Message, "")
	if !strings.HasPrefix(stored, "Tool output exceeded 50000 characters") || strings.Contains(stored, "tail survives") {
		t.Errorf("stored result starts %.80q", stored)
	}
	entries, err := h.Env().ReadDir("/home/user/.kimigo/agents/main/tool-results")
	if err != nil || len(entries) != 1 {
		t.Fatalf("tool-results = %v, %v", entries, err)
	}
	content, err := h.Env().ReadFile("/home/user/.kimigo/agents/main/tool-results/" + entries[0].Name())
	if err != nil || string(content) != big {
		t.Errorf("spill file holds %d bytes, %v", len(content), err)
	}
	h.ExpectResumeMatches()
}

// ERRATA 20: the loop resends, the agent supplies the views.
func TestResendViewsComeFromHistory(t *testing.T) {
	for _, tt := range []struct {
		name string
		err  *llm.Error
		want string
	}{
		{"structural 400 resends the strict view", &llm.Error{Kind: llm.KindStatus, StatusCode: 400,
			Message: "400 messages.1: `tool_use` ids were found without `tool_result` blocks immediately after"}, "strict"},
		{"413 resends the media-degraded view", &llm.Error{Kind: llm.KindRequestTooLarge, StatusCode: 413,
			Message: "413 Request exceeds the maximum size"}, "media-degraded"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			h.Model(scripted.Response{Err: tt.err}, scripted.Text("ok"))
			if res := h.Prompt("hi"); res.Event.Reason != event.EndCompleted {
				t.Fatalf("turn ended %+v", res.Event)
			}
			var projections []string
			for _, s := range recordStrings(h, "llm.request") {
				var r struct {
					Projection string `json:"projection"`
				}
				_ = json.Unmarshal([]byte(s), &r)
				projections = append(projections, r.Projection)
			}
			if d := cmp.Diff([]string{"", tt.want}, projections); d != "" {
				t.Errorf("request projections (-want +got):\n%s", d)
			}
			h.ExpectResumeMatches()
		})
	}
}
