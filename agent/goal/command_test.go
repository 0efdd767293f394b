package goal_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kimigo/kimigo/agent/goal"
	"github.com/kimigo/kimigo/tools"
)

func TestParseCommand(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want goal.Command
		ok   bool
		err  string
	}{
		{"fix the tests", goal.Command{}, false, ""},
		{"/goalie", goal.Command{}, false, ""},
		{"/goal", goal.Command{Kind: goal.CommandStatus}, true, ""},
		{"  /goal status  ", goal.Command{Kind: goal.CommandStatus}, true, ""},
		{"/goal fix the tests", goal.Command{Kind: goal.CommandCreate, Objective: "fix the tests"}, true, ""},
		{"/goal\tfix  it ", goal.Command{Kind: goal.CommandCreate, Objective: "fix  it"}, true, ""},
		{"/goal pause", goal.Command{Kind: goal.CommandPause}, true, ""},
		{"/goal Resume", goal.Command{Kind: goal.CommandResume}, true, ""},
		{"/goal cancel", goal.Command{Kind: goal.CommandCancel}, true, ""},
		{"/goal cancel the rollout", goal.Command{}, true, "/goal cancel takes no arguments (to start a goal that begins with \"cancel\", write /goal -- cancel the rollout)"},
		{"/goal -- cancel the rollout", goal.Command{Kind: goal.CommandCreate, Objective: "cancel the rollout"}, true, ""},
		{"/goal --", goal.Command{}, true, "/goal -- needs an objective after it"},
		{"/goal replace ship it", goal.Command{Kind: goal.CommandReplace, Objective: "ship it"}, true, ""},
		{"/goal replace", goal.Command{}, true, "/goal replace needs the new objective: /goal replace <objective>"},
		{"/goal next write docs", goal.Command{Kind: goal.CommandNext, Objective: "write docs"}, true, ""},
		{"/goal next manage", goal.Command{Kind: goal.CommandNextManage}, true, ""},
		{"/goal next", goal.Command{}, true, "/goal next needs an objective: /goal next <objective>, or /goal next manage"},
		{"/goal budget 20 turns", goal.Command{Kind: goal.CommandBudget, Budget: tools.GoalBudgetRequest{Value: 20, Unit: "turns"}}, true, ""},
		{"/goal budget 90m", goal.Command{Kind: goal.CommandBudget, Budget: tools.GoalBudgetRequest{Value: 90, Unit: "minutes"}}, true, ""},
		{"/goal budget 1.5 hour", goal.Command{Kind: goal.CommandBudget, Budget: tools.GoalBudgetRequest{Value: 1.5, Unit: "hours"}}, true, ""},
		{"/goal budget -3 turns", goal.Command{}, true, `/goal budget: "-3" is not a positive number; /goal budget needs a positive value and a unit (turns, tokens, seconds, minutes or hours), for example /goal budget 20 turns`},
		{"/goal budget 3 days", goal.Command{}, true, `/goal budget: "days" is not a unit; /goal budget needs a positive value and a unit (turns, tokens, seconds, minutes or hours), for example /goal budget 20 turns`},
		{"/goal budget", goal.Command{}, true, "/goal budget needs a positive value and a unit (turns, tokens, seconds, minutes or hours), for example /goal budget 20 turns"},
	} {
		t.Run(tt.in, func(t *testing.T) {
			got, ok, err := goal.ParseCommand(tt.in)
			if ok != tt.ok || (err == nil) != (tt.err == "") || (err != nil && err.Error() != tt.err) {
				t.Fatalf("ParseCommand(%q) = %+v, %v, %v; want ok %v, error %q", tt.in, got, ok, err, tt.ok, tt.err)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("command (-want +got):\n%s", d)
			}
		})
	}
}

// FuzzParseCommand: the grammar never panics, an error always comes with
// ok, and a start always carries an objective.
func FuzzParseCommand(f *testing.F) {
	for _, s := range []string{"/goal", "/goal -- x", "/goal budget 1h", "/goal next manage", "/goal\x00", "/goal 🎯"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, ok, err := goal.ParseCommand(s)
		if err != nil && !ok {
			t.Fatalf("error without ok: %v", err)
		}
		if err == nil && c.Starts() && c.Objective == "" {
			t.Fatalf("%q starts a goal without an objective", s)
		}
	})
}
