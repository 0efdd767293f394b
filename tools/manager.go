package tools

import (
	"cmp"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/loop"
	"github.com/kimigo/kimigo/osenv"
	"github.com/kimigo/kimigo/workspace"
)

// SetActiveToolsRecordType is the record type of a profile activation; the
// agent records an ActiveTools payload and applies it with
// Manager.SetActiveTools, live and on resume.
const SetActiveToolsRecordType = "tools.set_active_tools"

// ActiveTools is what a profile enables: exact builtin/user names plus
// "mcp__" globs, and the names and globs it denies.
type ActiveTools struct {
	Names      []string `json:"names"`
	Disallowed []string `json:"disallowed,omitempty"`
}

// Options configure a Manager. Only Base.Env is required; every other nil
// collaborator leaves out the tools that need it.
type Options struct {
	Base
	// Capability is the model's; ReadMediaFile needs image or video input,
	// progressive disclosure needs tool use and dynamic loading.
	Capability llm.Capability
	// ToolSelect is the experimental flag that, with the capability,
	// turns progressive disclosure on.
	ToolSelect bool
	// Store holds tool state; nil means a fresh one. Committer records
	// its updates; nil applies them directly.
	Store     *Store
	Committer StoreCommitter
	// Background runs background Bash commands.
	Background BackgroundTasks
	// BackgroundTimeout is Bash's default background timeout (see
	// BashOptions).
	BackgroundTimeout time.Duration
	// NoAutoBackground kills foreground commands at their timeout instead
	// of moving them to the background.
	NoAutoBackground bool
	// Cron schedules prompts (CronCreate, CronList, CronDelete); only a
	// main agent has one.
	Cron CronScheduler
	// BashLogDir receives full logs of truncated Bash output.
	BashLogDir string
	// CommandStarter confines Bash commands (see BashOptions.Starter).
	CommandStarter CommandStarter
	// Questions registers AskUserQuestion when the client can ask.
	Questions QuestionAsker
	// Fetcher registers FetchURL.
	Fetcher URLFetcher

	// Context appends what select_tools and Skill load to history; nil
	// means the Committer, when it implements ContextAppender (the
	// agent's does), and otherwise neither tool is registered.
	Context ContextAppender
	// Skills registers the Skill tool when the model may load a skill;
	// SkillDepth is the nesting depth of this agent's Skill tool (a skill
	// run by a subagent a skill started); SessionID fills
	// ${KIMI_SESSION_ID} in skill bodies.
	Skills     SkillRegistry
	SkillDepth int
	SessionID  string

	// Plan is the agent's plan mode (EnterPlanMode, ExitPlanMode).
	Plan PlanMode
	// Goals is the agent's goal mode (CreateGoal, GetGoal, SetGoalBudget,
	// UpdateGoal); only a main agent has one, so a subagent never sees
	// the goal tools, whatever its profile names.
	Goals Goals
	// TextFiles, when set, replaces Base.Env for Read, Write and Edit
	// (an editor's buffers through the ACP client, spec 06 §8.8).
	TextFiles osenv.Env

	// Subagents is the agent's subagent host: with Background it
	// registers the Agent tool (spec 05 §5.6).
	Subagents SubagentLauncher

	// Swarm registers AgentSwarm (the session's subagent host runs it);
	// SwarmMode is the agent's swarm mode, entered by each call.
	Swarm     SwarmRunner
	SwarmMode SwarmMode
}

// Manager is one agent's tool table (spec 05 §2): the registered builtin,
// user and MCP tools, the profile's activation filter, and progressive
// disclosure. The loop reads Tools before every step. It is safe for
// concurrent use.
type Manager struct {
	log *slog.Logger

	mu          sync.Mutex
	opts        Options                        // guarded by mu
	builtin     map[string]loop.ExecutableTool // guarded by mu
	user        map[string]loop.ExecutableTool // guarded by mu
	deferUser   map[string]bool                // guarded by mu; user tools registered as deferred
	mcp         map[string]mcpEntry            // guarded by mu; qualified name → tool
	enabled     map[string]bool                // guarded by mu; nil: every builtin (no profile yet)
	disabled    map[string]bool                // guarded by mu
	mcpAllow    []string                       // guarded by mu
	mcpDeny     []string                       // guarded by mu
	pendingLoad map[string]bool                // guarded by mu
}

