package session

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/kimigo/kimigo/agent"
	"github.com/kimigo/kimigo/agent/background"
	"github.com/kimigo/kimigo/agent/history"
	"github.com/kimigo/kimigo/agent/turn"
	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/hooks"
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/loop"
	"github.com/kimigo/kimigo/profile"
	"github.com/kimigo/kimigo/tools"
)

//go:embed subagent_continue.md
var continuationPrompt string

// shortHandoff is the length (in characters) under which a child is asked
// once more for a fuller summary (spec 05 §5.5 step 4).
const shortHandoff = 200

// hookTextMax is how much of a prompt or response a Subagent hook gets.
const hookTextMax = 500

// subagentTrigger is the system_trigger name of a child's prompts.
const subagentTrigger = "subagent"

// RateLimitError is a subagent run that ended on the provider's rate
// limit (spec 05 §5.5): the batch scheduler finds it with errors.As and
// retries the child later.
type RateLimitError struct {
	AgentID string
	Message string
}

func (e *RateLimitError) Error() string {
	if e.Message == "" {
		return "Subagent turn hit the provider's rate limit"
	}
	return "[" + event.CodeProviderRateLimit + "] " + e.Message
}

// SpawnOptions are one subagent run (spec 05 §5.1 "Run options").
type SpawnOptions struct {
	// Profile is a new child's profile name; resumes keep the child's.
	Profile string
	Prompt  string
	// Description labels the run for the user.
	Description string
	// ParentToolCallID and ParentTurnID place the run in the parent's
	// turn (the spawned event's header).
	ParentToolCallID string
	ParentTurnID     int
	// SwarmIndex and SwarmItem place a child in a swarm; SwarmItem is
	// kept in state.json.
	SwarmIndex *int
	SwarmItem  json.RawMessage
	// Background marks the run as a background one: a cancel of the
	// parent's turn does not reach it.
	Background bool
	// OnReady is called once, when the child's first model request got
	// its first answer (batch readiness).
	OnReady func()
	// SuppressRateLimitFailure keeps subagent.failed from being
	// published for a rate-limit or aborted run (queued swarm attempts).
	SuppressRateLimitFailure bool
}

// Completion is how a subagent run ended: its handoff and the child's
// total usage, or the error.
type Completion struct {
	Result string
	Usage  event.Usage
	Err    error
}

// SubagentHandle is a started subagent run.
type SubagentHandle struct {
	AgentID string
	Profile string
	Resumed bool
	done    chan struct{}
	c       Completion
}

// Done is closed when the run ended.
func (h *SubagentHandle) Done() <-chan struct{} { return h.done }

// Wait waits for the run's end, or ctx's.
func (h *SubagentHandle) Wait(ctx context.Context) (Completion, error) {
	select {
	case <-h.done:
		return h.c, nil
	case <-ctx.Done():
		return Completion{}, context.Cause(ctx)
	}
}

// subagents is the session's registry of child agents: the ones opened
// in this run, by id, and the next id to hand out.
type subagents struct {
	mu       sync.Mutex
	children map[string]*child // guarded by mu: opened children
	next     int               // guarded by mu: the next agent-<n> to try
	closed   bool              // guarded by mu

	openMu sync.Mutex     // serializes opening and idle-closing children
	idleWG sync.WaitGroup // idle closes under way

	ctxMu   sync.Mutex
	pc      *profile.PromptContext // guarded by ctxMu: the children's prompt context, gathered once
	prompts map[string]string      // guarded by ctxMu: rendered system prompts by profile

	catalogOnce func() (*profile.Catalog, error)

	// The agents of state.json (subagent_meta.go), guarded by mu.
	meta        map[string]AgentEntry
	metaGen     uint64 // entries added
	metaWritten uint64 // entries on disk (or failed: metaErr)
	metaErr     error
	metaWriting bool
	metaCond    *sync.Cond
	metaWG      sync.WaitGroup
}

// child is one opened subagent.
type child struct {
	id, parentID string
	agent        *agent.Agent
	host         *subagentHost
	bg           *background.Manager
	mcpFollow    func()

	mu         sync.Mutex
	running    bool                    // guarded by mu: a run holds the child
	background bool                    // guarded by mu
	cancel     context.CancelCauseFunc // guarded by mu: the running run's
}

