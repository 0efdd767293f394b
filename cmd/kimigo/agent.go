package main

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"

	"github.com/kimigo/kimigo/agent"
	"github.com/kimigo/kimigo/agent/compaction"
	"github.com/kimigo/kimigo/agent/permission"
	"github.com/kimigo/kimigo/config"
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/osenv"
	"github.com/kimigo/kimigo/profile"
	"github.com/kimigo/kimigo/profile/agentfile"
	"github.com/kimigo/kimigo/session"
	"github.com/kimigo/kimigo/tools"
	"github.com/kimigo/kimigo/workspace"
)

// agentPlan is what the main agent of a run is built from. What can fail
// (the agent file, the profile, the prompt context) is resolved before the
// session opens, so a failure creates and changes nothing.
type agentPlan struct {
	env     osenv.Env
	home    string
	workDir string
	// localDirs are .kimi-code/local.toml's additional dirs; the session
	// adds its saved and this run's --add-dir dirs.
	localDirs []string
	// addDirs are this run's --add-dir dirs, absolute.
	addDirs []string
	rules   []permission.Rule
	// active is the profile's tool activation. A resumed agent's records
	// restore its own over it.
	active tools.ActiveTools
	// config is a new session's initial agent configuration; a resumed
	// agent's comes from its records.
	config agent.Config
	// budget and capability are the model's as far as they are known
	// before the session opens (see modelSlot).
	budget     llm.BudgetInputs
	capability llm.Capability
	slot       *modelSlot
	// loop is the config's loop_control: the compaction strategy reads
	// its reserve and trigger ratio (ERRATA 17).
	loop config.LoopControl
	// refreshPrompt re-renders a new session's system prompt after a
	// compaction; nil keeps the prompt.
	refreshPrompt func(ctx context.Context) (string, error)
	logs          *logFile
	logger        *slog.Logger
}

// options builds the agent's options for the session's setup: the
// session's callback (session.Options.Agent).
func (p *agentPlan) options(setup session.AgentSetup) agent.Options {
	p.logs.switchTo(filepath.Join(setup.SessionDir, "logs", "kimigo.log"))
	ws := workspace.Dirs{Dir: setup.WorkDir, AdditionalDirs: union(p.localDirs, setup.AdditionalDirs)}
	return agent.Options{
		Provider:   p.slot,
		Capability: &p.slot.capability,
		Budget:     p.budget,
		Config:     p.config,
		NewToolManager: func(c tools.StoreCommitter) *tools.Manager {
			m := tools.New(tools.Options{
				Base:       tools.Base{Env: p.env, Workspace: ws, Logger: p.logger},
				Capability: p.capability,
				Committer:  c,
				BashLogDir: filepath.Join(setup.Home, "tool-results"),
				Questions:  dismissQuestions{},
			})
			m.SetActiveTools(p.active)
			return m
		},
		Env: p.env,
		Permission: &permission.Options{
			Workspace:  func() workspace.Dirs { return ws },
			Rules:      p.rules,
			Approver:   approveAll{},
			RuleWriter: &config.UserRuleWriter{Home: p.home},
		},
		LoopControl: p.slot.loopControl,
		// The window is the bound model's capability (max_context_size,
		// KIMI_MODEL_MAX_CONTEXT_SIZE), read through the slot at every use.
		Compaction: agent.CompactionOptions{Strategy: compactionStrategy(p.loop), SystemPrompt: p.refreshPrompt},
		Logger:     p.logger,
	}
}

// compactionStrategy is the compaction strategy of loop_control: unset
// values keep the defaults.
func compactionStrategy(lc config.LoopControl) compaction.StrategyOptions {
	s := compaction.StrategyOptions{ReservedContextSize: lc.ReservedContextSize}
	if lc.CompactionTriggerRatio != nil {
		s.TriggerRatio = *lc.CompactionTriggerRatio
	}
	return s
}

// profileSetup is a new session's profile and system prompt.
type profileSetup struct {
	profile   *profile.Profile
	subagents []string
	prompt    string
}

