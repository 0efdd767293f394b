package session_test

import (
	"fmt"
	"strings"
	"testing"

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