type mcpEntry struct {
	tool   loop.ExecutableTool
	server string
}

// New returns a manager with its builtin table built.
func New(opts Options) *Manager {
	opts.Base = opts.Base.withDefaults()
	if opts.Store == nil {
		opts.Store = NewStore()
	}
	if opts.Context == nil {
		opts.Context, _ = opts.Committer.(ContextAppender)
	}
	m := &Manager{log: opts.Logger, opts: opts, user: map[string]loop.ExecutableTool{}, deferUser: map[string]bool{},
		mcp: map[string]mcpEntry{}, disabled: map[string]bool{}, pendingLoad: map[string]bool{}}
	m.builtin = m.buildBuiltins()
	return m
}

// Store is the tool store; the agent applies recorded updates to it.
func (m *Manager) Store() *Store { return m.opts.Store }

// buildBuiltins constructs the builtin tools registered under the current
// options (spec 05 §2.2); the caller holds mu or owns m.
func (m *Manager) buildBuiltins() map[string]loop.ExecutableTool {
	o := m.opts
	text := o.Base
	if o.TextFiles != nil {
		text.Env = o.TextFiles
	}
	tools := []loop.ExecutableTool{
		NewReadFile(text),
		NewWriteFile(text),
		NewEditFile(text),
		NewGlob(o.Base),
		NewGrep(o.Base),
		NewBash(BashOptions{Base: o.Base, Background: o.Background, AllowBackground: m.allowBackground(),
			BackgroundTimeout: o.BackgroundTimeout, NoAutoBackground: o.NoAutoBackground, LogDir: o.BashLogDir,
			Starter: o.CommandStarter}),
		NewTodoList(TodoListOptions{Store: o.Store, Committer: o.Committer}),
	}
	if o.Plan != nil {
		tools = append(tools, NewEnterPlanMode(o.Plan), NewExitPlanMode(o.Plan))
	}
	if o.Goals != nil {
		tools = append(tools, goalTools(o.Goals)...)
	}
	if o.Background != nil {
		tools = append(tools, NewTaskList(o.Background), NewTaskOutput(o.Background), NewTaskStop(o.Background))
	}
	if o.Cron != nil {
		tools = append(tools, NewCronCreate(o.Cron), NewCronList(o.Cron), NewCronDelete(o.Cron))
	}
	if o.Capability.ImageIn || o.Capability.VideoIn {
		tools = append(tools, NewReadMediaFile(ReadMediaFileOptions{Base: o.Base, ImageIn: o.Capability.ImageIn, VideoIn: o.Capability.VideoIn}))
	}
	if o.Questions != nil {
		tools = append(tools, NewAskUserQuestion(AskUserQuestionOptions{Asker: o.Questions,
			Background: o.Background, AllowBackground: m.allowBackground()}))
	}
	if o.Fetcher != nil {
		tools = append(tools, NewFetchURL(o.Fetcher))
	}
	if o.Subagents != nil && o.Background != nil {
		tools = append(tools, NewAgent(AgentOptions{Launcher: o.Subagents, Tasks: o.Background, AllowBackground: m.allowBackground()}))
	}
	if o.Swarm != nil {
		tools = append(tools, NewAgentSwarm(o.Swarm, o.SwarmMode))
	}
	if o.Context != nil {
		tools = append(tools, newSelectTools(m, o.Context))
		if o.Skills != nil && o.Skills.HasModelInvocable() {
			tools = append(tools, NewSkill(SkillOptions{Registry: o.Skills, Context: o.Context, Depth: o.SkillDepth,
				SessionID: o.SessionID}))
		}
	}
	out := make(map[string]loop.ExecutableTool, len(tools))
	for _, t := range tools {
		out[t.Definition().Name] = t
	}
	return out
}

// allowBackground: background tasks need the three task tools enabled.
// They exist when there is a task manager (the builtin table being built
// may not hold them yet).
func (m *Manager) allowBackground() bool {
	if m.opts.Background == nil {
		return false
	}
	if m.enabled == nil {
		return !m.disabled[NameTaskList] && !m.disabled[NameTaskOutput] && !m.disabled[NameTaskStop]
	}
	return m.exactEnabled(NameTaskList) && m.exactEnabled(NameTaskOutput) && m.exactEnabled(NameTaskStop)
}

