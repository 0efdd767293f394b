package print_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/kimigo/kimigo/agent"
	"github.com/kimigo/kimigo/agent/goal"
	"github.com/kimigo/kimigo/agent/injection"
	"github.com/kimigo/kimigo/agent/plan"
	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/internal/print"
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/llm/scripted"
	"github.com/kimigo/kimigo/osenv/osenvtest"
	"github.com/kimigo/kimigo/tools"
)

// goalHost drives a real agent with goal mode, as a session does.
type goalHost struct{ agentHost }

func (h goalHost) StartGoal(ctx context.Context, objective string, replace bool) error {
	_, _, err := h.a.StartGoal(ctx, tools.GoalInput{Objective: objective, Replace: replace})
	return err
}
func (h goalHost) Goal() *event.Goal { return agent.EventGoal(h.a.Goals().Get()) }
func (h goalHost) ResumeGoal(ctx context.Context) error {
	_, err := h.a.ResumeGoal(ctx)
	return err
}

func newGoalAgent(t *testing.T, rs ...scripted.Response) *agent.Agent {
	t.Helper()
	env := osenvtest.New(osenvtest.Options{})
	pm, gs := plan.New(plan.Options{Env: env, HomeDir: "/h"}), goal.New(goal.Options{})
	a := agent.New(agent.Options{Model: agent.ModelBinding{Provider: scripted.New(scripted.Options{Responses: rs})},
		Config: agent.Config{SystemPrompt: "You are a test."}, Env: env, Plan: pm, Goals: gs,
		Injection: injection.New(injection.Options{PerStep: []injection.Injector{pm.Reminder()},
			Boundary: []injection.Injector{gs.Reminder()}}),
		NewToolManager: func(c tools.StoreCommitter) *tools.Manager {
			return tools.New(tools.Options{Base: tools.Base{Env: env}, Committer: c, Plan: pm, Goals: gs})
		}})
	t.Cleanup(func() { a.Close(context.WithoutCancel(t.Context())) })
	return a
}

func runGoal(t *testing.T, a *agent.Agent, f print.Format, sleep func(context.Context, time.Duration) error) (string, string, error) {
	t.Helper()
	var out, errw bytes.Buffer
	err := print.Run(t.Context(), print.Options{Host: goalHost{agentHost{a}}, Goal: &print.Goal{Objective: "ship it"},
		Format: f, Version: "v", SessionID: "session_1", ResumeCommand: "kimigo -r session_1", Stdout: &out, Stderr: &errw,
		Sleep: sleep})
	return out.String(), errw.String(), err
}

func call(name, args string) scripted.Response {
	return scripted.ToolCalls(scripted.Call{ID: "c-" + name, Name: name, Arguments: args})
}

func TestGoalRunCompletes(t *testing.T) {
	a := newGoalAgent(t, scripted.Text("slice one"), call("UpdateGoal", `{"status":"complete"}`), scripted.Text("Shipped."))
	out, errw, err := runGoal(t, a, print.FormatStreamJSON, nil)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	n := len(lines)
	// The summary, the resume hint, then the result line that ends every
	// stream-json run (issue 15).
	if !strings.HasPrefix(lines[n-3], `{"type":"goal.summary","goalId":"`) || !strings.Contains(lines[n-3], `"status":"complete","reason":null,"turnsUsed":2`) ||
		!strings.Contains(lines[n-2], `"type":"session.resume_hint"`) || !strings.HasPrefix(lines[n-1], `{"type":"result","subtype":"success"`) {
		t.Errorf("stdout:\n%s\nstderr:\n%s", out, errw)
	}
	if !strings.Contains(out, "slice one") || !strings.Contains(out, "Shipped.") {
		t.Errorf("the goal turns were not rendered:\n%s", out)
	}
}

