package permission_test

import (
	"context"
	"testing"
	"time"

	"github.com/kimigo/kimigo/agent/goal"
	"github.com/kimigo/kimigo/agent/history"
	"github.com/kimigo/kimigo/agent/permission"
	"github.com/kimigo/kimigo/agent/plan"
	"github.com/kimigo/kimigo/agent/swarm"
	"github.com/kimigo/kimigo/osenv"
	"github.com/kimigo/kimigo/tools"
)

// The plan, goal and swarm slots are filled with the real policies of
// agent/plan, agent/goal and agent/swarm.

// planHome is the agent home of the rig's plan mode: the plan "p" lives
// at planPath.
const (
	planHome = "/home/u/.kimigo/agents/main"
	planPath = planHome + "/plans/p.md"
)

// planSetup is a rig's plan mode: on with plan "p" (and the file holding
// content, when set), or off.
type planSetup struct {
	active  bool
	content *string
}

// withPlan gives the rig a real plan mode, on with the plan file holding
// content.
func withPlan(content string) rigOption {
	return func(c *rigConfig) { c.plan = &planSetup{active: true, content: &content} }
}

// withPlanNoFile gives the rig plan mode on, with no plan file written.
func withPlanNoFile() rigOption { return func(c *rigConfig) { c.plan = &planSetup{active: true} } }

// withPlanOff gives the rig a real plan mode that is off.
func withPlanOff() rigOption { return func(c *rigConfig) { c.plan = &planSetup{} } }

// withGoals gives the rig a real goal store; its goal-start policy
// switches the rig's manager.
func withGoals() rigOption { return func(c *rigConfig) { c.goals = true } }

// buildModes builds the plan mode and goal store cfg asks for on env and
// puts their policies into cfg's slots.
func (r *rig) buildModes(t testing.TB, cfg *rigConfig, env osenv.Env) {
	t.Helper()
	if ps := cfg.plan; ps != nil {
		r.plan = plan.New(plan.Options{Env: env, HomeDir: planHome})
		r.plan.Bind(rigPlanHost{r})
		if ps.active {
			if err := r.plan.Enter(t.Context(), plan.EnterOptions{ID: "p"}); err != nil {
				t.Fatal(err)
			}
		}
		if ps.content != nil {
			if err := osenv.WriteFileAtomic(env, planPath, []byte(*ps.content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		r.plan.Slots(&cfg.slots)
	}
	if cfg.goals {
		r.goals = goal.New(goal.Options{})
		r.goals.Bind(rigGoalHost{r})
		cfg.slots.GoalStart = r.goals.StartReview()
	}
}

// planActive reports whether the rig's plan mode is on.
func (r *rig) planActive() bool { return r.plan.State().Active }

// rigPlanHost and rigGoalHost are the rig as the modes see it: records are
// applied at once, the permission mode is the rig manager's.
type rigPlanHost struct{ r *rig }

func (h rigPlanHost) Commit(_ context.Context, p plan.Payload) error { return h.r.plan.Apply(p) }
func (h rigPlanHost) PermissionMode() string                         { return string(h.r.m.Mode()) }

type rigGoalHost struct{ r *rig }

func (h rigGoalHost) Commit(_ context.Context, p goal.Payload) error {
	return h.r.goals.Apply(p, time.Now())
}
func (rigGoalHost) Publish(goal.Event)                                   {}
func (rigGoalHost) AppendMessage(context.Context, history.Message) error { return nil }
func (h rigGoalHost) PermissionMode() string                             { return string(h.r.m.Mode()) }
func (h rigGoalHost) SetPermissionMode(ctx context.Context, mode string) error {
	return h.r.m.SetMode(ctx, permission.Mode(mode))
}

// modeTools are the plan and goal tools of the rig's modes.
func (r *rig) modeTools() {
	if r.plan != nil {
		r.tools[tools.NameEnterPlanMode] = tools.NewEnterPlanMode(r.plan)
		r.tools[tools.NameExitPlanMode] = tools.NewExitPlanMode(r.plan)
	}
	if r.goals != nil {
		r.tools[tools.NameCreateGoal] = tools.NewCreateGoal(r.goals)
	}
}

// swarmSlots are the swarm policies of a real swarm mode, unbound (its
// records apply at once), on when on is set; the mode is returned to turn
// it off.
func swarmSlots(t testing.TB, on bool) (permission.Slots, *swarm.Mode) {
	t.Helper()
	m := swarm.New()
	if on {
		if err := m.Enter(t.Context(), swarm.TriggerManual); err != nil {
			t.Fatal(err)
		}
	}
	var s permission.Slots
	m.Slots(&s)
	return s, m
}