func (m *Manager) exactEnabled(name string) bool {
	if m.disabled[name] {
		return false
	}
	if m.enabled == nil {
		_, builtin := m.builtin[name]
		_, user := m.user[name]
		return builtin || user
	}
	return m.enabled[name]
}

// SetActiveTools applies a profile's activation, and rebuilds the builtin
// table when it changes whether background runs are offered (Bash's,
// AskUserQuestion's and the Agent tool's definitions depend on it; nothing
// else in the table depends on the activation).
func (m *Manager) SetActiveTools(a ActiveTools) {
	m.mu.Lock()
	defer m.mu.Unlock()
	background := m.allowBackground()
	m.enabled, m.disabled, m.mcpAllow, m.mcpDeny = map[string]bool{}, map[string]bool{}, nil, nil
	for _, n := range a.Names {
		if strings.HasPrefix(n, "mcp__") {
			m.mcpAllow = append(m.mcpAllow, n)
		} else {
			m.enabled[n] = true
		}
	}
	for _, n := range a.Disallowed {
		if strings.HasPrefix(n, "mcp__") {
			m.mcpDeny = append(m.mcpDeny, n)
		} else {
			m.disabled[n] = true
		}
	}
	for n := range m.user { // registered user tools stay enabled
		m.enabled[n] = true
	}
	if m.allowBackground() != background {
		m.builtin = m.buildBuiltins()
	}
}

// SetWorkspace rebuilds the builtin table for a new working directory or
// new additional dirs.
func (m *Manager) SetWorkspace(ws workspace.Dirs) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.opts.Workspace = ws
	if ws.Dir != "" {
		m.opts.Env = m.opts.Env.WithCwd(ws.Dir)
	}
	m.opts.Base = m.opts.Base.withDefaults()
	m.builtin = m.buildBuiltins()
}

// SetCapability rebuilds the builtin table for another model.
func (m *Manager) SetCapability(c llm.Capability) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.opts.Capability = c
	m.builtin = m.buildBuiltins()
}

// RegisterUserTool adds a client-provided tool and enables it; deferred
// tools are loaded on demand when disclosure is on (spec 05 §2.3).
func (m *Manager) RegisterUserTool(t loop.ExecutableTool, deferred bool) {
	name := t.Definition().Name
	m.mu.Lock()
	defer m.mu.Unlock()
	m.user[name] = t
	m.deferUser[name] = deferred
	if m.enabled != nil {
		m.enabled[name] = true
	}
}

// UnregisterUserTool removes a user tool everywhere.
func (m *Manager) UnregisterUserTool(name string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.user, name)
	delete(m.deferUser, name)
	if m.enabled != nil {
		delete(m.enabled, name)
	}
}

// SetMCPTools replaces the tools of one MCP server; their names are
// already qualified (mcp__<server>__<tool>). A name another server holds
// is dropped and reported in the returned error.
func (m *Manager) SetMCPTools(server string, tools []loop.ExecutableTool) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.removeServer(server)
	var clashes []string
	for _, t := range tools {
		name := t.Definition().Name
		if _, taken := m.mcp[name]; taken {
			clashes = append(clashes, name)
			continue
		}
		m.mcp[name] = mcpEntry{tool: t, server: server}
	}
	if len(clashes) > 0 {
		return fmt.Errorf("mcp server %s: tool names already taken: %s", server, strings.Join(clashes, ", "))
	}
	return nil
}

// RemoveMCPServer drops every tool of server.
func (m *Manager) RemoveMCPServer(server string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.removeServer(server)
}

func (m *Manager) removeServer(server string) {
	for n, e := range m.mcp {
		if e.server == server {
			delete(m.mcp, n)
		}
	}
}

// DisclosureEnabled is the progressive-disclosure gate: the model loads
// tools dynamically and uses tools, and the experiment is on.
func (m *Manager) DisclosureEnabled() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.disclosure()
}

func (m *Manager) disclosure() bool {
	c := m.opts.Capability
	return c.DynamicallyLoadedTools && c.ToolUse && m.opts.ToolSelect
}