func TestGoalRunStops(t *testing.T) {
	for _, tt := range []struct {
		name string
		rs   []scripted.Response
		code int
		text string
	}{
		{"blocked", []scripted.Response{call("UpdateGoal", `{"status":"blocked"}`), scripted.Text("Blocked.")}, 3,
			"Goal [blocked] (turns: 1, tokens: 0)"},
		{"paused", []scripted.Response{{Err: llm.StatusError(401, nil, []byte(`{"error":{"message":"Invalid API key","type":"invalid_request_error"}}`))}}, 6,
			"Goal [paused]: Paused after provider authentication error: "},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a := newGoalAgent(t, tt.rs...)
			_, errw, err := runGoal(t, a, print.FormatText, nil)
			var stopped *print.GoalStopped
			if !errors.As(err, &stopped) || stopped.Code != tt.code || !strings.Contains(errw, tt.text) ||
				!strings.HasSuffix(errw, "\nTo resume this session: kimigo -r session_1\n") {
				t.Errorf("err %v, stderr:\n%s", err, errw)
			}
		})
	}
}

// A goal paused by a rate limit that says when it lifts waits that long
// and goes on.
func TestGoalRunWaitsForTheQuotaReset(t *testing.T) {
	limited := scripted.Response{Err: &llm.Error{Kind: llm.KindRateLimit, StatusCode: 429, Message: "429 slow down",
		RetryAfter: 90 * time.Second}}
	var waited []time.Duration
	sleep := func(_ context.Context, d time.Duration) error { waited = append(waited, d); return nil }
	a := newGoalAgent(t, limited, call("UpdateGoal", `{"status":"complete"}`), scripted.Text("Done."))
	_, errw, err := runGoal(t, a, print.FormatText, sleep)
	if err != nil || len(waited) != 1 || waited[0] != 90*time.Second || !strings.Contains(errw, "the goal resumes in 1m30s") ||
		!strings.Contains(errw, "Goal [complete]") {
		t.Errorf("err %v, waited %v, stderr:\n%s", err, waited, errw)
	}
}

// An ordinary print run whose turn starts a goal waits for the goal
// driver (spec 06 §1.6.5 step 1) and ends with its last turn.
func TestRunWaitsForAGoalTheModelStarted(t *testing.T) {
	a := newGoalAgent(t, call("CreateGoal", `{"objective":"ship it"}`), scripted.Text("Started."),
		scripted.Text("A slice."), call("UpdateGoal", `{"status":"complete"}`), scripted.Text("Shipped."))
	var out, errw bytes.Buffer
	err := print.Run(t.Context(), print.Options{Host: goalHost{agentHost{a}}, Prompt: "make it a goal", Format: print.FormatText,
		Version: "v", SessionID: "s", ResumeCommand: "kimigo -r s", Stdout: &out, Stderr: &errw})
	// "Shipped." is the goal's last turn: the run waited for the driver.
	if err != nil || !strings.Contains(out.String(), "Shipped.") {
		t.Errorf("err %v, stdout %q", err, out.String())
	}
}

// A turn that starts a goal and then fails ends the run as the failure it
// is (spec 06 §1.6.5 step 4): the goal driver does not take over a failed
// turn, so waiting for the still-active goal would wait for ever.
func TestRunFailsWhenTheTurnThatStartedAGoalFails(t *testing.T) {
	a := newGoalAgent(t, call("CreateGoal", `{"objective":"ship it"}`),
		scripted.Response{Err: llm.StatusError(401, nil, []byte(`{"error":{"message":"Invalid API key","type":"invalid_request_error"}}`))})
	var out, errw bytes.Buffer
	err := print.Run(t.Context(), print.Options{Host: goalHost{agentHost{a}}, Prompt: "make it a goal", Format: print.FormatText,
		Version: "v", SessionID: "s", ResumeCommand: "kimigo -r s", Stdout: &out, Stderr: &errw})
	var f *print.Failure
	if !errors.As(err, &f) || !strings.Contains(f.Message, "Invalid API key") {
		t.Errorf("err %v, stderr %q", err, errw.String())
	}
	if g := a.Goals().Get(); g == nil || g.Status != tools.GoalActive {
		t.Errorf("goal %+v; the failed turn leaves it active", g)
	}
}
