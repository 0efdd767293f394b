package main

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/kimigo/kimigo/agent"
	"github.com/kimigo/kimigo/agent/permission"
	"github.com/kimigo/kimigo/config"
	"github.com/kimigo/kimigo/internal/print"
	"github.com/kimigo/kimigo/osenv"
	"github.com/kimigo/kimigo/profile"
	"github.com/kimigo/kimigo/session"
	"github.com/kimigo/kimigo/tools"
)

// configure finds the work dir and the data root, makes sure the root and
// its config.toml exist, and loads the configuration with print mode's
// defaults (spec 06 §1.6.1 steps 2–3). Load warnings go to stderr.
func (r *printRun) configure() error {
	wd, err := r.p.getwd()
	if err != nil {
		return fmt.Errorf("find the working directory: %w", err)
	}
	r.workDir = wd
	userHome, _ := r.p.userHome() // unknown only matters without KIMIGO_HOME, and HomeDir says so
	home, err := config.HomeDir(r.env, userHome)
	if err != nil {
		return err
	}
	r.home = absolute(wd, home)
	r.logs.switchTo(filepath.Join(r.home, "logs", "kimigo.log"))
	if err := config.EnsureHome(osenv.LocalFS{}, r.home); err != nil {
		return err
	}
	cfg, warnings, err := config.Load(config.LoadOptions{Home: r.home, Env: r.env, Logger: r.logger})
	for _, w := range warnings {
		r.warn(w.Message, true)
	}
	if err != nil {
		return err
	}
	r.level.Set(logLevel(cfg.Env.LogLevel))
	r.cfg = cfg.WithPrintDefaults()
	return nil
}

// prepare resolves, before the session opens, everything the agent is
// built from: the workspace dirs, the permission rules, the model of a new
// session (or the --model of a resumed one) and a new session's profile
// and system prompt.
func (r *printRun) prepare(ctx context.Context, resume bool) error {
	userHome, _ := r.p.userHome()
	local, warnings, err := config.LoadLocal(config.LocalOptions{
		ProjectRoot: config.ProjectRoot(osenv.LocalFS{}, r.workDir), UserHome: userHome})
	for _, w := range warnings {
		r.warn(w.Message, true)
	}
	if err != nil {
		return err
	}
	var addDirs []string
	for _, d := range r.o.addDirs {
		p := absolute(r.workDir, d)
		if !isDir(p) {
			return fmt.Errorf("--add-dir %s: %s is not an existing directory", d, p)
		}
		addDirs = append(addDirs, p)
	}
	plan := &agentPlan{env: osenv.NewLocal(osenv.LocalOptions{Cwd: r.workDir}), home: r.home,
		workDir: r.workDir, localDirs: local.AdditionalDirs, addDirs: addDirs, slot: &modelSlot{},
		logs: r.logs, logger: r.logger, loop: r.cfg.LoopControl}
	plan.rules = permissionRules(append(append([]config.PermissionRule(nil), r.cfg.Permission...), local.Rules...),
		func(m string) { r.warn(m, true) })
	r.plan = plan
	if err := r.selectModel(resume); err != nil {
		return err
	}
	if resume {
		builtin, err := r.builtin()
		var def *profile.Profile
		if err == nil {
			def, err = builtin.Resolve("")
		}
		if err != nil {
			return fmt.Errorf("load the default profile: %w", err)
		}
		plan.active = tools.ActiveTools{Names: def.Tools, Disallowed: def.DisallowedTools}
		return nil
	}
	ps, err := resolveProfile(ctx, r.o, r.builtin, plan.env, r.cfg, r.home, r.workDir, union(local.AdditionalDirs, addDirs),
		func(m string) { r.warn(m, true) })
	if err != nil {
		return err
	}
	plan.active = tools.ActiveTools{Names: ps.profile.Tools, Disallowed: ps.profile.DisallowedTools}
	plan.refreshPrompt = func(ctx context.Context) (string, error) { // after a compaction (spec 03 §6.14)
		pc, _, err := profile.PrepareContext(ctx, plan.env, r.workDir, union(local.AdditionalDirs, addDirs), r.home)
		if err != nil {
			return "", err
		}
		return ps.profile.SystemPrompt(pc)
	}
	plan.config = agent.Config{Cwd: r.workDir, ModelAlias: r.model.Alias, ProfileName: ps.profile.Name,
		SubagentNames: ps.subagents, ThinkingEffort: r.model.InitialThinking(), SystemPrompt: ps.prompt}
	return nil
}

