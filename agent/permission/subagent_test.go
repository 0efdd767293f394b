package permission_test

import (
	"testing"

	"github.com/kimigo/kimigo/agent/permission"
)

func TestScenario56ModeDerivation(t *testing.T) {
	parent := newRig(t)
	child := newRig(t, withParent(parent.m), withAgentType(permission.AgentSub))
	ctx := t.Context()
	if child.m.Mode() != permission.ModeManual {
		t.Errorf("child starts in %s", child.m.Mode())
	}
	parent.m.SetMode(ctx, permission.ModeYolo)
	if child.m.Mode() != permission.ModeYolo {
		t.Errorf("child after the parent switched to yolo: %s", child.m.Mode())
	}
	child.m.SetMode(ctx, permission.ModeManual)
	parent.m.SetMode(ctx, permission.ModeAuto)
	if child.m.Mode() != permission.ModeManual || parent.m.Mode() != permission.ModeAuto {
		t.Errorf("child %s, parent %s; want manual, auto", child.m.Mode(), parent.m.Mode())
	}
}

func TestScenario57InheritedRules(t *testing.T) {
	parent := newRig(t, withRules(ruleWithReason(permission.DecisionDeny, "Bash", "parent says no")))
	childAllow := permission.Rule{Decision: permission.DecisionAllow, Scope: permission.ScopeSessionRuntime, Pattern: "Bash"}
	child := newRig(t, withParent(parent.m), withAgentType(permission.AgentSub), withRules(childAllow))
	a, err := child.call("Bash", `{"command":"ls"}`)
	wantBlock(t, a, err, "Reason: parent says no")

	parent = newRig(t, withRules(rule(permission.DecisionAllow, "Bash")))
	child = newRig(t, withParent(parent.m), withAgentType(permission.AgentSub), withRules(ruleWithReason(permission.DecisionDeny, "Bash", "child says no")))
	a, err = child.call("Bash", `{"command":"ls"}`)
	wantBlock(t, a, err, "Reason: child says no")
	if d := child.m.Data(); len(d.Rules) != 2 || d.Rules[0].Reason != "child says no" {
		t.Errorf("child Data().Rules = %+v; want own rules first", d.Rules)
	}
}

func TestScenario58InheritedSessionApprovals(t *testing.T) {
	parent := newRig(t)
	if err := parent.m.Apply(sessionApproval("Bash(printf first)")); err != nil {
		t.Fatal(err)
	}
	child := newRig(t, withParent(parent.m), withAgentType(permission.AgentSub))
	if got := child.judge("Bash", `{"command":"printf first"}`); got != approved {
		t.Errorf("child call = %s", got)
	}
	if err := child.m.Apply(sessionApproval("Bash(printf second)")); err != nil {
		t.Fatal(err)
	}
	if got := parent.judge("Bash", `{"command":"printf second"}`); got != asked {
		t.Errorf("the child's approval reached the parent: %s", got)
	}
}

func TestScenario59SubagentWording(t *testing.T) {
	r := newRig(t, withAgentType(permission.AgentSub), withRules(rule(permission.DecisionDeny, "Bash")))
	a, err := r.call("Bash", `{"command":"ls"}`)
	wantBlock(t, a, err, `Tool "Bash" was denied.`, "don't retry the same call")
}
