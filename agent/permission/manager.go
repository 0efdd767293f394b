package permission

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"mvdan.cc/sh/v3/syntax"

	"github.com/kimigo/kimigo/osenv"
	"github.com/kimigo/kimigo/workspace"
)

// Options build a Manager. The zero value is a main agent in manual mode
// with no rules, no hooks, no approval channel (whatever the chain asks
// about is denied: the safe default) and the local file system for git
// probes.
type Options struct {
	// Env is the OS seam: the file system for git-marker probes, the home
	// directory and the path class. Nil means the local machine.
	Env osenv.Env
	// Workspace returns the work dir and the --add-dir dirs; it is asked
	// on every call, so changes apply at once. Nil means Env's cwd alone.
	Workspace func() workspace.Dirs
	// Rules are the agent's own rules in effective order (LoadRules
	// validates rules read from files). A subagent has none of its own.
	Rules []Rule
	// Parent is the spawning agent's manager (subagents only): its mode,
	// rules and session approvals are inherited live.
	Parent *Manager
	// AgentType picks the denial wording; "" means AgentMain.
	AgentType AgentType
	// SideChannel puts deny-all first: a side question calls no tools.
	SideChannel bool
	// Slots are the mode policies plan, goal and swarm provide.
	Slots Slots
	// Hooks runs PreToolUse, PermissionRequest and PermissionResult.
	Hooks HookRunner
	// Approver asks the user; nil denies every ask at once, with a message
	// saying what would allow the call.
	Approver Approver
	// Unconfined, when set, says whether Bash commands run in the sandbox
	// the session promised: an error (the sandbox is unavailable here)
	// makes every Bash call ask, in every mode (ERRATA 34). Nil means no
	// sandbox was promised.
	Unconfined func() error
	// Recorder commits set_mode and approval records; nil applies them
	// directly, without persistence.
	Recorder Recorder
	// RuleWriter persists "always" answers; nil keeps them for the
	// session only.
	RuleWriter RuleWriter
	// Telemetry receives decision events; nil sends none.
	Telemetry Telemetry
	// Logger receives logs; nil discards.
	Logger *slog.Logger
	// Now is the clock for approval durations; nil means time.Now.
	Now func() time.Time
}

// Manager is one agent's permission state and its policy chain (spec 04
// §1.4, §2). Authorize is called from the turn goroutine; the other
// methods are safe for concurrent use.
type Manager struct {
	o        Options
	env      osenv.Env
	logger   *slog.Logger
	policies []Policy
	own      []*compiledRule
	// approvalSlot holds the one approval request an agent may have open.
	approvalSlot chan struct{}
	parsers      sync.Pool // of *syntax.Parser; parsers are not reentrant

	mu      sync.Mutex // guards the fields below
	mode    Mode       // "" until SetMode: follow the parent, else manual
	session []*compiledRule
	seen    map[string]bool // patterns in session
}

// New returns a manager for o.
func New(o Options) *Manager {
	m := &Manager{o: o, env: o.Env, logger: o.Logger, own: compileRules(o.Rules),
		approvalSlot: make(chan struct{}, 1), seen: map[string]bool{}}
	if m.env == nil {
		m.env = osenv.NewLocal(osenv.LocalOptions{})
	}
	if m.logger == nil {
		m.logger = slog.New(slog.DiscardHandler)
	}
	if m.o.AgentType == "" {
		m.o.AgentType = AgentMain
	}
	if m.o.Now == nil {
		m.o.Now = time.Now
	}
	m.parsers.New = func() any { return syntax.NewParser(syntax.Variant(syntax.LangBash), syntax.KeepComments(false)) }
	m.policies = chain(o.SideChannel, o.Slots)
	for _, r := range m.own {
		if r.parseErr != nil || r.toolErr != nil || r.argErr != nil {
			m.logger.Warn("permission rule cannot match", "source", r.Source, "error", firstErr(r.parseErr, r.toolErr, r.argErr))
		}
	}
	return m
}