// selectModel resolves the model when it is known before the session
// opens: a new session's (spec 06 §1.5), or the --model of a resumed one.
// A resumed session without --model uses the alias its records saved,
// which bind resolves; until then the default model stands in for the
// budget and capability the agent is built with.
func (r *printRun) selectModel(resume bool) error {
	var err error
	switch {
	case r.o.modelSet:
		r.model, err = r.cfg.Resolve(r.o.model)
		r.fixed = true
	case !resume:
		var implicit bool
		r.model, implicit, err = r.cfg.SelectModel("")
		if implicit {
			r.warn(config.OfflineNotice, false)
		}
		r.fixed = true
	default:
		r.model, _, err = r.cfg.SelectModel("")
		if err != nil { // only a stand-in: the saved alias may not need it
			r.model, err = config.Model{}, nil
		}
	}
	if err != nil {
		return err
	}
	if r.fixed && r.model.Transport == config.ProviderScripted {
		// The offline model reads its script now, so a bad KIMIGO_SCRIPT
		// fails before a session is created.
		if _, err := config.NewProvider(r.model, config.ProviderOptions{}); err != nil {
			return err
		}
	}
	r.plan.budget, r.plan.capability = r.model.Budget, r.model.Capability
	return nil
}

// bind finishes the opened session: the model (a resumed session's saved
// alias unless --model switches it), a new session's tool activation, and
// auto permission mode for the run (spec 06 §1.4 rules 4–5).
func (r *printRun) bind(ctx context.Context, s *session.Session) error {
	a := s.Agent()
	m, effort := r.model, r.model.InitialThinking()
	if s.Resumed() {
		saved := a.Config()
		if !r.fixed {
			var err error
			if m, err = r.cfg.ResumeModel("", saved.ModelAlias); err != nil {
				return err
			}
		}
		if m.Alias == saved.ModelAlias && saved.ThinkingEffort != "" {
			effort = saved.ThinkingEffort
		} else {
			effort = m.InitialThinking()
		}
		if m.Alias != saved.ModelAlias {
			if err := a.UpdateConfig(ctx, agent.ConfigUpdate{ModelAlias: &m.Alias, ThinkingEffort: &effort}); err != nil {
				return err
			}
		}
	}
	p, err := config.NewProvider(m, config.ProviderOptions{Version: versionString(), SessionID: s.ID(),
		ThinkingEffort: effort, Logger: r.logger})
	if err != nil {
		return err
	}
	r.plan.slot.bind(m, p)
	if tm := a.ToolManager(); tm != nil && m.Capability != r.plan.capability {
		tm.SetCapability(m.Capability)
	}
	if !s.Resumed() {
		if err := a.Commit(ctx, tools.SetActiveToolsRecordType, r.plan.active); err != nil {
			return err
		}
	}
	if mode := a.Permission().Mode(); mode != permission.ModeAuto {
		if s.Resumed() {
			r.restoreMode = mode
		}
		return a.SetPermissionMode(ctx, permission.ModeAuto)
	}
	return nil
}

// providerHint says what to check when the model service refused the
// run's requests: the key on 401/403, the endpoint and model id on 404.
func providerHint(f *print.Failure, plan *agentPlan) string {
	if plan == nil {
		return ""
	}
	m := plan.slot.model()
	status, _ := f.Details["statusCode"].(int)
	env := m.ProviderName == config.EnvModelProviderID
	where := fmt.Sprintf("of [providers.%s] in %s", m.ProviderName, configPath(plan.home))
	switch {
	case status == 401 || status == 403 || f.Code == "provider.auth_error":
		if env {
			return fmt.Sprintf("the %s service at %s rejected the API key of the KIMI_MODEL_* model; check KIMI_MODEL_API_KEY",
				m.Transport, m.BaseURL)
		}
		return fmt.Sprintf("the %s service at %s rejected the API key of provider %q; check api_key %s",
			m.Transport, m.BaseURL, m.ProviderName, where)
	case status == 404:
		if env {
			return fmt.Sprintf("the %s service at %s has no model %q or no such endpoint; check KIMI_MODEL_BASE_URL and KIMI_MODEL_NAME",
				m.Transport, m.BaseURL, m.ModelID)
		}
		return fmt.Sprintf("the %s service at %s has no model %q or no such endpoint; check base_url %s and the model of [models.%s]",
			m.Transport, m.BaseURL, m.ModelID, where, m.Alias)
	}
	return ""
}

func configPath(home string) string {
	if home == "" {
		return "config.toml"
	}
	return config.ConfigFile(home)
}
