package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kimigo/kimigo/agent"
	"github.com/kimigo/kimigo/agent/agenttest"
	"github.com/kimigo/kimigo/agent/permission"
	"github.com/kimigo/kimigo/agent/swarm"
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/llm/scripted"
	"github.com/kimigo/kimigo/tools"
)

// finishedSwarm stands in for the session's subagent host: every task of
// a swarm completes with a one-line report. The batch itself is tested in
// session/batch, and end to end through the session.
type finishedSwarm struct{}

func (finishedSwarm) RunSwarm(_ context.Context, r tools.SwarmRequest) ([]tools.SwarmResult, error) {
	var out []tools.SwarmResult
	for _, t := range r.Tasks {
		out = append(out, tools.SwarmResult{Task: t, AgentID: fmt.Sprintf("agent-%d", t.Index-1),
			Status: tools.SwarmCompleted, Output: "did " + t.Item})
	}
	return out, nil
}

// withSwarm gives an agent swarm mode and the builtin tools with
// AgentSwarm, the way a session builds a main agent.
func withSwarm(s agenttest.Setup, o *agent.Options) {
	env := s.Env
	o.Swarm = swarm.New()
	m := o.Swarm
	o.NewToolManager = func(c tools.StoreCommitter) *tools.Manager {
		return tools.New(tools.Options{Base: tools.Base{Env: env}, Committer: c, Swarm: finishedSwarm{}, SwarmMode: m})
	}
}

func swarmHarness(t *testing.T, opts ...agenttest.Option) (*agenttest.Harness, *swarm.Mode) {
	t.Helper()
	h := runtimeHarness(t, withSwarm, opts...)
	return h, h.Agent().(host).Swarm()
}

// swarmRecords are the swarm_mode records so far, as type and fields.
func swarmRecords(h *agenttest.Harness) []string {
	var out []string
	for _, r := range h.Records() {
		if strings.HasPrefix(string(r.Type), "swarm_mode.") {
			out = append(out, string(r.Type)+" "+string(r.Fields()))
		}
	}
	return out
}

// toolOutput is the text of the tool result answering call id.
func toolOutput(h *agenttest.Harness, id string) string {
	for _, m := range h.Agent().History() {
		if m.Role == llm.RoleTool && m.ToolCallID == id {
			return llm.ExtractText(m.Message, "")
		}
	}
	return ""
}

const swarmArgs = `{"description":"audit","prompt_template":"check {{item}}","items":["a","b"]}`

func TestScenario88Toggle(t *testing.T) {
	h, m := swarmHarness(t)
	ctx := t.Context()
	if err := m.Enter(ctx, swarm.TriggerManual); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{`swarm_mode.enter {"trigger":"manual"}`}, swarmRecords(h)); d != "" {
		t.Errorf("records (-want +got):\n%s", d)
	}
	if got := injectedVariants(h.Agent().History()); !cmp.Equal(got, []string{swarm.VariantEnter}) {
		t.Errorf("after /swarm on: injected %v", got)
	}
	h.ExpectResumeMatches()

	// Straight off again: the reminder is taken back, nothing replaces it.
	if err := m.Exit(ctx); err != nil {
		t.Fatal(err)
	}
	if got := injectedVariants(h.Agent().History()); len(got) != 0 {
		t.Errorf("after /swarm off right away: injected %v, want none", got)
	}
	h.ExpectResumeMatches()

	// On, a turn, then off: the exit reminder is appended.
	if err := m.Enter(ctx, swarm.TriggerManual); err != nil {
		t.Fatal(err)
	}
	h.Model(scripted.Text("noted"))
	h.Prompt("hello")
	if !m.Active() {
		t.Fatal("a manual swarm mode ended with the turn")
	}
	if err := m.Exit(ctx); err != nil {
		t.Fatal(err)
	}
	want := []string{swarm.VariantEnter, swarm.VariantExit}
	if d := cmp.Diff(want, injectedVariants(h.Agent().History())); d != "" {
		t.Errorf("after a turn and /swarm off (-want +got):\n%s", d)
	}
	if got := len(swarmRecords(h)); got != 4 {
		t.Errorf("swarm records = %v", swarmRecords(h))
	}
	r := h.ExpectResumeMatches()
	if got := r.Agent.State(ctx).(agent.State).Swarm; got != "" {
		t.Errorf("resumed trigger = %q, want off", got)
	}
}

func TestScenario89AutoExitTask(t *testing.T) {
	h, m := swarmHarness(t)
	ctx := t.Context()
	if err := m.Enter(ctx, swarm.TriggerTask); err != nil {
		t.Fatal(err)
	}
	if err := m.Enter(ctx, swarm.TriggerManual); err != nil { // while on: nothing
		t.Fatal(err)
	}
	if got := swarmRecords(h); len(got) != 1 {
		t.Errorf("entering while on wrote %v", got)
	}
	h.Model(scripted.Text("split it"))
	h.Prompt("audit the repo")
	if m.Active() {
		t.Error("a task's swarm mode outlived its turn")
	}
	want := []string{`swarm_mode.enter {"trigger":"task"}`, `swarm_mode.exit {}`}
	if d := cmp.Diff(want, swarmRecords(h)); d != "" {
		t.Errorf("records (-want +got):\n%s", d)
	}
	// The turn came between enter and exit: the exit reminder follows.
	if d := cmp.Diff([]string{swarm.VariantEnter, swarm.VariantExit}, injectedVariants(h.Agent().History())); d != "" {
		t.Errorf("reminders (-want +got):\n%s", d)
	}
	h.ExpectResumeMatches()
}

