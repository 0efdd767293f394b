package session

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/kimigo/kimigo/agent"
	"github.com/kimigo/kimigo/agent/injection"
	"github.com/kimigo/kimigo/agent/permission"
	"github.com/kimigo/kimigo/agent/records"
	"github.com/kimigo/kimigo/config"
	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/mcp"
	"github.com/kimigo/kimigo/profile"
	"github.com/kimigo/kimigo/profile/skill"
	"github.com/kimigo/kimigo/tools"
	"github.com/kimigo/kimigo/workspace"
)

// plan is what the main agent of a session is built from, resolved
// before anything is written: a failure here creates and changes nothing.
type plan struct {
	// localDirs are .kimi-code/local.toml's additional dirs; the agent
	// works in them, the session's saved dirs and this run's addDirs.
	localDirs []string
	// addDirs are this run's --add-dir dirs, absolute.
	addDirs []string
	rules   []permission.Rule
	// model is a new session's model; a resumed session binds the one its
	// records saved (or Options.Model) after the replay.
	model config.Model
	// active is the profile's tool activation. A resumed agent's records
	// restore its own over it.
	active tools.ActiveTools
	// config is a new session's initial agent configuration; a resumed
	// agent's comes from its records.
	config agent.Config
	// refreshPrompt re-renders a new session's system prompt after a
	// compaction; nil keeps the prompt.
	refreshPrompt func(ctx context.Context) (string, error)
	// skills are the session's skills; their listing goes into a new
	// session's system prompt.
	skills *skill.Registry
	// mcpServers are the configured MCP servers (spec 06 §7.1).
	mcpServers []mcp.Server
	// created makes a new session's directories, state.json and index
	// line durable; the main agent's first records commit calls it.
	created func() error
	// catalog is the session's profiles, for its subagents: loaded with a
	// new session's profile, or when first needed.
	catalog func() (*profile.Catalog, error)
}

// prepare resolves, before the session opens, everything its main agent
// is built from: the workspace dirs, the permission rules, the model of a
// new session (or the -m of a resumed one) and a new session's profile and
// system prompt. Warnings go to o.Notify.
func prepare(ctx context.Context, o Options, resuming bool, builtin func() (*profile.Catalog, error)) (plan, error) {
	warn := func(msg string) { o.Notify(Notice{Text: msg, Warning: true}) }
	root := config.ProjectRoot(o.Env, o.WorkDir)
	local, warnings, err := config.LoadLocal(config.LocalOptions{FS: o.Env, ProjectRoot: root, UserHome: o.UserHome})
	for _, w := range warnings {
		warn(w.Message)
	}
	if err != nil {
		return plan{}, err
	}
	var p plan
	// A repository's own file widens the workspace only once the user
	// trusted the project (ERRATA 38).
	p.localDirs = trustedWidening(o.Store.fs, o.Home, root, local.Path, local.AdditionalDirs, warn)
	for _, d := range o.AddDirs {
		abs := d
		if !filepath.IsAbs(abs) {
			abs = filepath.Join(o.WorkDir, d)
		}
		abs = filepath.Clean(abs)
		if fi, err := o.Env.Stat(abs); err != nil || !fi.IsDir() {
			return plan{}, fmt.Errorf("--add-dir %s: %s is not an existing directory", d, abs)
		}
		p.addDirs = append(p.addDirs, abs)
	}
	p.mcpServers = loadMCP(o, warn)
	p.skills = loadSkills(o, warn)
	run, err := runRules(o.RunRules)
	if err != nil {
		return plan{}, err
	}
	p.rules = append(run, permissionRules(append(slices.Clone(o.Config.Permission), local.Rules...), warn)...)
	if err := p.selectModel(o, resuming); err != nil {
		return plan{}, err
	}
	dirs := union(p.localDirs, p.addDirs)
	in := profileInput{env: o.Env, cfg: o.Config, home: o.Home, workDir: o.WorkDir, addDirs: dirs,
		agent: o.Agent, agentFiles: o.AgentFiles, builtin: builtin, warn: warn,
		sandbox: o.Sandbox.promptInfo(), skills: p.skills.Listing()}
	p.catalog = sync.OnceValues(func() (*profile.Catalog, error) { return loadCatalog(in) })
	if resuming {
		catalog, err := builtin()
		var def *profile.Profile
		if err == nil {
			def, err = catalog.Resolve("")
		}
		if err != nil {
			return plan{}, fmt.Errorf("load the default profile: %w", err)
		}
		p.active = tools.ActiveTools{Names: def.Tools, Disallowed: def.DisallowedTools}
		return p, nil
	}
	ps, err := resolveProfile(ctx, in)
	if err != nil {
		return plan{}, err
	}
	p.catalog = func() (*profile.Catalog, error) { return ps.catalog, nil }
	p.active = tools.ActiveTools{Names: ps.profile.Tools, Disallowed: ps.profile.DisallowedTools}
	p.refreshPrompt = func(ctx context.Context) (string, error) { // after a compaction (spec 03 §6.14)
		pc, _, err := profile.PrepareContext(ctx, in.env, in.workDir, in.addDirs, in.home)
		if err != nil {
			return "", err
		}
		pc.Sandbox = in.sandbox
		pc.Skills = in.skills
		s, err := ps.profile.SystemPrompt(pc)
		return appendPrompt(s, o.AppendSystemPrompt), err
	}
	p.config = agent.Config{Cwd: o.WorkDir, ProfileName: ps.profile.Name, SubagentNames: ps.subagents,
		SystemPrompt: appendPrompt(ps.prompt, o.AppendSystemPrompt)}
	return p, nil
}

