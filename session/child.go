package session

// A subagent's life in the session: its id and state.json entry, its
// system prompt, building, opening, closing when idle and at the end.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/kimigo/kimigo/agent"
	"github.com/kimigo/kimigo/agent/injection"
	"github.com/kimigo/kimigo/agent/permission"
	planmode "github.com/kimigo/kimigo/agent/plan"
	"github.com/kimigo/kimigo/agent/records"
	"github.com/kimigo/kimigo/config"
	"github.com/kimigo/kimigo/profile"
	"github.com/kimigo/kimigo/tools"
	"github.com/kimigo/kimigo/workspace"
)

// allocateChild hands out the next free agent-<n> and records the child
// in the session's metadata (spec 05 §5.1); gen is the metadata
// generation to wait for before the child's entry is known to be on disk.
func (s *Session) allocateChild(parent string, swarmItem json.RawMessage) (id string, gen uint64, err error) {
	s.subs.mu.Lock()
	defer s.subs.mu.Unlock()
	if s.subs.closed {
		return "", 0, errMetaClosed
	}
	meta, err := s.agentMetaLocked()
	if err != nil {
		return "", 0, fmt.Errorf("record subagent: %w", err)
	}
	for {
		id = "agent-" + strconv.Itoa(s.subs.next)
		s.subs.next++
		_, live := s.subs.children[id]
		_, known := meta[id]
		if !live && !known {
			break
		}
	}
	p := parent
	gen = s.recordMetaLocked(id, AgentEntry{HomeDir: agentHome(s.dir, id), Type: AgentSub, ParentAgentID: &p, SwarmItem: swarmItem})
	return id, gen, nil
}

// childPromptContext is the prompt context of the children: the parent's
// work dir and additional dirs, gathered at the first spawn and reused.
func (s *Session) childPromptContext(ctx context.Context) (profile.PromptContext, error) {
	s.subs.ctxMu.Lock()
	defer s.subs.ctxMu.Unlock()
	if s.subs.pc != nil {
		return *s.subs.pc, nil
	}
	pc, _, err := profile.PrepareContext(ctx, s.env, s.workDir, s.ws.AdditionalDirs, s.store.root)
	if err != nil {
		return profile.PromptContext{}, fmt.Errorf("gather the subagent's prompt context: %w", err)
	}
	pc.Sandbox = s.sandboxInfo
	pc.Skills = s.skills.Listing()
	s.subs.pc = &pc
	return pc, nil
}

// childSystemPrompt renders prof's system prompt for the children's
// prompt context, once per profile.
func (s *Session) childSystemPrompt(prof *profile.Profile, pc profile.PromptContext) (string, error) {
	s.subs.ctxMu.Lock()
	defer s.subs.ctxMu.Unlock()
	if p, ok := s.subs.prompts[prof.Name]; ok {
		return p, nil
	}
	p, err := prof.SystemPrompt(pc)
	if err != nil {
		return "", fmt.Errorf("render the system prompt of %s: %w", prof.Name, err)
	}
	if s.subs.prompts == nil {
		s.subs.prompts = map[string]string{}
	}
	s.subs.prompts[prof.Name] = p
	return p, nil
}

