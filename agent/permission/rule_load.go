package permission

import (
	"errors"
	"fmt"
	"strings"

	"github.com/kimigo/kimigo/internal/glob"
)

// Origin says which file a rule was read from (ERRATA 11).
type Origin string

// Rule origins.
const (
	// OriginUser is the user's config.toml: any decision.
	OriginUser Origin = "user"
	// OriginProject is the project's .kimi-code/local.toml: deny and ask
	// only, since a project may tighten the rules, never loosen them.
	OriginProject Origin = "project"
)

// RuleSpec is one [[permission.rules]] entry as the config layer read it,
// before validation.
type RuleSpec struct {
	Decision string
	// Scope is "" for the origin's default (user or project).
	Scope   string
	Pattern string
	Reason  string
	Origin  Origin
	// Source is the file's path and Line the entry's line (0: unknown);
	// both only name the place in errors.
	Source string
	Line   int
}

// RuleError is a rule that was dropped at load time (ERRATA 13). Column is
// the 1-based position of the fault in Pattern, 0 when the fault is not in
// the pattern (a bad decision or scope).
type RuleError struct {
	Source  string
	Line    int
	Pattern string
	Column  int
	Msg     string
}

func (e *RuleError) Error() string {
	where := e.Source
	if where == "" {
		where = "permission rules"
	}
	if e.Line > 0 {
		where = fmt.Sprintf("%s:%d", where, e.Line)
	}
	if e.Column > 0 {
		return fmt.Sprintf("%s: permission rule %q, column %d: %s", where, e.Pattern, e.Column, e.Msg)
	}
	return fmt.Sprintf("%s: permission rule %q: %s", where, e.Pattern, e.Msg)
}

// LoadOptions tune LoadRules.
type LoadOptions struct {
	// KnownTool reports tool names besides the built-in ones (user tools,
	// tools of configured MCP servers). Nil knows the built-ins and any
	// well-formed mcp__server__tool name.
	KnownTool func(name string) bool
}

