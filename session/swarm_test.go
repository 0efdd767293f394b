package session_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/llm/llmtest"
	"github.com/kimigo/kimigo/session"
)

// AgentSwarm over the subagent host (spec 05 §5.7, §12 58–63): the main
// agent's AgentSwarm runs real children against the loopback fake,
// through the batch scheduler (its intervals shortened for these tests,
// swarm_timing_internal_test.go).

// swarmCall is the main agent's AgentSwarm call over items.
func swarmCall(t *testing.T, id string, args map[string]any) llmtest.Reply {
	t.Helper()
	return llmtest.ToolCall(id, "AgentSwarm", agentArgs(t, args))
}

// report is a child's handoff, long enough for no re-ask.
func report(item string) string { return "Report on " + item + ": " + summary(220) }

// noRetries makes a 429 end the child's turn at once, so the scheduler
// sees it.
func noRetries(r *rig) {
	r.writeConfig(r.configText() + "\n[loop_control]\nmax_attempts_per_step = 1\n")
}

// eventsOf are the events of type T in evs.
func eventsOf[T event.Event](evs []event.Event) []T {
	var out []T
	for _, ev := range evs {
		if e, ok := ev.(T); ok {
			out = append(out, e)
		}
	}
	return out
}

func TestSwarmRunsChildrenWithRateLimits(t *testing.T) {
	r := newRig(t)
	noRetries(r)
	items := []string{"alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta"}
	rules := []func(call) (llmtest.Reply, bool){
		parentRule("audit everything", swarmCall(t, "s1", map[string]any{"description": "audit",
			"prompt_template": "Audit the {{item}} module.", "items": items}), "Swarm finished."),
	}
	for i, it := range items {
		if i%3 == 1 { // beta, epsilon: the provider is busy on their first request
			rules = append(rules, childRule("Audit the "+it+" module.", llmtest.ChatRateLimited(0), llmtest.Text(report(it))))
			continue
		}
		rules = append(rules, childRule("Audit the "+it+" module.", llmtest.Text(report(it))))
	}
	rt := r.route(t, rules...)
	s, sub := r.subagentSession(t)
	if err := s.Prompt(t.Context(), textParts("audit everything")); err != nil {
		t.Fatal(err)
	}
	evs := collect(t, sub)
	out, isErr := toolResultOf(t, evs, "s1")
	if isErr || !strings.HasPrefix(out, "<agent_swarm_result>\n<summary>completed: 7</summary>\n<subagent ") {
		t.Fatalf("AgentSwarm result (error %v):\n%s", isErr, out)
	}
	for i, it := range items {
		want := fmt.Sprintf(`<subagent agent_id="agent-%d" item="%s" outcome="completed">%s</subagent>`, i, it, report(it))
		if !strings.Contains(out, want) {
			t.Errorf("result lacks %s", want)
		}
	}
	suspended := eventsOf[event.SubagentSuspended](evs)
	if len(suspended) != 2 {
		t.Fatalf("subagent.suspended events = %+v, want one per rate-limited child", suspended)
	}
	for _, e := range suspended {
		if e.AgentID != session.MainAgentID || e.Reason != "Provider rate limit; subagent requeued for retry." {
			t.Errorf("suspended %+v", e)
		}
	}
	for _, e := range eventsOf[event.SubagentFailed](evs) {
		t.Errorf("a rate-limited attempt was reported failed: %+v", e)
	}
	// The retry re-ran the child's turn: the prompt is in its history
	// once.
	calls := rt.callsOf("Audit the beta module.")
	if len(calls) != 2 {
		t.Fatalf("beta's child made %d requests, want 2", len(calls))
	}
	if n := strings.Count(strings.Join(calls[1].users, "\n"), "Audit the beta module."); n != 1 {
		t.Errorf("the retry's request has the prompt %d times", n)
	}
	if s.SwarmMode() {
		t.Error("the tool's swarm mode outlived the turn")
	}
}

