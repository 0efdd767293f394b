package permission_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/kimigo/kimigo/agent/permission"
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/loop"
)

// benchRules is a config of 50 rules: Bash allow, deny and ask rules, and
// path rules for the file tools.
func benchRules() []permission.Rule {
	rules := realisticRules()
	for i := 0; len(rules) < 30; i++ {
		rules = append(rules, rule(permission.DecisionAllow, fmt.Sprintf("Bash(tool%d *)", i)))
	}
	for i := 0; len(rules) < 38; i++ {
		rules = append(rules, rule(permission.DecisionDeny, fmt.Sprintf("Bash(danger%d *)", i)))
	}
	for i := 0; len(rules) < 42; i++ {
		rules = append(rules, rule(permission.DecisionAsk, fmt.Sprintf("Bash(git push%d*)", i)))
	}
	for i := 0; len(rules) < 50; i++ {
		rules = append(rules, rule(permission.DecisionDeny, fmt.Sprintf("Write(/etc/dir%d/**)", i)))
	}
	return rules
}

// BenchmarkChainBash: one Bash call with three commands through the whole
// chain against 50 rules; every command is allowed, so the allow policy
// decides after the deny and ask rules were tried.
func BenchmarkChainBash(b *testing.B) {
	r := newRig(b, withRules(benchRules()...), quietly())
	args := json.RawMessage(bashArgs("git status && go test -run TestX | ls -la > out.txt"))
	exec, err := r.resolve("Bash", string(args))
	if err != nil {
		b.Fatal(err)
	}
	tc := llm.ToolCall{ID: "c1", Name: "Bash", Arguments: string(args)}
	ctx := loop.ToolCtx{ToolCall: tc, ToolCalls: []llm.ToolCall{tc}, Args: args, Execution: exec}
	if a, err := r.m.Authorize(b.Context(), ctx); err != nil || a.Block || r.requests() != 0 {
		b.Fatalf("the script was not approved: %+v, %v", a, err)
	}
	b.ReportAllocs()
	for b.Loop() {
		r.m.Authorize(b.Context(), ctx)
	}
}