// subagentHost is one agent's subagent host (spec 05 §5.1, §11.7): it
// spawns, resumes and retries that agent's children. It implements
// tools.SubagentLauncher for the agent's Agent tool.
type subagentHost struct {
	s     *Session
	owner string
	// agent is the owner; set right after it was built.
	agent *agent.Agent

	// The owner's profile and the subagent names its records keep (nil:
	// no restriction), kept here because the tool table asks for them
	// while the agent applies a record, under its lock.
	mu        sync.Mutex
	profile   string   // guarded by mu
	subagents []string // guarded by mu
}

// bind sets the owner's profile and delegation names from its
// configuration.
func (h *subagentHost) bind(cfg agent.Config) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.profile, h.subagents = cfg.ProfileName, slices.Clone(cfg.SubagentNames)
}

var _ tools.SubagentLauncher = (*subagentHost)(nil)

func newSubagentHost(s *Session, owner string) *subagentHost {
	return &subagentHost{s: s, owner: owner}
}

// catalog is the session's profiles: the built-in ones and the agent
// files.
func (s *Session) catalog() (*profile.Catalog, error) {
	if s.subs.catalogOnce == nil {
		return nil, errors.New("no agent profiles are loaded")
	}
	return s.subs.catalogOnce()
}

// delegates is the owner's delegatable set (spec 05 §5.2): its profile's
// subagents, or the default profile's, intersected with the names its
// records keep.
func (h *subagentHost) delegates() []*profile.Profile {
	c, err := h.s.catalog()
	if err != nil {
		return nil
	}
	h.mu.Lock()
	name, keep := h.profile, h.subagents
	h.mu.Unlock()
	if name == "" {
		name = profile.DefaultName
	}
	var out []*profile.Profile
	for _, p := range c.Delegates(name) {
		if keep == nil || slices.Contains(keep, p.Name) {
			out = append(out, p)
		}
	}
	return out
}

// Types implements tools.SubagentLauncher.
func (h *subagentHost) Types() []tools.SubagentType {
	var out []tools.SubagentType
	for _, p := range h.delegates() {
		out = append(out, tools.SubagentType{Name: p.Name, Description: p.Description, WhenToUse: p.WhenToUse,
			Tools: p.Tools, DisallowedTools: p.DisallowedTools})
	}
	return out
}

// Timeout implements tools.SubagentLauncher: KIMI_SUBAGENT_TIMEOUT_MS,
// else [subagent] timeout_ms, else two hours (spec 05 §5.8).
func (h *subagentHost) Timeout() time.Duration {
	if t := h.s.cfg.Subagent.TimeoutMs; t != nil {
		return time.Duration(*t) * time.Millisecond
	}
	return 2 * time.Hour
}

// ProfileOf implements tools.SubagentLauncher.
func (h *subagentHost) ProfileOf(id string) string {
	e, ok := h.s.agentEntry(id)
	if !ok || e.Type != AgentSub || e.ParentAgentID == nil || *e.ParentAgentID != h.owner {
		return ""
	}
	c, err := h.s.openChild(context.Background(), id, h.owner, false)
	if err != nil {
		return ""
	}
	return c.agent.Config().ProfileName
}

// Prepare implements tools.SubagentLauncher.
func (h *subagentHost) Prepare(ctx context.Context, req tools.SubagentRequest) (tools.SubagentRun, error) {
	turnID, err := strconv.Atoi(req.TurnID)
	if err != nil {
		turnID = event.NoTurn
	}
	o := SpawnOptions{Profile: req.Profile, Prompt: req.Prompt, Description: req.Description,
		ParentToolCallID: req.ToolCallID, ParentTurnID: turnID, Background: req.Background}
	var r *run
	if req.Resume != "" {
		r, err = h.prepareResume(ctx, req.Resume, o)
	} else {
		r, err = h.prepareSpawn(ctx, o)
	}
	if err != nil {
		return nil, err
	}
	return r, nil
}

// Spawn creates a child from o.Profile and runs o.Prompt in it on its own
// goroutine (spec 05 §5.3); the handle is returned once the child exists.
func (h *subagentHost) Spawn(ctx context.Context, o SpawnOptions) (*SubagentHandle, error) {
	r, err := h.prepareSpawn(ctx, o)
	if err != nil {
		return nil, err
	}
	return r.start(ctx), nil
}