// openChild returns child id, opening it from its records when it is not
// open; with claim, the child is claimed for a run (a running one
// refuses) before an idle close can take it.
func (s *Session) openChild(ctx context.Context, id, parent string, claim bool) (*child, error) {
	s.subs.openMu.Lock() // one open or close at a time: a child's records take one owner
	defer s.subs.openMu.Unlock()
	s.subs.mu.Lock()
	c, ok := s.subs.children[id]
	s.subs.mu.Unlock()
	if ok {
		if claim {
			if err := c.claim(); err != nil {
				return nil, err
			}
		}
		return c, nil
	}
	h := s.hostOf(parent)
	if h == nil {
		return nil, fmt.Errorf("Agent instance %q does not belong to this parent agent", id) //lint:ignore ST1005 the model reads it verbatim
	}
	c, err := s.buildChild(id, h, agent.ModelBinding{}, agent.Config{})
	if err != nil {
		return nil, err
	}
	if _, err := c.agent.Resume(ctx, agent.ResumeOptions{}); err != nil {
		s.dropChild(ctx, c)
		return nil, fmt.Errorf("resume subagent %s: %w", id, err)
	}
	c.host.bind(c.agent.Config())
	if claim {
		if err := c.claim(); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// closeIdleLater closes child c once its run ended, on its own goroutine,
// unless it is busy: an idle child costs nothing but its records, and a
// resume opens it again from them. The session's Close waits for it.
func (s *Session) closeIdleLater(c *child) {
	s.subs.mu.Lock()
	defer s.subs.mu.Unlock()
	if s.subs.closed {
		return // closeChildren closes it
	}
	s.subs.idleWG.Add(1)
	go func() {
		defer s.subs.idleWG.Done()
		s.closeIdle(c)
	}()
}

func (s *Session) closeIdle(c *child) {
	s.subs.openMu.Lock()
	defer s.subs.openMu.Unlock()
	c.mu.Lock()
	busy := c.running
	c.mu.Unlock()
	if busy || c.agent.HasActiveTurn() || len(c.bg.List(true)) > 0 {
		return
	}
	s.subs.mu.Lock()
	if s.subs.closed || s.subs.children[c.id] != c {
		s.subs.mu.Unlock()
		return
	}
	for _, o := range s.subs.children {
		if o.parentID == c.id {
			s.subs.mu.Unlock()
			return // an open grandchild needs c's host
		}
	}
	delete(s.subs.children, c.id)
	s.subs.mu.Unlock()
	if err := c.close(context.Background()); err != nil {
		s.logger.Warn("close idle subagent", "agent_id", c.id, "err", err)
	}
}

// hostOf is the subagent host of agent id: the main agent's or an opened
// child's.
func (s *Session) hostOf(id string) *subagentHost {
	if id == MainAgentID {
		return s.host
	}
	s.subs.mu.Lock()
	defer s.subs.mu.Unlock()
	if c, ok := s.subs.children[id]; ok {
		return c.host
	}
	return nil
}

// buildChild builds child id of h's owner on its home: its records, its
// tools (the session's MCP servers and skills, no cron, no goals), its
// background tasks, its own plan mode and its permission manager under
// the parent's. A resumed child (zero model) binds its model in Resume.
func (s *Session) buildChild(id string, h *subagentHost, model agent.ModelBinding, cfg agent.Config) (*child, error) {
	home := agentHome(s.dir, id)
	logger := s.logger.With("agent_id", id)
	persistence, err := records.OpenFile(records.FileOptions{FS: s.store.fs, Dir: home, Logger: logger,
		OnError: func(err error) { logger.Warn("subagent records write failed", "err", err) }})
	if err != nil {
		return nil, fmt.Errorf("open subagent %s: %w", id, err)
	}
	c := &child{id: id, parentID: h.owner, host: newSubagentHost(s, id), bg: newBackground(s.cfg, s.store.fs, home, s)}
	approver, questions := s.askers(id)
	ws := s.ws
	pm := planmode.New(planmode.Options{Env: s.env, HomeDir: home, Cwd: func() string { return ws.Dir }, Logger: logger})
	var parentPerm *permission.Manager
	if h.agent != nil {
		parentPerm = h.agent.Permission()
	}
	c.agent = agent.New(agent.Options{
		ID:     id,
		Model:  model,
		Models: s.models.resolve,
		Config: cfg,
		NewToolManager: func(cm tools.StoreCommitter) *tools.Manager {
			to := s.toolOptions(ws, home, model, cm, questions, logger)
			to.Plan = pm
			to.Background, to.BackgroundTimeout, to.NoAutoBackground = c.bg, s.rt.bashTimeout, s.rt.noAutoBackground
			to.Subagents = c.host
			m := tools.New(to)
			c.mcpFollow = m.FollowMCP(s.mcp, func(err error) { logger.Warn("MCP tool dropped", "err", err) })
			return m
		},
		Env:         s.env,
		HomeDir:     home,
		Persistence: persistence,
		Permission: &permission.Options{
			Workspace:  func() workspace.Dirs { return ws },
			Parent:     parentPerm,
			AgentType:  permission.AgentSub,
			Approver:   approver,
			RuleWriter: &config.UserRuleWriter{Home: s.home},
			Unconfined: s.sandbox.Unconfined,
		},
		Plan:  pm,
		Hooks: agent.HookRunner(s.hooks),
		Injection: injection.New(injection.Options{
			PerStep: []injection.Injector{&injection.TodoReminder{}, pm.Reminder(), &injection.PermissionModeReminder{},
				injection.ToolsDiff{}},
			Logger: logger}),
		Background: c.bg,
		Events:     s.bus,
		Logger:     logger,
	})
	c.host.agent = c.agent
	c.host.bind(cfg)
	s.subs.mu.Lock()
	if s.subs.closed {
		s.subs.mu.Unlock()
		_ = c.agent.Close(context.Background())
		return nil, errors.New("the session is closing")
	}
	s.subs.children[id] = c
	s.subs.mu.Unlock()
	return c, nil
}

// dropChild closes a child that could not be set up.
func (s *Session) dropChild(ctx context.Context, c *child) {
	s.subs.mu.Lock()
	delete(s.subs.children, c.id)
	s.subs.mu.Unlock()
	c.close(context.WithoutCancel(ctx))
}

func (c *child) close(ctx context.Context) error {
	err := c.agent.Close(ctx)
	if c.mcpFollow != nil {
		c.mcpFollow()
	}
	return err
}

// closeChildren closes every opened child, the deepest first; their
// records are flushed.
func (s *Session) closeChildren(ctx context.Context) error {
	s.subs.mu.Lock()
	s.subs.closed = true
	s.subs.mu.Unlock()
	s.subs.metaWG.Wait()
	s.subs.idleWG.Wait()
	s.subs.mu.Lock()
	cs := make([]*child, 0, len(s.subs.children))
	for _, c := range s.subs.children {
		cs = append(cs, c)
	}
	s.subs.mu.Unlock()
	slices.SortFunc(cs, func(a, b *child) int { return strings.Compare(b.id, a.id) })
	var err error
	for _, c := range cs {
		err = errors.Join(err, c.close(ctx))
	}
	return err
}