func TestScenario89AutoExitTool(t *testing.T) {
	h, m := swarmHarness(t)
	h.Model(scripted.ToolCalls(scripted.Call{ID: "s1", Name: tools.NameAgentSwarm, Arguments: swarmArgs}),
		scripted.Text("all done"))
	h.Prompt("audit a and b")
	if m.Active() {
		t.Error("AgentSwarm's swarm mode outlived its turn")
	}
	want := []string{`swarm_mode.enter {"trigger":"tool"}`, `swarm_mode.exit {}`}
	if d := cmp.Diff(want, swarmRecords(h)); d != "" {
		t.Errorf("records (-want +got):\n%s", d)
	}
	if got := injectedVariants(h.Agent().History()); len(got) != 0 {
		t.Errorf("a tool's swarm mode injected %v", got)
	}
	if out := toolOutput(h, "s1"); !strings.Contains(out, "<summary>completed: 2</summary>") {
		t.Errorf("AgentSwarm result = %q", out)
	}
	// The exit is recorded before the turn ends: its status shows swarm
	// mode off and a resume finds it off.
	r := h.ExpectResumeMatches()
	if got := r.Agent.State(t.Context()).(agent.State).Swarm; got != "" {
		t.Errorf("resumed trigger = %q", got)
	}
}

func TestScenario59ExclusiveCall(t *testing.T) {
	h, m := swarmHarness(t, agenttest.Permission(permission.Options{}))
	h.Model(scripted.ToolCalls(
		scripted.Call{ID: "s1", Name: tools.NameAgentSwarm, Arguments: swarmArgs},
		scripted.Call{ID: "r1", Name: tools.NameRead, Arguments: `{"path":"a.go"}`},
	), scripted.Text("ok"))
	h.Prompt("go")
	for _, id := range []string{"s1", "r1"} {
		if out := toolOutput(h, id); !strings.Contains(out, "must be the only tool call") {
			t.Errorf("%s result = %q, want the exclusivity denial", id, out)
		}
	}
	if got := swarmRecords(h); len(got) != 0 || m.Active() {
		t.Errorf("a denied AgentSwarm entered swarm mode: %v", got)
	}
}

func TestSwarmModeApprovesAgentSwarm(t *testing.T) {
	// Manual mode with nobody to ask: outside swarm mode AgentSwarm is
	// asked about and so denied; in swarm mode policy 16 runs it.
	h, m := swarmHarness(t, agenttest.Permission(permission.Options{}))
	h.Model(scripted.ToolCalls(scripted.Call{ID: "s1", Name: tools.NameAgentSwarm, Arguments: swarmArgs}), scripted.Text("ok"))
	h.Prompt("go")
	if out := toolOutput(h, "s1"); strings.Contains(out, "<agent_swarm_result>") {
		t.Errorf("manual mode ran AgentSwarm without asking: %q", out)
	}
	if err := m.Enter(t.Context(), swarm.TriggerManual); err != nil {
		t.Fatal(err)
	}
	h.Model(scripted.ToolCalls(scripted.Call{ID: "s2", Name: tools.NameAgentSwarm, Arguments: swarmArgs}), scripted.Text("ok"))
	h.Prompt("again")
	if out := toolOutput(h, "s2"); !strings.Contains(out, "<agent_swarm_result>") {
		t.Errorf("swarm mode did not approve AgentSwarm: %q", out)
	}
	if !m.Active() {
		t.Error("the tool's enter replaced the manual swarm mode")
	}
}

func TestSwarmRecordDecoding(t *testing.T) {
	for _, tt := range []struct {
		typ, fields, err string
	}{
		{"swarm_mode.enter", `{"trigger":"manual"}`, ""},
		{"swarm_mode.enter", `{"trigger":"party"}`, `unknown trigger "party"`},
		{"swarm_mode.enter", `{"trigger":3}`, "swarm_mode.enter"},
		{"swarm_mode.exit", `{}`, ""},
	} {
		_, err := swarm.DecodeRecord(swarm.RecordType(tt.typ), json.RawMessage(tt.fields))
		if (err == nil) != (tt.err == "") || (err != nil && !strings.Contains(err.Error(), tt.err)) {
			t.Errorf("DecodeRecord(%s %s) = %v, want %q", tt.typ, tt.fields, err, tt.err)
		}
	}
}

// A resume replays swarm mode through the same Apply: a manual swarm
// mode left on is on again, and a log whose exit took the reminder back
// resumes without it.
func TestSwarmModeResume(t *testing.T) {
	h, m := swarmHarness(t)
	if err := m.Enter(t.Context(), swarm.TriggerManual); err != nil {
		t.Fatal(err)
	}
	h.Model(scripted.Text("ok"))
	h.Prompt("hi")
	r := h.ExpectResumeMatches()
	if got := r.Agent.State(t.Context()).(agent.State).Swarm; got != swarm.TriggerManual {
		t.Errorf("resumed trigger = %q, want manual", got)
	}
	h.ExpectResumesAgree(h.Records())
}