// PolicyNames lists the chain in evaluation order.
func (m *Manager) PolicyNames() []string {
	names := make([]string, len(m.policies))
	for i, p := range m.policies {
		names[i] = p.Name()
	}
	return names
}

// Mode is the agent's permission mode: its own once SetMode was applied,
// else its parent's (live), else manual.
func (m *Manager) Mode() Mode {
	m.mu.Lock()
	mode := m.mode
	m.mu.Unlock()
	switch {
	case mode != "":
		return mode
	case m.o.Parent != nil:
		return m.o.Parent.Mode()
	}
	return ModeManual
}

// SetMode switches the mode by committing a permission.set_mode record,
// even when the mode does not change (spec 04 §1.4).
func (m *Manager) SetMode(ctx context.Context, mode Mode) error {
	if _, err := ParseMode(string(mode)); err != nil {
		return fmt.Errorf("set mode: %w", err)
	}
	return m.commit(ctx, SetModeRecord{Mode: mode})
}

// Data is the permission state the agent reports: the mode and the
// effective rules. Session approvals are not part of it.
type Data struct {
	Mode  Mode   `json:"mode"`
	Rules []Rule `json:"rules"`
}

// Data returns the current mode and effective rules.
func (m *Manager) Data() Data {
	rules := []Rule{}
	for _, r := range m.effectiveRules() {
		rules = append(rules, r.Rule)
	}
	return Data{Mode: m.Mode(), Rules: rules}
}

// SessionPatterns lists the session approvals this agent sees: its own in
// the order they were given, then its ancestors'.
func (m *Manager) SessionPatterns() []string {
	var out []string
	for _, r := range m.sessionRules() {
		out = append(out, r.Pattern)
	}
	return out
}

// effectiveRules are the own rules followed by the parent's effective
// rules. Rules never change after New, so no lock is needed.
func (m *Manager) effectiveRules() []*compiledRule {
	if m.o.Parent == nil {
		return m.own
	}
	return append(append([]*compiledRule(nil), m.own...), m.o.Parent.effectiveRules()...)
}

func (m *Manager) sessionRules() []*compiledRule {
	m.mu.Lock()
	out := append([]*compiledRule(nil), m.session...)
	m.mu.Unlock()
	if m.o.Parent != nil {
		out = append(out, m.o.Parent.sessionRules()...)
	}
	return out
}

func (m *Manager) addSessionPattern(pattern string) {
	r := compileRule(Rule{Decision: DecisionAllow, Scope: ScopeSessionRuntime, Pattern: pattern})
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.seen[pattern] {
		m.seen[pattern] = true
		m.session = append(m.session, r)
	}
}

func (m *Manager) workspace() workspace.Dirs {
	if m.o.Workspace != nil {
		return m.o.Workspace()
	}
	return workspace.Dirs{Dir: m.env.Cwd()}
}

func (m *Manager) home() string { return m.env.Home() }

func (m *Manager) win32() bool { return m.env.PathClass() == osenv.PathWin32 }

func (m *Manager) now() time.Time { return m.o.Now() }

// analyze parses a Bash command with a pooled parser.
func (m *Manager) analyze(command, cwd string) *script {
	p := m.parsers.Get().(*syntax.Parser)
	defer m.parsers.Put(p)
	return analyzeScript(p, command, cwd, m.home())
}

// pathMatcher is the path-rule matcher of a Bash redirection target, the
// one Write and Edit use for their own paths.
func (m *Manager) pathMatcher(ws workspace.Dirs, w writeTarget) func(string) bool {
	return workspace.PathRuleMatcher(m.env, ws, workspace.ResolvedPath{Raw: w.raw, Path: w.path, Outside: !ws.Contains(w.path)})
}

// fire starts a hook without waiting for it.
func (m *Manager) fire(event HookEvent, matcher string, input map[string]any) {
	if m.o.Hooks != nil {
		m.o.Hooks.Fire(event, matcher, input)
	}
}

func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
