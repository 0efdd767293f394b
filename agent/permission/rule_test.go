package permission_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kimigo/kimigo/agent/permission"
)

func TestScenario35Parsing(t *testing.T) {
	for _, tt := range []struct {
		in        string
		tool, arg string
		err       string
	}{
		{in: "Write", tool: "Write"},
		{in: "Read(/etc/**)", tool: "Read", arg: "/etc/**"},
		{in: "Edit(!./src/**)", tool: "Edit", arg: "!./src/**"},
		{in: "  mcp__github__*  ", tool: "mcp__github__*"},
		{in: "Read()", tool: "Read"},
		{in: "Bash(echo (a))", tool: "Bash", arg: "echo (a)"},
		{in: "Bash (x)", tool: "Bash ", arg: "x"},
		{in: "Read(/etc/**", err: "missing closing paren"},
		{in: "", err: "empty string"},
		{in: "(x)", err: "empty tool name"},
	} {
		p, err := permission.ParsePattern(tt.in)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) || !permission.IsPatternError(err) {
				t.Errorf("ParsePattern(%q) error = %v; want %q", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil || p.Tool != tt.tool || p.Arg != tt.arg {
			t.Errorf("ParsePattern(%q) = %+v, %v; want tool %q arg %q", tt.in, p, err, tt.tool, tt.arg)
		}
	}
}

func TestScenario36ConfigLoading(t *testing.T) {
	rules, errs := permission.LoadRules([]permission.RuleSpec{
		{Decision: "allow", Pattern: "Read(src/**)", Origin: permission.OriginUser, Source: "/home/u/.kimigo/config.toml", Line: 3},
		{Decision: "deny", Pattern: "Bash(rm *", Origin: permission.OriginUser, Source: "/home/u/.kimigo/config.toml", Line: 7},
		{Decision: "maybe", Pattern: "Bash", Origin: permission.OriginUser, Source: "/home/u/.kimigo/config.toml", Line: 11},
		{Decision: "deny", Pattern: "Bash(curl *)", Reason: "no network", Origin: permission.OriginUser, Source: "/home/u/.kimigo/config.toml", Line: 15},
	}, permission.LoadOptions{})
	want := []permission.Rule{
		{Decision: permission.DecisionAllow, Scope: permission.ScopeUser, Pattern: "Read(src/**)", Source: "/home/u/.kimigo/config.toml"},
		{Decision: permission.DecisionDeny, Scope: permission.ScopeUser, Pattern: "Bash(curl *)", Reason: "no network", Source: "/home/u/.kimigo/config.toml"},
	}
	if d := cmp.Diff(want, rules); d != "" {
		t.Errorf("loaded rules (-want +got):\n%s", d)
	}
	if len(errs) != 2 || !strings.Contains(errs[0].Error(), `"Bash(rm *"`) || !strings.Contains(errs[1].Error(), `"maybe"`) {
		t.Errorf("errors = %v", errs)
	}
}

// TestRuleLoadErrors: a malformed rule is reported with its file, line,
// text and the column of the fault, and is dropped alone (ERRATA 13).
func TestRuleLoadErrors(t *testing.T) {
	const file = "/home/u/.kimigo/config.toml"
	for _, tt := range []struct {
		pattern string
		column  int
		msg     string
	}{
		{"Bash(rm *", 10, "missing closing paren"},
		{"", 1, "empty string"},
		{"(x)", 1, "empty tool name"},
		{"Bash(echo a))", 12, `unbalanced ")"`},
		{"Bash(echo (a)", 11, `unbalanced "("`},
		{"Bsh(ls)", 1, `unknown tool name "Bsh"`},
		{"bash", 1, `did you mean "Bash"`},
		{"Bash(ls [z-a])", 10, "reversed range"},
		{"Bash(!)", 7, "empty pattern"},
		{"Read(!!)", 8, "empty pattern"},
		{"Read(x[[:nope:]])", 8, "unknown character class"},
		{"mcp__[z-a]", 7, "reversed range"},
		{"Agent(explore)", 7, `write "Agent" to cover every Agent call`},
		{"ExitPlanMode(*)", 14, "would never match"},
		{"AskUserQuestion(x)", 17, "carry no argument"},
	} {
		t.Run(tt.pattern, func(t *testing.T) {
			_, errs := permission.LoadRules([]permission.RuleSpec{
				{Decision: "deny", Pattern: "Bash(git push*)", Source: file, Line: 2},
				{Decision: "deny", Pattern: tt.pattern, Source: file, Line: 9},
				{Decision: "allow", Pattern: "Bash(go test *)", Source: file, Line: 13},
			}, permission.LoadOptions{})
			if len(errs) != 1 {
				t.Fatalf("errors = %v; want exactly one", errs)
			}
			e := errs[0]
			if e.Source != file || e.Line != 9 || e.Pattern != tt.pattern || e.Column != tt.column || !strings.Contains(e.Msg, tt.msg) {
				t.Errorf("error %+v; want column %d and %q", e, tt.column, tt.msg)
			}
			if s := e.Error(); !strings.Contains(s, file+":9") || !strings.Contains(s, tt.pattern) {
				t.Errorf("Error() = %q names neither the place nor the rule", s)
			}
		})
	}
}

func TestRuleLoadProjectFile(t *testing.T) {
	const local = "/repo/.kimi-code/local.toml"
	rules, errs := permission.LoadRules([]permission.RuleSpec{
		{Decision: "allow", Pattern: "Bash", Origin: permission.OriginProject, Source: local, Line: 1},
		{Decision: "deny", Pattern: "Bash(rm *)", Origin: permission.OriginProject, Source: local, Line: 4},
		{Decision: "ask", Pattern: "Write", Origin: permission.OriginProject, Source: local, Line: 7},
	}, permission.LoadOptions{})
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), local) || !strings.Contains(errs[0].Msg, "allow") {
		t.Errorf("errors = %v; want one naming %s", errs, local)
	}
	if len(rules) != 2 || rules[0].Scope != permission.ScopeProject || rules[1].Decision != permission.DecisionAsk {
		t.Errorf("rules = %+v", rules)
	}
}

