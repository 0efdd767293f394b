package permission

import (
	"context"
	"encoding/json"
	"path"
	"strings"

	"github.com/kimigo/kimigo/loop"
	"github.com/kimigo/kimigo/workspace"
)

// Policy is one judge of the chain (spec 04 §2.3, §9.1). Evaluate may block
// (a hook, a file-system probe) and runs on the turn goroutine, one call at
// a time; the zero Verdict means "no opinion". An error aborts the decision
// and blocks the call.
type Policy interface {
	Name() string
	Evaluate(ctx context.Context, c *Call) (Verdict, error)
}

// Kind is a verdict's outcome. It is never persisted.
type Kind int

// Verdict kinds; None is the zero value.
const (
	None Kind = iota
	Approve
	Deny
	Ask
	Result
)

func (k Kind) String() string {
	switch k {
	case Approve:
		return "approve"
	case Deny:
		return "deny"
	case Ask:
		return "ask"
	case Result:
		return "result"
	}
	return "none"
}

// Verdict is what a policy decided.
type Verdict struct {
	Kind Kind
	// Message is the deny text; "" gives the default policy-deny text.
	Message string
	// Result answers the call without running it (Kind Result).
	Result *loop.ToolResult
	// Metadata reaches the tool's ExecCtx.Metadata (Kind Approve).
	Metadata any
	// OnApproval, for Kind Ask, turns the user's answer into the final
	// verdict (plan review, goal start). ok false falls back to the usual
	// handling: approved runs the call, anything else blocks it.
	OnApproval func(ctx context.Context, r ApprovalResponse) (v Verdict, ok bool, err error)
	// OnceOnly, for Kind Ask, makes the answer this call's alone: the
	// request tells the front end to offer no session or always choice,
	// and such an answer approves once, leaving no session approval and
	// no allow rule behind. A plan review and a goal start are each the
	// user's decision about one plan or one goal, never about the tool.
	OnceOnly bool
	// Reason holds telemetry fields: counts and labels, never argument
	// text.
	Reason map[string]any
}

// Call is one tool call as the policies see it: the loop's view of the
// call plus a snapshot of the agent's permission state taken when
// Authorize began. Policies treat it as read-only.
type Call struct {
	loop.ToolCtx
	// Mode is the agent's permission mode.
	Mode Mode
	// AgentType is main or sub.
	AgentType AgentType
	// Workspace is the work dir plus the --add-dir dirs.
	Workspace workspace.Dirs

	m       *Manager
	rules   []*compiledRule // effective rules, own first
	session []*compiledRule // session approvals, own first
	bash    *script         // Bash only, parsed on first use
	// writeMatchers match path rules against the script's write targets,
	// built on first use.
	writeMatchers []func(string) bool
	// accesses caches FileAccesses; unresolved are the paths whose real
	// path cannot be known (a /proc fd, too many links).
	accesses   *[]loop.Access
	unresolved []string
}

// Name is the called tool's name.
func (c *Call) Name() string { return c.ToolCall.Name }

// Exec is the resolved execution; never nil.
func (c *Call) Exec() *loop.Execution { return c.Execution }

// IsBash reports a call of the Bash tool, whose rules are shell-aware.
func (c *Call) IsBash() bool { return c.Name() == toolBash }

// script parses the Bash command on first use. The command and its cwd
// are what the Bash tool decoded from the arguments, once, and declared in
// its command display; permission never decodes the arguments again. A
// Bash call without a command display has no command any rule can match.
func (c *Call) script() *script {
	if c.bash == nil {
		var command, cwd string
		if d, ok := c.Exec().Display.(*loop.CommandDisplay); ok {
			command, cwd = d.Command, d.Cwd
		}
		c.bash = c.m.analyze(command, c.commandDir(cwd))
	}
	return c.bash
}

// commandDir is where the Bash command starts: its cwd argument resolved
// against the work dir.
func (c *Call) commandDir(cwd string) string {
	home := c.m.home()
	switch {
	case cwd == "":
		return c.Workspace.Dir
	case cwd == "~" || strings.HasPrefix(cwd, "~/"):
		if home == "" {
			return ""
		}
		cwd = home + cwd[1:]
	case !path.IsAbs(cwd):
		if c.Workspace.Dir == "" {
			return ""
		}
		cwd = path.Join(c.Workspace.Dir, cwd)
	}
	return path.Clean(cwd)
}

// FileAccesses are the call's declared file accesses plus, for Bash, the
// files its redirections write (ERRATA 9), each followed by its real path
// when symbolic links make that differ (ERRATA 37): the policies judge
// both. Built on first use.
func (c *Call) FileAccesses() []loop.Access {
	if c.accesses != nil {
		return *c.accesses
	}
	var lexical []loop.Access
	for _, a := range c.Exec().Accesses {
		if a.Kind == loop.AccessFile && a.Path != "" {
			lexical = append(lexical, a)
		}
	}
	if c.IsBash() {
		for _, w := range c.script().writes {
			lexical = append(lexical, loop.Access{Kind: loop.AccessFile, Operation: loop.OpWrite, Path: w.path})
		}
	}
	out := make([]loop.Access, 0, len(lexical))
	for _, a := range lexical {
		out = append(out, a)
		real, err := workspace.RealPath(c.m.env, a.Path)
		switch {
		case err != nil:
			c.unresolved = append(c.unresolved, a.Path)
		case real != a.Path:
			r := a
			r.Path = real
			out = append(out, r)
		}
	}
	c.accesses = &out
	return out
}

// argsObject is the call's arguments as a JSON object value, or an empty
// object when they are not one (the hook input shape of spec 04 §2.4.1).
func (c *Call) argsObject() any {
	var v map[string]any
	if err := json.Unmarshal(c.Args, &v); err != nil || v == nil {
		return map[string]any{}
	}
	return v
}
