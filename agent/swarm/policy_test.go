package swarm_test

import (
	"strings"
	"testing"

	"github.com/kimigo/kimigo/agent/permission"
	"github.com/kimigo/kimigo/agent/swarm"
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/loop"
)

// batchCall is the first call of a batch of tools named names, as the
// chain sees it.
func batchCall(names ...string) *permission.Call {
	var calls []llm.ToolCall
	for i, n := range names {
		calls = append(calls, llm.ToolCall{ID: string(rune('a' + i)), Name: n, Arguments: `{}`})
	}
	return &permission.Call{ToolCtx: loop.ToolCtx{ToolCall: calls[0], ToolCalls: calls, Execution: &loop.Execution{}}}
}

func TestExclusive(t *testing.T) {
	for _, tt := range []struct {
		name  string
		batch []string
		want  permission.Kind
		says  []string
		never string
	}{
		{"no swarm", []string{"Read", "Bash"}, permission.None, nil, ""},
		{"swarm alone", []string{"AgentSwarm"}, permission.None, nil, ""},
		{"swarm and Read (S59)", []string{"AgentSwarm", "Read"}, permission.Deny, []string{"must be the only tool call"}, ""},
		{"Read then swarm", []string{"Read", "AgentSwarm"}, permission.Deny, []string{"must be the only tool call"}, ""},
		{"two swarms", []string{"AgentSwarm", "AgentSwarm"}, permission.Deny, []string{"one at a time", "merge"}, "other tools"},
		{"two swarms and Read", []string{"AgentSwarm", "AgentSwarm", "Read"}, permission.Deny, []string{"one at a time", "other tools"}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			v, err := swarm.Exclusive{}.Evaluate(t.Context(), batchCall(tt.batch...))
			if err != nil || v.Kind != tt.want {
				t.Fatalf("verdict = %v, %v; want %v", v.Kind, err, tt.want)
			}
			for _, s := range tt.says {
				if !strings.Contains(v.Message, s) {
					t.Errorf("message %q lacks %q", v.Message, s)
				}
			}
			if tt.never != "" && strings.Contains(v.Message, tt.never) {
				t.Errorf("message %q says %q", v.Message, tt.never)
			}
		})
	}
}

func TestApproveOnlyInSwarmMode(t *testing.T) {
	m := swarm.New()
	var s permission.Slots
	m.Slots(&s)
	judge := func(name string) permission.Kind {
		v, err := s.SwarmApprove.Evaluate(t.Context(), batchCall(name))
		if err != nil {
			t.Fatal(err)
		}
		return v.Kind
	}
	if judge("AgentSwarm") != permission.None {
		t.Error("approved AgentSwarm outside swarm mode")
	}
	if err := m.Enter(t.Context(), swarm.TriggerManual); err != nil {
		t.Fatal(err)
	}
	if judge("AgentSwarm") != permission.Approve || judge("Bash") != permission.None {
		t.Error("swarm mode: AgentSwarm not approved, or another tool approved")
	}
}
