package permission_test

import (
	"errors"
	"testing"

	"github.com/kimigo/kimigo/agent/permission"
)

// TestHeadlessAsksAreDeniedNamingWhatAllows: with nobody to answer, what
// the chain would ask about is denied, and the text names the flag or rule
// that allows it (ERRATA 34); print mode runs in yolo mode, where ordinary
// calls run and the risky ones ask.
func TestHeadlessAsksAreDeniedNamingWhatAllows(t *testing.T) {
	deny, ask := permission.DecisionDeny, permission.DecisionAsk
	for _, tt := range []struct {
		name     string
		mode     permission.Mode
		opts     []rigOption
		tool     string
		args     string
		want     outcome
		fragment string
		policy   string
	}{
		{name: "plain command runs", mode: permission.ModeYolo, tool: "Bash", args: `{"command":"ls -la"}`, want: approved},
		{name: "write outside the workspace", mode: permission.ModeYolo, tool: "Write",
			args: `{"path":"/home/u/.bashrc","content":"x"}`, want: denied, fragment: "--add-dir", policy: "workspace-boundary-ask"},
		{name: "redirect outside the workspace", mode: permission.ModeYolo, tool: "Bash",
			args: `{"command":"echo x >> /home/u/.bashrc"}`, want: denied, fragment: "--add-dir", policy: "workspace-boundary-ask"},
		{name: "git config", mode: permission.ModeYolo, tool: "Write",
			args: `{"path":".git/config","content":"x"}`, want: denied, fragment: "--allowedTools", policy: "git-control-path-access-ask"},
		{name: "secret file", mode: permission.ModeYolo, tool: "Grep", args: `{"pattern":"KEY","path":"/repo/.env"}`, want: denied,
			fragment: "may hold secrets", policy: "sensitive-file-access-ask"},
		{name: "ask rule is not an allow", mode: permission.ModeYolo, opts: []rigOption{withRules(rule(ask, "Bash(git push *)"))},
			tool: "Bash", args: `{"command":"git push origin main"}`, want: denied, fragment: "An ask rule matches it", policy: "user-configured-ask"},
		{name: "manual mode names the rule", mode: permission.ModeManual, tool: "Bash", args: `{"command":"make build"}`,
			want: denied, fragment: `--allowedTools "Bash(make build)"`, policy: "fallback-ask"},
		{name: "opaque with a deny rule", mode: permission.ModeYolo, opts: []rigOption{withRules(rule(deny, "Bash(rm *)"))},
			tool: "Bash", args: `{"command":"R=rm; $R -rf x"}`, want: denied, fragment: "cannot be checked", policy: "opaque-bash-ask"},
		{name: "opaque with a deny rule in auto mode", mode: permission.ModeAuto, opts: []rigOption{withRules(rule(deny, "Bash(rm *)"))},
			tool: "Bash", args: `{"command":"echo rm x | bash"}`, want: denied, fragment: "cannot be checked", policy: "opaque-bash-ask"},
		{name: "unparsable with an ask rule", mode: permission.ModeAuto, opts: []rigOption{withRules(rule(ask, "Bash(curl *)"))},
			tool: "Bash", args: `{"command":"r''m x; cat <<EOF"}`, want: denied, fragment: "cannot be checked", policy: "opaque-bash-ask"},
		{name: "opaque without Bash rules runs", mode: permission.ModeYolo, opts: []rigOption{withRules(rule(deny, "Read(/etc/**)"))},
			tool: "Bash", args: `{"command":"R=ls; $R"}`, want: approved},
		{name: "sandbox unavailable", mode: permission.ModeYolo, opts: []rigOption{withUnconfined(errors.New("no landlock"))},
			tool: "Bash", args: `{"command":"ls"}`, want: denied, fragment: "--sandbox off", policy: "sandbox-unavailable-ask"},
		{name: "sandbox unavailable in auto mode", mode: permission.ModeAuto, opts: []rigOption{withUnconfined(errors.New("no landlock"))},
			tool: "Bash", args: `{"command":"ls"}`, want: denied, fragment: "--sandbox off", policy: "sandbox-unavailable-ask"},
		{name: "sandbox unavailable leaves Read alone", mode: permission.ModeYolo, opts: []rigOption{withUnconfined(errors.New("no landlock"))},
			tool: "Read", args: `{"path":"a.go"}`, want: approved},
		{name: "sandbox available", mode: permission.ModeYolo, opts: []rigOption{withUnconfined(nil)},
			tool: "Bash", args: `{"command":"ls"}`, want: approved},
		{name: "plan review names --plan, not a rule", mode: permission.ModeYolo, opts: []rigOption{withPlan("# Plan")},
			tool: "ExitPlanMode", args: `{}`, want: denied, fragment: "A run started with --plan", policy: "exit-plan-mode-review-ask"},
		{name: "goal start names /goal, not a rule", mode: permission.ModeManual, opts: []rigOption{withGoals()},
			tool: "CreateGoal", args: `{"objective":"work"}`, want: denied, fragment: `"/goal <objective>"`, policy: "goal-start-review-ask"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := newRig(t, append(tt.opts, withMode(tt.mode), withoutApprover(), withFile("/repo/a.go", "package a\n"),
				withFile("/repo/.env", "K=v\n"), withFile("/repo/.git/config", "[core]\n"))...)
			a, err := r.call(tt.tool, tt.args)
			if got := classify(a, err, false); got != tt.want {
				t.Fatalf("%s %s: %s (%+v, %v); want %s", tt.tool, tt.args, got, a, err, tt.want)
			}
			if tt.want == denied {
				wantBlock(t, a, err, "nobody is here to approve it", tt.fragment)
				if got := r.decidedBy(); got != tt.policy {
					t.Errorf("decided by %s; want %s", got, tt.policy)
				}
			}
		})
	}
}