func (m *Manager) mcpEnabled(name string) bool {
	allowed := false
	for _, g := range m.mcpAllow {
		if workspace.NameMatches(g, name) {
			allowed = true
			break
		}
	}
	if m.enabled == nil {
		allowed = true // no profile yet: every connected server's tools
	}
	for _, g := range m.mcpDeny {
		if workspace.NameMatches(g, name) {
			return false
		}
	}
	return allowed
}

// exactNames are the enabled, not disabled, builtin and user names.
func (m *Manager) exactNames() []string {
	var out []string
	if m.enabled == nil {
		for n := range m.builtin {
			out = append(out, n)
		}
		for n := range m.user {
			out = append(out, n)
		}
	} else {
		for n := range m.enabled {
			out = append(out, n)
		}
	}
	return slices.DeleteFunc(out, func(n string) bool { return m.disabled[n] })
}

// Loadable is the set a model may load with select_tools: enabled MCP
// tools and registered, enabled deferred user tools; sorted.
func (m *Manager) Loadable() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []string
	for n := range m.mcp {
		if m.mcpEnabled(n) {
			out = append(out, n)
		}
	}
	for n, d := range m.deferUser {
		if d && m.exactEnabled(n) {
			out = append(out, n)
		}
	}
	sortNames(out)
	return out
}

// MarkPendingLoaded records names select_tools loaded before their schema
// message reached history.
func (m *Manager) MarkPendingLoaded(names []string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, n := range names {
		m.pendingLoad[n] = true
	}
}

// pendingLoaded lists the names MarkPendingLoaded recorded.
func (m *Manager) pendingLoaded() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]string, 0, len(m.pendingLoad))
	for n := range m.pendingLoad {
		out = append(out, n)
	}
	return out
}

// definitions are the full definitions of the named tools from the live
// registry (user > MCP > builtin), not marked deferred; unknown names are
// left out.
func (m *Manager) definitions(names []string) []llm.Tool {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []llm.Tool
	for _, n := range names {
		if t, _ := m.lookup(n); t != nil {
			d := t.Definition()
			d.Deferred = false
			out = append(out, d)
		}
	}
	return out
}

// ClearPendingLoaded forgets them (after /clear and compaction).
func (m *Manager) ClearPendingLoaded() {
	m.mu.Lock()
	defer m.mu.Unlock()
	clear(m.pendingLoad)
}

// Tools returns the executable table for the next step (spec 05 §2.5):
// loaded are the tool names whose schemas history carries. The table is
// sorted case-insensitively (ties by bytes); a name resolves user > MCP >
// builtin; with disclosure on, MCP and deferred user tools are marked
// Deferred (executable, but not offered at the top level).
func (m *Manager) Tools(loaded []string) []loop.ExecutableTool {
	m.mu.Lock()
	defer m.mu.Unlock()
	disclosure := m.disclosure()
	isLoaded := map[string]bool{}
	for _, n := range loaded {
		isLoaded[n] = true
	}
	for n := range m.pendingLoad {
		isLoaded[n] = true
	}
	names := map[string]bool{}
	for _, n := range m.exactNames() {
		if disclosure && m.deferUser[n] && !isLoaded[n] {
			continue
		}
		names[n] = true
	}
	for n := range m.mcp {
		if m.mcpEnabled(n) && (!disclosure || isLoaded[n]) {
			names[n] = true
		}
	}
	if disclosure && !m.disabled[NameSelectTools] {
		names[NameSelectTools] = true
	} else {
		delete(names, NameSelectTools)
	}
	sorted := make([]string, 0, len(names))
	for n := range names {
		sorted = append(sorted, n)
	}
	sortNames(sorted)
	var out []loop.ExecutableTool
	for _, n := range sorted {
		t, deferred := m.lookup(n)
		if t == nil {
			continue
		}
		if disclosure && deferred {
			t = deferredTool{t}
		}
		out = append(out, t)
	}
	return out
}

// lookup resolves a name user > MCP > builtin and says whether it is a
// deferrable (MCP or deferred user) tool.
func (m *Manager) lookup(name string) (loop.ExecutableTool, bool) {
	if t, ok := m.user[name]; ok {
		return t, m.deferUser[name]
	}
	if e, ok := m.mcp[name]; ok {
		return e.tool, true
	}
	return m.builtin[name], false
}