// Resume runs o.Prompt in the owner's earlier child id, after its history
// (spec 05 §5.9).
func (h *subagentHost) Resume(ctx context.Context, id string, o SpawnOptions) (*SubagentHandle, error) {
	r, err := h.prepareResume(ctx, id, o)
	if err != nil {
		return nil, err
	}
	return r.start(ctx), nil
}

// Retry runs the last turn of the owner's child id again, without a new
// prompt (spec 05 §5.9, the batch scheduler's retry).
func (h *subagentHost) Retry(ctx context.Context, id string, o SpawnOptions) (*SubagentHandle, error) {
	r, err := h.prepareResume(ctx, id, o)
	if err != nil {
		return nil, err
	}
	r.retry = true
	return r.start(ctx), nil
}

// prepareSpawn resolves the profile and the model, then creates the
// child with its metadata; nothing is created when either fails.
func (h *subagentHost) prepareSpawn(ctx context.Context, o SpawnOptions) (*run, error) {
	if err := ctx.Err(); err != nil {
		return nil, context.Cause(ctx)
	}
	var prof *profile.Profile
	for _, p := range h.delegates() {
		if p.Name == o.Profile {
			prof = p
		}
	}
	if prof == nil {
		return nil, fmt.Errorf("Subagent profile %q was not found", o.Profile) //lint:ignore ST1005 the model reads it verbatim
	}
	if h.agent == nil {
		return nil, errors.New("the parent agent is not ready")
	}
	// The child shares the parent's model binding: the same provider and
	// connections, alias and thinking effort (spec 05 §5.1, §5.14).
	model := h.agent.Model()
	if model.Provider == nil {
		return nil, fmt.Errorf("subagent model %q: no model is bound to the parent agent", model.Alias)
	}
	pc, err := h.s.childPromptContext(ctx)
	if err != nil {
		return nil, err
	}
	catalog, err := h.s.catalog()
	if err != nil {
		return nil, err
	}
	var names []string
	for _, d := range catalog.Delegates(prof.Name) {
		names = append(names, d.Name)
	}
	if names == nil {
		names = []string{}
	}
	system, err := h.s.childSystemPrompt(prof, pc)
	if err != nil {
		return nil, err
	}
	id, gen, err := h.s.allocateChild(h.owner, o.SwarmItem)
	if err != nil {
		return nil, err
	}
	cfg := agent.Config{Cwd: h.agent.Config().Cwd, ModelAlias: model.Alias, ThinkingEffort: model.ThinkingEffort,
		ProfileName: prof.Name, SubagentNames: names, SystemPrompt: system}
	if cfg.Cwd == "" {
		cfg.Cwd = h.s.workDir
	}
	c, err := h.s.buildChild(id, h, model, cfg)
	if err != nil {
		return nil, err
	}
	if err := c.agent.SetActiveTools(ctx, tools.ActiveTools{Names: prof.Tools, Disallowed: prof.DisallowedTools}); err != nil {
		h.s.dropChild(ctx, c)
		return nil, err
	}
	if err := c.claim(); err != nil {
		return nil, err
	}
	var git string
	if prof.Name == "explore" {
		git = profile.GitContext(ctx, h.s.env, cfg.Cwd).Block()
	}
	return &run{h: h, c: c, o: o, profile: prof.Name, git: git, metaGen: gen}, nil
}

// prepareResume checks that id is the owner's child and idle, and opens
// it from its records when this run has not yet.
func (h *subagentHost) prepareResume(ctx context.Context, id string, o SpawnOptions) (*run, error) {
	if err := ctx.Err(); err != nil {
		return nil, context.Cause(ctx)
	}
	e, ok := h.s.agentEntry(id)
	if !ok || e.Type != AgentSub {
		return nil, fmt.Errorf("Agent instance %q is not a subagent", id) //lint:ignore ST1005 the model reads it verbatim
	}
	if e.ParentAgentID == nil || *e.ParentAgentID != h.owner {
		return nil, fmt.Errorf("Agent instance %q does not belong to this parent agent", id) //lint:ignore ST1005 the model reads it verbatim
	}
	c, err := h.s.openChild(ctx, id, h.owner, true)
	if err != nil {
		return nil, err
	}
	// The child follows the parent's current model.
	if pm := h.agent.Model(); pm.Alias != "" && c.agent.Model().Alias != pm.Alias {
		if err := c.agent.SetModel(ctx, pm.Alias); err != nil {
			c.release()
			return nil, fmt.Errorf("subagent model %q: %w", pm.Alias, err)
		}
	}
	name := c.agent.Config().ProfileName
	if name == "" {
		name = "subagent"
	}
	return &run{h: h, c: c, o: o, profile: name, resumed: true}, nil
}