// selectModel resolves the model known before the session opens: a new
// session's (spec 06 §1.5), or the -m of a resumed one, which must exist.
// A resumed session without -m binds the model its records saved.
func (p *plan) selectModel(o Options, resuming bool) error {
	var err error
	switch {
	case o.Model != "":
		p.model, err = o.Config.Resolve(o.Model)
	case !resuming:
		var implicit bool
		p.model, implicit, err = o.Config.SelectModel("")
		if implicit {
			o.Notify(Notice{Text: o.Config.OfflineNoticeText()})
		}
	default:
		return nil
	}
	if err != nil {
		return err
	}
	if p.model.Transport == config.ProviderScripted {
		// The offline model reads its script now, so a bad KIMIGO_SCRIPT
		// fails before a session is created.
		if _, err := config.NewProvider(p.model, config.ProviderOptions{}); err != nil {
			return err
		}
	}
	return nil
}

// agentOptions builds the main agent's options for the opened session.
func (s *Session) agentOptions(o Options, p plan, persistence records.Persistence) (agent.Options, error) {
	home := agentHome(s.dir, MainAgentID)
	ws := workspace.Dirs{Dir: s.workDir, AdditionalDirs: union(p.localDirs, s.additional)}
	var model agent.ModelBinding
	if !s.resumed {
		var err error
		if model, err = s.models.bind(p.model, ""); err != nil {
			return agent.Options{}, err
		}
	}
	logger := s.logger
	s.env, s.ws, s.requests, s.textFiles, s.home = o.Env, ws, o.Requests, o.TextFiles, o.Home
	approver, questions := s.askers(MainAgentID)
	s.sandboxInfo = o.Sandbox.promptInfo()
	s.subs.children = map[string]*child{}
	s.subs.metaCond = sync.NewCond(&s.subs.mu)
	s.subs.catalogOnce = p.catalog
	s.host = newSubagentHost(s, MainAgentID)
	s.host.bind(p.config)
	rt := newRuntime(o.Config, s.store.fs, o.Env, home, s)
	s.rt = rt
	fetcher := tools.NewLocalFetcher(tools.FetcherOptions{}) // public addresses only
	s.fetcher = fetcher
	pm, gs, sm := s.modes(o, home)
	s.sandbox = newCommandSandbox(o.Sandbox, func() workspace.Dirs { return ws }, func(msg string) {
		logger.Warn("command sandbox unavailable", "err", msg)
		s.bus.Publish(event.Notice{Header: event.Header{AgentID: MainAgentID, TurnID: event.NoTurn},
			Level: event.NoticeWarning, Text: msg})
	})
	return agent.Options{
		ID:     MainAgentID,
		Model:  model,
		Models: s.models.resolve,
		Config: p.config,
		NewToolManager: func(c tools.StoreCommitter) *tools.Manager {
			to := s.toolOptions(ws, home, model, c, questions, logger)
			to.Plan, to.Goals, to.SwarmMode = pm, gs, sm
			to.Background, to.BackgroundTimeout, to.NoAutoBackground = rt.background, rt.bashTimeout, rt.noAutoBackground
			to.Cron = rt.cron
			to.Subagents, to.Swarm = s.host, swarmRunner{s.host}
			m := tools.New(to)
			m.SetActiveTools(p.active)
			s.mcpFollow = m.FollowMCP(s.mcp, func(err error) { logger.Warn("MCP tool dropped", "err", err) })
			return m
		},
		Env:         o.Env,
		HomeDir:     home,
		Persistence: persistence,
		Permission: &permission.Options{
			Workspace:  func() workspace.Dirs { return ws },
			Rules:      p.rules,
			Approver:   approver,
			RuleWriter: &config.UserRuleWriter{Home: o.Home},
			Unconfined: s.sandbox.Unconfined,
		},
		Compaction: agent.CompactionOptions{SystemPrompt: p.refreshPrompt},
		Plan:       pm,
		Goals:      gs,
		Swarm:      sm,
		Hooks:      agent.HookRunner(s.hooks),
		// The reminders: todo list, plan, permission mode and the tools
		// diff per step; the goal at turn boundaries.
		Injection: injection.New(injection.Options{
			PerStep: []injection.Injector{&injection.TodoReminder{}, pm.Reminder(), &injection.PermissionModeReminder{},
				injection.ToolsDiff{}},
			Boundary: []injection.Injector{gs.Reminder()}, Logger: logger}),
		Background: rt.background,
		Cron:       rt.cron,
		Events:     s.bus,
		Logger:     logger,
	}, nil
}

