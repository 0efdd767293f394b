package session

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/kimigo/kimigo/config"
	"github.com/kimigo/kimigo/osenv"
	"github.com/kimigo/kimigo/profile"
	"github.com/kimigo/kimigo/profile/agentfile"
)

// profileSetup is a new session's profile and system prompt.
type profileSetup struct {
	catalog   *profile.Catalog
	profile   *profile.Profile
	subagents []string
	prompt    string
}

// profileInput is what a profile is resolved from.
type profileInput struct {
	env        osenv.Env
	cfg        *config.Config
	home       string // the data root
	workDir    string
	addDirs    []string
	agent      string   // --agent
	agentFiles []string // --agent-file
	builtin    func() (*profile.Catalog, error)
	warn       func(string)
	// sandbox is the command sandbox the prompt states.
	sandbox profile.SandboxInfo
	skills  string // the model's skill listing (spec 05 §9.4)
}

// resolveProfile loads the agent files, picks the main agent's profile
// (--agent, else the one --agent-file defines, else the default) and
// renders its system prompt (spec 05 §8). The prompt context is gathered
// while the profiles load.
func resolveProfile(ctx context.Context, in profileInput) (profileSetup, error) {
	type gathered struct {
		pc       profile.PromptContext
		warnings []profile.Warning
		err      error
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	pcDone := make(chan gathered, 1)
	go func() {
		pc, warnings, err := profile.PrepareContext(ctx, in.env, in.workDir, in.addDirs, in.home)
		pcDone <- gathered{pc, warnings, err}
	}()
	catalog, prof, err := loadProfile(in)
	g := <-pcDone
	if err != nil {
		return profileSetup{}, err
	}
	if g.err != nil {
		return profileSetup{}, fmt.Errorf("gather the prompt context: %w", g.err)
	}
	for _, w := range g.warnings {
		in.warn(w.Message)
	}
	g.pc.Sandbox = in.sandbox
	g.pc.Skills = in.skills
	prompt, err := prof.SystemPrompt(g.pc)
	if err != nil {
		return profileSetup{}, fmt.Errorf("render the system prompt of %s: %w", prof.Name, err)
	}
	var subagents []string
	for _, d := range catalog.Delegates(prof.Name) {
		subagents = append(subagents, d.Name)
	}
	return profileSetup{catalog: catalog, profile: prof, subagents: subagents, prompt: prompt}, nil
}

// loadProfile builds the session's profile catalog, the built-in profiles
// with the agent files, and resolves the main agent's profile in it.
func loadProfile(in profileInput) (*profile.Catalog, *profile.Profile, error) {
	builtin, err := in.builtin()
	if err != nil {
		return nil, nil, fmt.Errorf("load the built-in profiles: %w", err)
	}
	if err := checkAgentFiles(in.env, in.agentFiles, in.workDir); err != nil {
		return nil, nil, err
	}
	loaded, err := agentfile.Load(in.env, builtin, agentfile.Options{WorkDir: in.workDir, DataHome: in.home,
		ExtraDirs: in.cfg.ExtraAgentDirs, Explicit: in.agentFiles})
	if err != nil {
		return nil, nil, err
	}
	for _, w := range loaded.Warnings {
		in.warn(w.Message)
	}
	name := in.agent
	if name == "" {
		name = loaded.Selected
	}
	prof, err := loaded.Catalog.Resolve(name)
	return loaded.Catalog, prof, err
}

// loadCatalog builds the session's profile catalog alone: a resumed
// session's, for its subagents. Agent-file warnings were said when the
// session was created and are not repeated.
func loadCatalog(in profileInput) (*profile.Catalog, error) {
	builtin, err := in.builtin()
	if err != nil {
		return nil, fmt.Errorf("load the built-in profiles: %w", err)
	}
	loaded, err := agentfile.Load(in.env, builtin, agentfile.Options{WorkDir: in.workDir, DataHome: in.home,
		ExtraDirs: in.cfg.ExtraAgentDirs, Explicit: in.agentFiles})
	if err != nil {
		return nil, err
	}
	return loaded.Catalog, nil
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
			return &InputError{Err: fmt.Errorf("Failed to read agent file %q: %w", f, err)}
		}
		if _, err := agentfile.Parse(p, agentfile.SourceExplicit, data); err != nil {
			//lint:ignore ST1005 the wording is spec 06 §1.4's
			return fmt.Errorf("Invalid agent file %q: %w", f, err)
		}
	}
	return nil
}

// startBuiltinProfiles builds the built-in profiles on their own
// goroutine and returns a function that waits for the result. They depend
// on nothing the session reads, and building them (their definitions are
// compiled in, but the system prompt template is parsed) is CPU work that
// can overlap the store lookups and local.toml instead of following them.
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