// sortNames orders tool names by their lower-case form, ties by bytes
// (spec 05 §11.2).
func sortNames(names []string) {
	slices.SortFunc(names, func(a, b string) int { return cmp.Or(compareLower(a, b), strings.Compare(a, b)) })
}

// compareLower is strings.Compare(strings.ToLower(a), strings.ToLower(b))
// without building the lowered strings: UTF-8 keeps code point order, so
// comparing the lowered runes orders as comparing their encodings; an
// invalid byte lowers to U+FFFD in both.
func compareLower(a, b string) int {
	for a != "" && b != "" {
		ra, na := utf8.DecodeRuneInString(a)
		rb, nb := utf8.DecodeRuneInString(b)
		if la, lb := unicode.ToLower(ra), unicode.ToLower(rb); la != lb {
			return cmp.Compare(la, lb)
		}
		a, b = a[na:], b[nb:]
	}
	return cmp.Compare(len(a), len(b))
}

// deferredTool marks a tool's definition Deferred.
type deferredTool struct{ loop.ExecutableTool }

func (d deferredTool) Definition() llm.Tool {
	def := d.ExecutableTool.Definition()
	def.Deferred = true
	return def
}

// MissingToolDescriber returns the loop's DescribeMissingTool for a step
// whose history loaded the given names: with disclosure on it explains
// tools that must be loaded first or have gone away; otherwise it defers
// to the loop's default wording.
func (m *Manager) MissingToolDescriber(loaded []string) func(string) (string, bool) {
	return func(name string) (string, bool) {
		m.mu.Lock()
		defer m.mu.Unlock()
		if !m.disclosure() {
			return "", false
		}
		wasLoaded := slices.Contains(loaded, name) || m.pendingLoad[name]
		_, isMCP := m.mcp[name]
		switch {
		case !wasLoaded && ((isMCP && m.mcpEnabled(name)) || (m.deferUser[name] && m.exactEnabled(name))):
			return fmt.Sprintf(`Tool %q is available but not loaded. Call select_tools with [%q] first, then call the tool.`, name, name), true
		case wasLoaded && strings.HasPrefix(name, "mcp__"):
			return fmt.Sprintf("Tool %q belongs to an MCP server that is currently disconnected. Do not retry it right away.", name), true
		case wasLoaded:
			return fmt.Sprintf("Tool %q is no longer registered or active. Do not retry it unless it becomes available again.", name), true
		}
		return "", false
	}
}

// ToolSource says where a tool comes from.
type ToolSource string

// Tool sources.
const (
	SourceBuiltin ToolSource = "builtin"
	SourceUser    ToolSource = "user"
	SourceMCP     ToolSource = "mcp"
)

// ToolInfo describes one registered tool for UIs (spec 05 §2.8).
type ToolInfo struct {
	Name        string     `json:"name"`
	Description string     `json:"description"`
	Active      bool       `json:"active"`
	Source      ToolSource `json:"source"`
}

// Infos lists every registered tool, sorted like the table.
func (m *Manager) Infos() []ToolInfo {
	m.mu.Lock()
	defer m.mu.Unlock()
	exact := map[string]bool{}
	for _, n := range m.exactNames() {
		exact[n] = true
	}
	var out []ToolInfo
	add := func(t loop.ExecutableTool, active bool, src ToolSource) {
		d := t.Definition()
		out = append(out, ToolInfo{Name: d.Name, Description: d.Description, Active: active, Source: src})
	}
	for n, t := range m.builtin {
		if _, shadowed := m.user[n]; !shadowed {
			active := exact[n]
			if n == NameSelectTools {
				active = m.disclosure() && !m.disabled[n]
			}
			add(t, active, SourceBuiltin)
		}
	}
	for n, t := range m.user {
		add(t, exact[n], SourceUser)
	}
	for n, e := range m.mcp {
		add(e.tool, m.mcpEnabled(n), SourceMCP)
	}
	slices.SortFunc(out, func(a, b ToolInfo) int {
		return cmp.Or(strings.Compare(strings.ToLower(a.Name), strings.ToLower(b.Name)), strings.Compare(a.Name, b.Name))
	})
	return out
}