// claim marks the child as held by a run; a running child refuses.
func (c *child) claim() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.running || c.agent.HasActiveTurn() {
		return fmt.Errorf("Agent instance %q is already running and cannot run concurrently", c.id) //lint:ignore ST1005 the model reads it verbatim
	}
	c.running = true
	return nil
}

func (c *child) release() {
	c.mu.Lock()
	c.running, c.cancel, c.background = false, nil, false
	c.mu.Unlock()
}

// run is one prepared subagent run; it implements tools.SubagentRun.
type run struct {
	h       *subagentHost
	c       *child
	o       SpawnOptions
	profile string
	git     string
	resumed bool
	retry   bool
	once    sync.Once
	metaGen uint64 // the child's metadata generation (0: already on disk)
}

var _ tools.SubagentRun = (*run)(nil)

func (r *run) AgentID() string        { return r.c.id }
func (r *run) Profile() string        { return r.profile }
func (r *run) Model() string          { return r.c.agent.Model().Alias }
func (r *run) ThinkingEffort() string { return r.c.agent.Model().ThinkingEffort }

// Abandon implements tools.SubagentRun.
func (r *run) Abandon() { r.once.Do(r.c.release) }

// Detached implements tools.SubagentRun.
func (r *run) Detached() {
	r.c.mu.Lock()
	r.c.background = true
	r.c.mu.Unlock()
}

// start runs the child on its own goroutine.
func (r *run) start(ctx context.Context) *SubagentHandle {
	hd := &SubagentHandle{AgentID: r.c.id, Profile: r.profile, Resumed: r.resumed, done: make(chan struct{})}
	go func() {
		defer close(hd.done)
		res, err := r.Run(ctx)
		hd.c = Completion{Result: res, Usage: r.c.agent.Usage(), Err: err}
	}()
	return hd
}

// Run implements tools.SubagentRun: spec 05 §5.3 steps 4–8, §5.4, §5.5.
func (r *run) Run(ctx context.Context) (string, error) {
	ran := false
	r.once.Do(func() { ran = true })
	if !ran {
		return "", errors.New("the subagent run was already used")
	}
	c, s := r.c, r.h.s
	runCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	c.mu.Lock()
	c.cancel, c.background = cancel, r.o.Background
	c.mu.Unlock()
	defer func() {
		c.release()
		s.closeIdleLater(c)
	}()
	parent := event.Header{AgentID: r.h.owner, TurnID: r.o.ParentTurnID}
	if !r.retry { // a retry is the same run again: only subagent.started (spec 05 §5.9)
		s.bus.Publish(event.SubagentSpawned{Header: parent, SubagentID: c.id, SubagentName: r.profile,
			ParentToolCallID: r.o.ParentToolCallID, ParentAgentID: r.h.owner, Description: r.o.Description,
			SwarmIndex: r.o.SwarmIndex, RunInBackground: r.o.Background, Resumed: r.resumed})
	}
	res, err := r.run(runCtx)
	if err != nil {
		var rl *RateLimitError
		quiet := r.o.SuppressRateLimitFailure && (errors.As(err, &rl) || runCtx.Err() != nil)
		if !quiet {
			s.bus.Publish(event.SubagentFailed{Header: parent, SubagentID: c.id, Error: err.Error()})
		}
		return "", err
	}
	s.bus.Publish(event.SubagentCompleted{Header: parent, SubagentID: c.id, ResultSummary: res,
		Usage: c.agent.Usage(), ContextTokens: c.agent.TokenCount()})
	if s.hooks != nil {
		s.hooks.FireAndForget(hooks.SubagentStop, r.profile, map[string]any{"agentName": r.profile,
			"response": cut(res, hookTextMax)})
	}
	return res, nil
}