func TestSwarmChildFailureIsPartOfTheAnswer(t *testing.T) {
	r := newRig(t)
	r.route(t,
		parentRule("two things", swarmCall(t, "s1", map[string]any{"description": "pair",
			"prompt_template": "Handle {{item}} now.", "items": []string{"a", "b"}}), "ok"),
		childRule("Handle a now.", llmtest.Text(report("a"))),
		childRule("Handle b now.", llmtest.ChatServerError()))
	noRetries(r)
	s, sub := r.subagentSession(t)
	if err := s.Prompt(t.Context(), textParts("two things")); err != nil {
		t.Fatal(err)
	}
	out, isErr := toolResultOf(t, collect(t, sub), "s1")
	if isErr || !strings.Contains(out, "<summary>completed: 1, failed: 1</summary>") || !strings.Contains(out, "<resume_hint>") ||
		!strings.Contains(out, `<subagent agent_id="agent-1" item="b" state="started" outcome="failed">`) {
		t.Errorf("AgentSwarm result (error %v):\n%s", isErr, out)
	}
}

func TestSwarmBadInputSpawnsNothing(t *testing.T) {
	for _, tt := range []struct {
		name  string
		args  map[string]any
		setup func(*rig)
		want  string
	}{
		{"unknown profile", map[string]any{"description": "d", "subagent_type": "writer", "prompt_template": "x {{item}}",
			"items": []string{"a", "b"}}, nil, `Subagent profile "writer" was not found`},
		{"unknown resume id", map[string]any{"description": "d", "resume_agent_ids": map[string]string{"agent-9": "continue"}},
			nil, `Agent instance "agent-9" is not a subagent`},
		{"a task id for a resume", map[string]any{"description": "d", "resume_agent_ids": map[string]string{"agent-9k2j1m0z": "go"},
			"prompt_template": "x {{item}}", "items": []string{"a"}}, nil, `Agent instance "agent-9k2j1m0z" is not a subagent`},
		{"malformed cap", map[string]any{"description": "d", "prompt_template": "x {{item}}", "items": []string{"a", "b"}},
			func(r *rig) { r.cfg.Env.SwarmMaxConcurrencyRaw = "abc" },
			`KIMI_CODE_AGENT_SWARM_MAX_CONCURRENCY must be a positive integer, got "abc".`},
		{"one item", map[string]any{"description": "d", "prompt_template": "x {{item}}", "items": []string{"a"}}, nil,
			"AgentSwarm requires at least 2 items unless resume_agent_ids is provided."},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := newRig(t)
			if tt.setup != nil {
				tt.setup(r)
			}
			rt := r.route(t, parentRule("go", swarmCall(t, "s1", tt.args), "ok"))
			s, sub := r.subagentSession(t)
			if err := s.Prompt(t.Context(), textParts("go")); err != nil {
				t.Fatal(err)
			}
			evs := collect(t, sub)
			out, isErr := toolResultOf(t, evs, "s1")
			if !isErr || out != tt.want {
				t.Errorf("result (error %v) = %q, want %q", isErr, out, tt.want)
			}
			if n := len(eventsOf[event.SubagentSpawned](evs)); n != 0 || len(rt.calls) != 2 {
				t.Errorf("%d children spawned, %d requests", n, len(rt.calls))
			}
		})
	}
}

