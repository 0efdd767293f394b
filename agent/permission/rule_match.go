package permission

import (
	"strings"

	"github.com/kimigo/kimigo/internal/glob"
	"github.com/kimigo/kimigo/loop"
	"github.com/kimigo/kimigo/workspace"
)

// compiledRule is a Rule ready to match. Compiling never fails: a pattern
// that does not parse matches nothing (spec 04 §3.8), and an argument whose
// glob does not compile is kept as argErr so the chain can fail closed.
type compiledRule struct {
	Rule
	pat      Pattern
	parseErr error
	// tool is the tool-name glob; nil means "*" (every tool).
	tool    *glob.Glob
	toolErr error
	// neg says the argument started with "!": the rule matches what its
	// positive part does not.
	neg bool
	// arg is the positive part for commands (Bash, bash_pattern.go): a
	// leading "./" is kept literal, so Bash(./x) is not Bash(x).
	arg    *commandPattern
	argErr error
	// forBash and forWrite say the tool part selects Bash, and Write or
	// Edit (whose rules also judge Bash redirections); set once here.
	forBash, forWrite bool
}

// compileRule compiles r. Tool names match case-sensitively.
func compileRule(r Rule) *compiledRule {
	c := &compiledRule{Rule: r}
	c.pat, c.parseErr = ParsePattern(r.Pattern)
	if c.parseErr != nil {
		return c
	}
	if c.pat.Tool != "*" {
		c.tool, c.toolErr = glob.Compile(c.pat.Tool, glob.Options{})
	}
	c.forBash = c.toolMatches(toolBash)
	c.forWrite = c.toolMatches(toolWrite) || c.toolMatches(toolEdit)
	if c.pat.Arg == "" {
		return c
	}
	pos := c.pat.Arg
	if rest, ok := strings.CutPrefix(pos, "!"); ok {
		c.neg, pos = true, rest
	}
	if _, c.argErr = glob.Compile(pos, glob.Options{}); c.argErr != nil {
		return c
	}
	c.arg, c.argErr = compileCommandPattern(pos)
	return c
}

// usable reports whether the rule can match at all.
func (r *compiledRule) usable() bool { return r.parseErr == nil && r.toolErr == nil }

// toolMatches reports whether the rule's tool part selects name.
func (r *compiledRule) toolMatches(name string) bool {
	if !r.usable() {
		return false
	}
	return r.tool == nil || r.tool.Match(name)
}

// matchCommand matches the rule's argument against one command text with
// the "!" wrapper and no "./" retry. A rule without an argument matches.
func (r *compiledRule) matchCommand(text string) bool {
	if r.pat.Arg == "" {
		return true
	}
	if r.arg == nil {
		return false
	}
	return r.arg.Match(text) != r.neg
}

// matchExecution is MatchRule of spec 04 §3.3 for tools that interpret the
// argument themselves: the tool name must match; a rule with an argument
// needs the execution's matcher.
func (r *compiledRule) matchExecution(name string, exec *loop.Execution) bool {
	if !r.toolMatches(name) || r.argErr != nil {
		return false
	}
	if r.pat.Arg == "" {
		return true
	}
	return exec.MatchesRule != nil && exec.MatchesRule(r.pat.Arg)
}

// considered reports whether policies 5, 8 and 9 look at the rule: a
// session-runtime rule in the rule list is a legacy session approval and is
// ignored there.
func (r *compiledRule) considered() bool { return r.Scope != ScopeSessionRuntime }

func compileRules(rules []Rule) []*compiledRule {
	out := make([]*compiledRule, 0, len(rules))
	for _, r := range rules {
		if r.Scope == "" {
			r.Scope = ScopeUser
		}
		out = append(out, compileRule(r))
	}
	return out
}

// matchedBy reports whether a deny or ask rule matches the call. For Bash
// a rule for Bash matches when it matches one command of the script, and a
// rule for Write or Edit when it matches a file a redirection writes.
func (c *Call) matchedBy(r *compiledRule) bool {
	if !c.IsBash() {
		return r.matchExecution(c.Name(), c.Exec()) || c.accessMatchedBy(r)
	}
	if r.forBash && r.argErr == nil && (r.pat.Arg == "" || c.script().matchedBy(r)) {
		return true
	}
	return c.writeMatchedBy(r) || c.accessMatchedBy(r)
}

// accessMatchedBy reports whether a deny or ask rule governs a file the
// call touches, whatever the tool (ERRATA 36, 37): a Write or Edit rule
// every file written, a Read rule every file read and every tree searched
// (Grep, Glob), under its lexical and its real path alike.
func (c *Call) accessMatchedBy(r *compiledRule) bool {
	if r.argErr != nil || !r.usable() {
		return false
	}
	read := r.toolMatches(toolRead)
	if !r.forWrite && !read {
		return false
	}
	for _, a := range c.FileAccesses() {
		writes := a.Operation == loop.OpWrite || a.Operation == loop.OpReadWrite
		reads := a.Operation != loop.OpWrite
		if !(writes && r.forWrite || reads && read) {
			continue
		}
		if r.pat.Arg == "" {
			return true
		}
		rp := workspace.ResolvedPath{Raw: a.Path, Path: a.Path, Outside: !c.Workspace.Contains(a.Path)}
		if workspace.PathRuleMatcher(c.m.env, c.Workspace, rp)(r.pat.Arg) {
			return true
		}
	}
	return false
}

// writeMatchedBy reports whether a Write or Edit rule covers a file the
// Bash script writes. A rule without an argument also covers a target
// that is not known before the script runs.
func (c *Call) writeMatchedBy(r *compiledRule) bool {
	if r.argErr != nil || !r.forWrite {
		return false
	}
	s := c.script()
	if r.pat.Arg == "" {
		return len(s.writes) > 0 || s.unknownWrites
	}
	if c.writeMatchers == nil {
		for _, w := range s.writes {
			c.writeMatchers = append(c.writeMatchers, c.m.pathMatcher(c.Workspace, w))
		}
	}
	for _, match := range c.writeMatchers {
		if match(r.pat.Arg) {
			return true
		}
	}
	return false
}

// brokenBy reports whether r selects this call but cannot match its
// argument: the call is then blocked rather than guessed about.
func (c *Call) brokenBy(r *compiledRule) bool {
	if r.argErr == nil {
		return false
	}
	if c.IsBash() {
		writes := len(c.script().writes) > 0
		return r.forBash || writes && r.forWrite
	}
	return r.toolMatches(c.Name()) && c.Exec().MatchesRule != nil
}

// strategy names how r matched, for telemetry.
func (c *Call) strategy(r *compiledRule) string {
	switch {
	case r.pat.Arg == "":
		return "tool_name_only"
	case c.IsBash():
		return "shell_aware"
	}
	return "matches_rule"
}

// ruleReason is the telemetry of a rule decision: labels, no pattern text.
func ruleReason(r *compiledRule, strategy string) map[string]any {
	return map[string]any{"rule_scope": string(r.Scope), "rule_decision": string(r.Decision), "match_strategy": strategy}
}