// resolveProfile loads the agent files, picks the main agent's profile
// (--agent, else the one --agent-file defines, else the default) and
// renders its system prompt (spec 05 §8). builtin returns the built-in
// profiles (startBuiltinProfiles). The prompt context is gathered while
// the profiles load. Warnings go to warn.
func resolveProfile(ctx context.Context, o *options, builtin func() (*profile.Catalog, error), env osenv.Env,
	cfg *config.Config, home, workDir string, addDirs []string, warn func(string)) (profileSetup, error) {
	type gathered struct {
		pc       profile.PromptContext
		warnings []profile.Warning
		err      error
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	pcDone := make(chan gathered, 1)
	go func() {
		pc, warnings, err := profile.PrepareContext(ctx, env, workDir, addDirs, home)
		pcDone <- gathered{pc, warnings, err}
	}()
	catalog, prof, err := loadProfile(o, builtin, env, cfg, home, workDir, warn)
	g := <-pcDone
	if err != nil {
		return profileSetup{}, err
	}
	if g.err != nil {
		return profileSetup{}, fmt.Errorf("gather the prompt context: %w", g.err)
	}
	for _, w := range g.warnings {
		warn(w.Message)
	}
	prompt, err := prof.SystemPrompt(g.pc)
	if err != nil {
		return profileSetup{}, fmt.Errorf("render the system prompt of %s: %w", prof.Name, err)
	}
	var subagents []string
	for _, d := range catalog.Delegates(prof.Name) {
		subagents = append(subagents, d.Name)
	}
	return profileSetup{profile: prof, subagents: subagents, prompt: prompt}, nil
}

// loadProfile builds the session's profile catalog, the built-in profiles
// with the agent files, and resolves the main agent's profile in it.
func loadProfile(o *options, builtinCatalog func() (*profile.Catalog, error), env osenv.Env, cfg *config.Config,
	home, workDir string, warn func(string)) (*profile.Catalog, *profile.Profile, error) {
	builtin, err := builtinCatalog()
	if err != nil {
		return nil, nil, fmt.Errorf("load the built-in profiles: %w", err)
	}
	if err := checkAgentFiles(env, o.agentFiles, workDir); err != nil {
		return nil, nil, err
	}
	loaded, err := agentfile.Load(env, builtin, agentfile.Options{WorkDir: workDir, DataHome: home,
		ExtraDirs: cfg.ExtraAgentDirs, Explicit: o.agentFiles})
	if err != nil {
		return nil, nil, err
	}
	for _, w := range loaded.Warnings {
		warn(w.Message)
	}
	name := o.agent
	if name == "" {
		name = loaded.Selected
	}
	prof, err := loaded.Catalog.Resolve(name)
	return loaded.Catalog, prof, err
}

// checkAgentFiles reads and parses the --agent-file, so a failure has the
// wording of spec 06 §1.4 rule 4.
func checkAgentFiles(env osenv.Env, files []string, workDir string) error {
	for _, f := range files {
		p := f
		if !filepath.IsAbs(p) {
			p = filepath.Join(workDir, p)
		}
		data, err := env.ReadFile(p)
		if err != nil {
			//lint:ignore ST1005 the wording is spec 06 §1.4's
			return fmt.Errorf("Failed to read agent file %q: %w", f, err)
		}
		if _, err := agentfile.Parse(p, agentfile.SourceExplicit, data); err != nil {
			//lint:ignore ST1005 the wording is spec 06 §1.4's
			return fmt.Errorf("Invalid agent file %q: %w", f, err)
		}
	}
	return nil
}

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

// approveAll answers every approval request "approved, once": print mode
// runs in auto mode, where nothing should ask, and a policy that still
// asks is approved as spec 06 §1.6.1 step 5 says.
type approveAll struct{}

// RequestApproval implements permission.Approver.
func (approveAll) RequestApproval(context.Context, permission.ApprovalRequest) (permission.ApprovalResponse, error) {
	return permission.ApprovalResponse{Decision: permission.ApprovalApproved}, nil
}

// dismissQuestions answers every AskUserQuestion as dismissed: nobody can
// answer in print mode (spec 06 §1.6.1 step 5).
type dismissQuestions struct{}

// AskQuestions implements tools.QuestionAsker.
func (dismissQuestions) AskQuestions(context.Context, tools.QuestionRequest) (map[string]string, error) {
	return nil, nil
}

// startBuiltinProfiles parses the built-in profiles on their own
// goroutine and returns a function that waits for the result. They depend
// on nothing the run loads, and parsing them (YAML and templates) is the
// largest piece of CPU work before the session opens, so it overlaps the
// configuration load instead of following it.
func startBuiltinProfiles() func() (*profile.Catalog, error) {
	done := make(chan struct{})
	var c *profile.Catalog
	var err error
	go func() {
		defer close(done)
		c, err = profile.Builtin()
	}()
	return func() (*profile.Catalog, error) {
		<-done
		return c, err
	}
}