// S63 through the host: the user cancels the turn while a swarm runs
// three at a time (KIMI_CODE_AGENT_SWARM_MAX_CONCURRENCY=3); the finished
// child's report is kept, the started ones are aborted as started and the
// ones never launched as not_started.
func TestScenario63SwarmUserCancel(t *testing.T) {
	r := newRig(t)
	r.cfg.Env.SwarmMaxConcurrencyRaw = "3"
	gate := llmtest.NewGate()
	items := []string{"a", "b", "c", "d", "e", "f", "g", "h"}
	rules := []func(call) (llmtest.Reply, bool){
		parentRule("many", swarmCall(t, "s1", map[string]any{"description": "many",
			"prompt_template": "Look at {{item}} closely.", "items": items}), "ok"),
		childRule("Look at a closely.", llmtest.Text(report("a"))),
	}
	for _, it := range items[1:] {
		rules = append(rules, childRule("Look at "+it+" closely.", llmtest.Text(report(it)).WithFault(llmtest.Fault{Hold: gate})))
	}
	rt := r.route(t, rules...)
	s, sub := r.subagentSession(t)
	if err := s.Prompt(t.Context(), textParts("many")); err != nil {
		t.Fatal(err)
	}
	var evs []event.Event
	completed := false
	deadline := time.Now().Add(time.Minute)             // a deadlock guard, not a measurement
	for !completed || len(rt.callsOf("closely.")) < 4 { // a done, and d in its place
		if time.Now().After(deadline) {
			t.Fatal("the swarm never reached four children")
		}
		ctx, cancel := context.WithTimeout(t.Context(), 20*time.Millisecond) // d's request comes after its last event
		ev, err := sub.Next(ctx)
		cancel()
		if err != nil {
			continue
		}
		evs = append(evs, ev)
		if _, ok := ev.(event.SubagentCompleted); ok {
			completed = true
		}
	}
	if err := s.Cancel(t.Context(), nil); err != nil {
		t.Fatal(err)
	}
	gate.Release()
	evs = append(evs, collect(t, sub)...)
	out, isErr := toolResultOf(t, evs, "s1")
	if isErr {
		t.Fatalf("cancelled swarm result is an error:\n%s", out)
	}
	if !strings.Contains(out, `<subagent agent_id="agent-0" item="a" outcome="completed">`+report("a")) {
		t.Errorf("the finished report was lost:\n%s", out)
	}
	if !strings.Contains(out, `item="b" state="started" outcome="aborted">The user manually interrupted this subagent batch before this subagent finished.`) {
		t.Errorf("a started child is not aborted/started:\n%s", out)
	}
	for _, it := range []string{"b", "c", "d"} {
		if !strings.Contains(out, `item="`+it+`" state="started" outcome="aborted">`) {
			t.Errorf("%s is not aborted/started:\n%s", it, out)
		}
	}
	for _, it := range []string{"e", "f", "g", "h"} {
		if !strings.Contains(out, `<subagent item="`+it+`" state="not_started" outcome="aborted">The user manually interrupted this subagent batch before this subagent was started.`) {
			t.Errorf("%s is not aborted/not_started:\n%s", it, out)
		}
	}
	if n := len(rt.callsOf("closely.")); n != 4 {
		t.Errorf("%d children sent requests, want 4", n)
	}
}

// A child past the subagent timeout fails alone with "Subagent timed
// out."; its sibling completes and nothing is suspended (spec 05 §5.7,
// §5.8).
func TestSwarmChildTimeout(t *testing.T) {
	r := newRig(t)
	ms := 300
	r.cfg.Subagent.TimeoutMs = &ms
	gate := llmtest.NewGate()
	defer gate.Release()
	r.route(t,
		parentRule("pair", swarmCall(t, "s1", map[string]any{"description": "pair",
			"prompt_template": "Probe {{item}}.", "items": []string{"fast", "slow"}}), "ok"),
		childRule("Probe fast.", llmtest.Text(report("fast"))),
		childRule("Probe slow.", llmtest.Text(report("slow")).WithFault(llmtest.Fault{Hold: gate})))
	s, sub := r.subagentSession(t)
	if err := s.Prompt(t.Context(), textParts("pair")); err != nil {
		t.Fatal(err)
	}
	evs := collect(t, sub)
	out, isErr := toolResultOf(t, evs, "s1")
	if isErr || !strings.Contains(out, "<summary>completed: 1, failed: 1</summary>") ||
		!strings.Contains(out, `<subagent agent_id="agent-1" item="slow" state="started" outcome="failed">Subagent timed out.</subagent>`) {
		t.Errorf("AgentSwarm result (error %v):\n%s", isErr, out)
	}
	if n := len(eventsOf[event.SubagentSuspended](evs)); n != 0 {
		t.Errorf("a timeout suspended %d children", n)
	}
}