// isMCPName reports a qualified MCP tool name, mcp__<server>__<tool> with
// each part made of [A-Za-z0-9_-] (spec 04 §3.6).
func isMCPName(name string) bool {
	rest, ok := strings.CutPrefix(name, "mcp__")
	server, tool, found := strings.Cut(rest, "__")
	if !ok || !found || server == "" || tool == "" {
		return false
	}
	for _, c := range rest {
		if !(c == '_' || c == '-' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// builtinTool reports the tools kimigo ships, including those provided by
// plan, goal, swarm and the collaboration tools.
func builtinTool(name string) bool {
	switch name {
	case "Read", "Write", "Edit", "Glob", "Grep", "Bash", "ReadMediaFile", "FetchURL", "WebSearch",
		"TodoList", "SetTodoList", "AskUserQuestion", "TaskList", "TaskOutput", "TaskStop", "select_tools",
		"Agent", "AgentSwarm", "Skill", "CronCreate", "CronDelete", "CronList", "EnterPlanMode",
		"ExitPlanMode", "CreateGoal", "GetGoal", "SetGoalBudget", "UpdateGoal":
		return true
	}
	return false
}

// argumentTool reports the built-in tools whose calls carry an argument a
// rule's parentheses match (a path, a command, a URL, a pattern, a name
// or an id). A rule with an argument on any other built-in tool can never
// match. The list follows the tools that set loop.Execution.MatchesRule;
// a tool that starts setting it belongs here.
func argumentTool(name string) bool {
	switch name {
	case "Read", "Write", "Edit", "Glob", "Grep", "Bash", "ReadMediaFile", "FetchURL", "Skill",
		"TaskList", "TaskOutput", "TaskStop", "CronCreate", "CronDelete":
		return true
	}
	return false
}

// LoadRules validates rules read from config files and returns the valid
// ones in order. Each malformed rule is dropped alone and reported with
// its file, line, text and the position of the fault; it denies nothing
// and approves nothing.
func LoadRules(specs []RuleSpec, o LoadOptions) ([]Rule, []*RuleError) {
	var (
		rules []Rule
		errs  []*RuleError
	)
	for _, s := range specs {
		r, err := loadRule(s, o)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		rules = append(rules, r)
	}
	return rules, errs
}

func loadRule(s RuleSpec, o LoadOptions) (Rule, *RuleError) {
	fail := func(col int, format string, args ...any) (Rule, *RuleError) {
		return Rule{}, &RuleError{Source: s.Source, Line: s.Line, Pattern: s.Pattern, Column: col, Msg: fmt.Sprintf(format, args...)}
	}
	r := Rule{Decision: Decision(s.Decision), Scope: Scope(s.Scope), Pattern: s.Pattern, Reason: s.Reason, Source: s.Source}
	switch r.Decision {
	case DecisionAllow, DecisionDeny, DecisionAsk:
	default:
		return fail(0, "decision %q is not allow, deny or ask", s.Decision)
	}
	switch r.Scope {
	case "":
		r.Scope = ScopeUser
		if s.Origin == OriginProject {
			r.Scope = ScopeProject
		}
	case ScopeUser, ScopeProject, ScopeTurnOverride, ScopeSessionRuntime:
	default:
		return fail(0, "scope %q is not user, project, turn-override or session-runtime", s.Scope)
	}
	if s.Origin == OriginProject && r.Decision == DecisionAllow {
		return fail(0, "allow rules are ignored in a project file, which may only deny or ask")
	}
	p, err := ParsePattern(s.Pattern)
	if err != nil {
		var pe *PatternError
		errors.As(err, &pe)
		return fail(pe.Pos+1, "%s", pe.Msg)
	}
	if at, msg := unbalanced(p.Arg); at >= 0 {
		return fail(p.ArgOffset+at+1, "%s", msg)
	}
	toolAt := strings.Index(s.Pattern, p.Tool)
	if strings.ContainsAny(p.Tool, "*?[]{}") {
		if _, err := glob.Compile(p.Tool, glob.Options{}); err != nil {
			return fail(toolAt+globPos(err)+1, "bad tool-name glob: %s", globMsg(err))
		}
	} else if !knownTool(p.Tool, o) {
		return fail(toolAt+1, "unknown tool name %q%s", p.Tool, suggestTool(p.Tool))
	}
	if p.Arg != "" && builtinTool(p.Tool) && !argumentTool(p.Tool) {
		return fail(p.ArgOffset+1, "%s calls carry no argument a rule can match, so this rule would never match; write %q to cover every %s call",
			p.Tool, p.Tool, p.Tool)
	}
	if p.Arg != "" {
		pos, skip := strings.CutPrefix(p.Arg, "!")
		if _, err := glob.Compile(pos, glob.Options{}); err != nil {
			return fail(p.ArgOffset+btoi(skip)+globPos(err)+1, "bad argument glob: %s", globMsg(err))
		}
	}
	return r, nil
}

func knownTool(name string, o LoadOptions) bool {
	return builtinTool(name) || (o.KnownTool != nil && o.KnownTool(name)) || (o.KnownTool == nil && isMCPName(name))
}

// suggestTool hints at a built-in name that differs only in case.
func suggestTool(name string) string {
	for _, t := range []string{"Read", "Write", "Edit", "Glob", "Grep", "Bash", "FetchURL", "WebSearch", "Agent", "Skill"} {
		if strings.EqualFold(t, name) {
			return fmt.Sprintf(" (tool names are case-sensitive: did you mean %q?)", t)
		}
	}
	return ""
}

// unbalanced finds an unescaped ")" without its "(" or a "(" never closed
// in an argument; at is its offset, -1 when the parentheses balance.
func unbalanced(arg string) (at int, msg string) {
	var open []int
	for i := 0; i < len(arg); i++ {
		switch arg[i] {
		case '\\':
			i++
		case '(':
			open = append(open, i)
		case ')':
			if len(open) == 0 {
				return i, `unbalanced ")"`
			}
			open = open[:len(open)-1]
		}
	}
	if len(open) > 0 {
		return open[len(open)-1], `unbalanced "("`
	}
	return -1, ""
}

func globPos(err error) int {
	var ge *glob.Error
	if errors.As(err, &ge) {
		return ge.Pos
	}
	return 0
}

func globMsg(err error) string {
	var ge *glob.Error
	if errors.As(err, &ge) {
		return ge.Msg
	}
	return err.Error()
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