func TestRuleLoadKnownTools(t *testing.T) {
	specs := []permission.RuleSpec{{Decision: "allow", Pattern: "my_tool(x)"}, {Decision: "deny", Pattern: "mcp__github__create_issue"},
		{Decision: "deny", Pattern: "mcp__*"}, {Decision: "deny", Pattern: "*"}}
	if _, errs := permission.LoadRules(specs, permission.LoadOptions{}); len(errs) != 1 || errs[0].Pattern != "my_tool(x)" {
		t.Errorf("default options: errors %v; want only my_tool unknown", errs)
	}
	known := func(n string) bool { return n == "my_tool" }
	if _, errs := permission.LoadRules(specs, permission.LoadOptions{KnownTool: known}); len(errs) != 1 || errs[0].Pattern != "mcp__github__create_issue" {
		t.Errorf("with KnownTool: errors %v; want only the unlisted MCP tool", errs)
	}
}

// TestDroppedRulesDecideNothing: what LoadRules drops never reaches the
// chain, and the rules around it still work.
func TestDroppedRulesDecideNothing(t *testing.T) {
	rules, _ := permission.LoadRules([]permission.RuleSpec{
		{Decision: "deny", Pattern: "Bash(rm *"},
		{Decision: "allow", Pattern: "Bash(ls *"},
		{Decision: "allow", Pattern: "Bash(git status)"},
	}, permission.LoadOptions{})
	r := newRig(t, withRules(rules...))
	for cmd, want := range map[string]outcome{"rm x": asked, "ls x": asked, "git status": approved} {
		if got := r.judge("Bash", `{"command":"`+cmd+`"}`); got != want {
			t.Errorf("%s = %s; want %s", cmd, got, want)
		}
	}
}

func TestScenario37MalformedRuleAtRuntime(t *testing.T) {
	r := newRig(t, withRules(rule(permission.DecisionDeny, "Bash(git *")))
	if got := r.judge("Bash", `{"command":"git status"}`); got != asked || r.decidedBy() != "fallback-ask" {
		t.Errorf("got %s by %q; want ask by fallback-ask", got, r.decidedBy())
	}
}

func TestScenario38ArgumentsNeedAMatcher(t *testing.T) {
	for _, tt := range []struct {
		rule, tool string
		want       outcome
	}{
		{"AgentSwarm(x)", "AgentSwarm", asked},
		{"mcp__s__t(x)", "mcp__s__t", asked},
		{`Custom("query":"a")`, "Custom", asked},
		{"AgentSwarm", "AgentSwarm", approved},
		{"mcp__s__*", "mcp__s__t", approved},
		{"*", "Custom", approved},
		{"*", "Bash", approved},
	} {
		r := newRig(t, withRules(rule(permission.DecisionAllow, tt.rule)))
		args := `{}`
		if tt.tool == "Bash" {
			args = `{"command":"ls"}`
		}
		if got := r.judge(tt.tool, args); got != tt.want {
			t.Errorf("allow %s, call %s = %s; want %s", tt.rule, tt.tool, got, tt.want)
		}
	}
}