func (r *run) run(ctx context.Context) (string, error) {
	c, s := r.c, r.h.s
	if s.hooks != nil && !r.retry {
		s.hooks.Trigger(ctx, hooks.SubagentStart, r.profile, map[string]any{"agentName": r.profile,
			"prompt": cut(r.o.Prompt, hookTextMax)})
	}
	prompt := r.o.Prompt
	if r.git != "" {
		prompt = r.git + "\n\n" + prompt
	}
	s.bus.Publish(event.SubagentStarted{Header: event.Header{AgentID: r.h.owner, TurnID: r.o.ParentTurnID}, SubagentID: c.id})
	// The child's state.json entry is on disk before its first record
	// is: a crash never leaves records no resume can find.
	if err := s.waitMeta(r.metaGen); err != nil {
		return "", err
	}
	origin := &history.Origin{Kind: history.OriginSystemTrigger, Name: subagentTrigger}
	var l turn.Launch
	var err error
	if r.retry {
		l, err = c.agent.Retry(ctx, "agent-host")
	} else {
		l, err = c.agent.Prompt(ctx, []llm.ContentPart{llm.TextPart(prompt)}, origin)
	}
	if err != nil {
		return "", err
	}
	if !l.Launched {
		return "", fmt.Errorf("Agent instance %q could not start a turn", c.id) //lint:ignore ST1005 the model reads it verbatim
	}
	if r.o.OnReady != nil {
		go func() {
			if c.agent.WaitForFirstRequest(ctx) == nil {
				r.o.OnReady()
			}
		}()
	}
	if err := r.wait(ctx); err != nil {
		return "", err
	}
	res := handoff(c.agent.History())
	if utf8.RuneCountInString(res) < shortHandoff {
		l, err := c.agent.Prompt(ctx, []llm.ContentPart{llm.TextPart(strings.TrimSpace(continuationPrompt))}, origin)
		if err != nil {
			return "", err
		}
		if !l.Launched {
			return "", fmt.Errorf("Agent instance %q could not start a turn", c.id) //lint:ignore ST1005 the model reads it verbatim
		}
		if err := r.wait(ctx); err != nil {
			return "", err
		}
		res = handoff(c.agent.History())
	}
	return res, nil
}

// wait waits for the child's turn and maps how it ended (spec 05 §5.5
// step 1), then drains the child's background tasks (step 2).
func (r *run) wait(ctx context.Context) error {
	a := r.c.agent
	res, err := a.WaitForCurrentTurn(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return context.Cause(ctx)
		}
		return err
	}
	if err := r.outcome(res); err != nil {
		return err
	}
	for {
		for _, t := range r.c.bg.List(false) {
			r.c.bg.Suppress(t.TaskID)
		}
		if err := r.c.bg.WaitForActive(ctx, nil); err != nil {
			return err
		}
		for _, t := range r.c.bg.List(false) {
			r.c.bg.Suppress(t.TaskID)
		}
		if !a.HasActiveTurn() {
			return nil
		}
		res, err := a.WaitForCurrentTurn(ctx)
		if err != nil {
			return err
		}
		if err := r.outcome(res); err != nil {
			return err
		}
	}
}

// outcome maps a child's turn end to the run's error (spec 05 §5.5).
func (r *run) outcome(res turn.Result) error {
	ev := res.Event
	if ev.Reason == event.EndCompleted {
		if res.StopReason == loop.StopMaxTokens {
			return errors.New("Subagent turn failed before completing its final summary: reason=max_tokens.") //lint:ignore ST1005 the model reads it verbatim
		}
		return nil
	}
	if ev.Error != nil {
		switch ev.Error.Code {
		case event.CodeProviderFiltered:
			//lint:ignore ST1005 the model reads it verbatim
			return errors.New("Subagent turn blocked by provider safety policy")
		case event.CodeProviderRateLimit:
			return &RateLimitError{AgentID: r.c.id, Message: ev.Error.Message}
		}
		return fmt.Errorf("[%s] %s", ev.Error.Code, ev.Error.Message)
	}
	return fmt.Errorf("Subagent turn %s", ev.Reason) //lint:ignore ST1005 the model reads it verbatim
}

// handoff is the text of the last assistant message with non-blank text.
func handoff(h []history.Message) string {
	for i := len(h) - 1; i >= 0; i-- {
		m := h[i]
		if m.Role != llm.RoleAssistant {
			continue
		}
		var b strings.Builder
		for _, p := range m.Content {
			if p.Type == llm.PartText {
				b.WriteString(p.Text)
			}
		}
		if t := strings.TrimSpace(b.String()); t != "" {
			return t
		}
	}
	return ""
}

func cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n])
}