// toolOptions are the tool options every agent of the session shares (its
// files, model, records, sandbox, questions, skills and fetcher); the
// caller adds its modes, background tasks and subagent host.
func (s *Session) toolOptions(ws workspace.Dirs, home string, model agent.ModelBinding, c tools.StoreCommitter,
	questions tools.QuestionAsker, logger *slog.Logger) tools.Options {
	return tools.Options{
		Base:           tools.Base{Env: s.env, Workspace: ws, Logger: logger},
		TextFiles:      s.textFiles,
		Capability:     model.Capability,
		ToolSelect:     s.cfg.Experimental[toolSelectFlag],
		Committer:      c,
		BashLogDir:     filepath.Join(home, "tool-results"),
		CommandStarter: s.sandbox.Start,
		Questions:      questions,
		Skills:         s.skills,
		SessionID:      s.id,
		Fetcher:        s.fetcher,
	}
}

// askers are who answers an agent's approvals and questions: the front end
// when the session's requests are answered; otherwise nobody, so
// approvals are denied and questions dismissed.
func (s *Session) askers(id string) (permission.Approver, tools.QuestionAsker) {
	if s.requests != Answered {
		return nil, dismissAll{}
	}
	return requestApprover{s.broker, id}, requestQuestioner{s.broker, id}
}

// toolSelectFlag is the [experimental] flag that, with a model that can
// load tools during a turn, turns progressive disclosure on (spec 05
// §2.5).
const toolSelectFlag = "tool-select"

// permissionRules validates the rules of config.toml and local.toml for
// the permission chain; a malformed rule is dropped with a warning naming
// its file, line and fault (ERRATA 13).
func permissionRules(specs []config.PermissionRule, warn func(string)) []permission.Rule {
	in := make([]permission.RuleSpec, 0, len(specs))
	for _, r := range specs {
		in = append(in, permission.RuleSpec{Decision: string(r.Decision), Scope: r.Scope, Pattern: r.Pattern,
			Reason: r.Reason, Origin: permission.Origin(r.Origin), Source: r.Source, Line: r.Line})
	}
	rules, errs := permission.LoadRules(in, permission.LoadOptions{})
	for _, e := range errs {
		warn(e.Error())
	}
	return rules
}

// RuleProblems are the faults of rules a session would drop at load, one
// line each naming the file, line, rule and fault: what `kimigo doctor`
// reports beside the file's own checks.
func RuleProblems(specs []config.PermissionRule) []string {
	var out []string
	permissionRules(specs, func(msg string) { out = append(out, msg) })
	return out
}

// runRules validates the rules of this run's flags; the first malformed
// one is the error, naming the flag (its Source) and the fault.
func runRules(specs []config.PermissionRule) ([]permission.Rule, error) {
	var errs []error
	rules := permissionRules(specs, func(msg string) { errs = append(errs, errors.New(msg)) })
	if len(errs) > 0 {
		return nil, errs[0]
	}
	return rules, nil
}

// union is a followed by the entries of b it lacks.
func union(a, b []string) []string {
	out := slices.Clone(a)
	for _, d := range b {
		if !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	return out
}

// appendPrompt is the system prompt with the user's addition after a
// blank line; no addition leaves it as it is.
func appendPrompt(system, addition string) string {
	if strings.TrimSpace(addition) == "" {
		return system
	}
	return strings.TrimRight(system, "\n") + "\n\n" + strings.TrimSpace(addition) + "\n"
}