func TestScenario39CommandGlobs(t *testing.T) {
	for _, tt := range []struct {
		rule, command string
		want          outcome
	}{
		{"Bash(git *)", "git status", denied},
		{"Bash(git *)", "git status && rm -rf x", denied},
		{"Bash(git *)", "git diff src/a.ts", denied}, // "*" crosses "/" in Bash rules (ERRATA 35)
		{"Bash(rm -rf*)", "rm -rf /", denied},
		{"Bash(rm *)", "rm -f ./x", denied},
		{"Bash(rm *)", "rm -rf /abs/path", denied},
		{"Bash(rm *)", "rm", denied},
		{"Bash(rm:*)", "rm -f src/x", denied},
		{"Bash(rm:*)", "rm", denied},
		{"Bash(rm:*)", "rmdir x", asked},
		{"Bash(rm *)", "rmdir x", asked},
		{"Bash({git *,git */**})", "git diff src/a.ts", denied},
	} {
		r := newRig(t, withRules(rule(permission.DecisionDeny, tt.rule)))
		if got := r.judge("Bash", `{"command":"`+tt.command+`"}`); got != tt.want {
			t.Errorf("deny %s, %q = %s; want %s", tt.rule, tt.command, got, tt.want)
		}
	}
}

func TestScenario40Negation(t *testing.T) {
	r := newRig(t, withRules(rule(permission.DecisionDeny, "Bash(!rm *)")))
	if got := r.judge("Bash", `{"command":"ls -la"}`); got != denied {
		t.Errorf("ls -la = %s; want deny", got)
	}
	if got := r.judge("Bash", `{"command":"rm x"}`); got != asked {
		t.Errorf("rm x = %s; want ask", got)
	}
	double := newRig(t, withRules(rule(permission.DecisionDeny, "Bash(!!ls)")))
	if got := double.judge("Bash", `{"command":"ls"}`); got != denied {
		t.Errorf("!!ls vs ls = %s; want deny", got)
	}
	if got := double.judge("Bash", `{"command":"rm x"}`); got != asked {
		t.Errorf("!!ls vs rm x = %s; want ask", got)
	}
}

func TestScenario41PathGlobs(t *testing.T) {
	for _, tt := range []struct {
		rule, tool, path string
		match            bool
	}{
		{"Read(src/**)", "Read", "/repo/src/a.ts", true},
		{"Edit(/REPO/Sub/**)", "Edit", "/repo/sub/a.ts", true},
		{"Read(~/secrets/**)", "Read", "/home/u/secrets/k.txt", true},
		{"Read(/repo/../etc/*)", "Read", "/etc/hosts", true},
		{"Edit(!./src/**)", "Edit", "/repo/README.md", true},
		{"Edit(!./src/**)", "Edit", "/repo/src/a.ts", false},
		{"Read(/repo/**)", "Read", "/repo/.github/ci.yml", false},
		{"Read(*.ts)", "Read", "/repo/a.ts", true},
	} {
		r := newRig(t, withRules(rule(permission.DecisionDeny, tt.rule)))
		args := `{"path":"` + tt.path + `"}`
		if tt.tool == "Edit" {
			args = `{"path":"` + tt.path + `","old_string":"a","new_string":"b"}`
		}
		if got := r.judge(tt.tool, args) == denied; got != tt.match {
			t.Errorf("%s vs %s: matched %v; want %v", tt.rule, tt.path, got, tt.match)
		}
	}
}

func TestScenario42ToolNameCase(t *testing.T) {
	r := newRig(t, withRules(rule(permission.DecisionDeny, "bash")))
	if got := r.judge("Bash", `{"command":"ls"}`); got == denied {
		t.Error("deny bash denied Bash")
	}
	if _, errs := permission.LoadRules([]permission.RuleSpec{{Decision: "deny", Pattern: "bash"}}, permission.LoadOptions{}); len(errs) != 1 {
		t.Errorf("loading deny bash: %v; want it reported", errs)
	}
}

func TestScenario43BadMatcherPattern(t *testing.T) {
	if _, errs := permission.LoadRules([]permission.RuleSpec{{Decision: "deny", Pattern: "Bash(!)"}}, permission.LoadOptions{}); len(errs) != 1 {
		t.Errorf("loading Bash(!): %v; want it rejected", errs)
	}
	r := newRig(t, withRules(rule(permission.DecisionDeny, "Bash(!)")))
	a, err := r.call("Bash", `{"command":"ls"}`)
	wantBlock(t, a, err, `"Bash(!)"`)
	allow := newRig(t, withRules(rule(permission.DecisionAllow, "Bash(!)")))
	a, err = allow.call("Bash", `{"command":"ls"}`)
	wantBlock(t, a, err, `"Bash(!)"`)
}

func TestScenario44FirstMatchInsideADecision(t *testing.T) {
	r := newRig(t, withRules(ruleWithReason(permission.DecisionDeny, "Bash(git *)", "project deny"),
		ruleWithReason(permission.DecisionDeny, "Bash(git status)", "user deny")))
	a, err := r.call("Bash", `{"command":"git status"}`)
	wantBlock(t, a, err, "Reason: project deny")
}
