package permission_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/kimigo/kimigo/agent/goal"
	"github.com/kimigo/kimigo/agent/permission"
	"github.com/kimigo/kimigo/agent/plan"
	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/loop"
	"github.com/kimigo/kimigo/osenv"
	"github.com/kimigo/kimigo/osenv/osenvtest"
	"github.com/kimigo/kimigo/tools"
	"github.com/kimigo/kimigo/workspace"
)

// The rig follows the conventions of spec 04 §10: cwd /repo, a git work
// tree (/repo/.git is a directory), home /home/u, POSIX, main agent, an
// approval channel, manual mode and no rules, unless an option says
// otherwise.

type rigConfig struct {
	rules       []permission.Rule
	mode        permission.Mode
	noGit       bool
	files       map[string]string
	dirs        []string
	addDirs     []string
	cwd         string
	slots       permission.Slots
	sideChannel bool
	parent      *permission.Manager
	agentType   permission.AgentType
	noApprover  bool
	hookResults []permission.HookResult
	win32       bool
	writer      permission.RuleWriter
	answers     []permission.ApprovalResponse
	quiet       bool
	plan        *planSetup
	goals       bool
	unconfined  func() error
	local       bool
}

type rigOption func(*rigConfig)

func withRules(rules ...permission.Rule) rigOption {
	return func(c *rigConfig) { c.rules = append(c.rules, rules...) }
}
func withMode(m permission.Mode) rigOption           { return func(c *rigConfig) { c.mode = m } }
func withoutGit() rigOption                          { return func(c *rigConfig) { c.noGit = true } }
func withFile(name, content string) rigOption        { return func(c *rigConfig) { c.files[name] = content } }
func withDir(name string) rigOption                  { return func(c *rigConfig) { c.dirs = append(c.dirs, name) } }
func withAddDir(d string) rigOption                  { return func(c *rigConfig) { c.addDirs = append(c.addDirs, d) } }
func withCwd(d string) rigOption                     { return func(c *rigConfig) { c.cwd = d } }
func withSlots(s permission.Slots) rigOption         { return func(c *rigConfig) { c.slots = s } }
func withSideChannel() rigOption                     { return func(c *rigConfig) { c.sideChannel = true } }
func withParent(p *permission.Manager) rigOption     { return func(c *rigConfig) { c.parent = p } }
func withAgentType(t permission.AgentType) rigOption { return func(c *rigConfig) { c.agentType = t } }
func withoutApprover() rigOption                     { return func(c *rigConfig) { c.noApprover = true } }
func withWin32() rigOption                           { return func(c *rigConfig) { c.win32 = true } }
func withWriter(w permission.RuleWriter) rigOption   { return func(c *rigConfig) { c.writer = w } }
func withHookBlock(reason string) rigOption {
	return func(c *rigConfig) { c.hookResults = []permission.HookResult{{Block: true, Reason: reason}} }
}

// quietly replaces the recording hook runner and telemetry with ones that
// keep nothing (benchmarks).
func quietly() rigOption { return func(c *rigConfig) { c.quiet = true } }

// onDisk runs the rig on the real file system, in work dir cwd (which
// must exist): symbolic links and /proc are real there.
func onDisk(cwd string) rigOption {
	return func(c *rigConfig) { c.local, c.cwd, c.noGit = true, cwd, true }
}

// withUnconfined says the promised sandbox is unavailable when err is set.
func withUnconfined(err error) rigOption {
	return func(c *rigConfig) { c.unconfined = func() error { return err } }
}

func withAnswers(rs ...permission.ApprovalResponse) rigOption {
	return func(c *rigConfig) { c.answers = append(c.answers, rs...) }
}

func rule(d permission.Decision, pattern string) permission.Rule {
	return permission.Rule{Decision: d, Scope: permission.ScopeUser, Pattern: pattern}
}

func ruleWithReason(d permission.Decision, pattern, reason string) permission.Rule {
	r := rule(d, pattern)
	r.Reason = reason
	return r
}

type rig struct {
	t        testing.TB
	ws       workspace.Dirs
	env      osenv.Env
	approver *approver
	hooks    *hookLog
	log      *recordLog
	tele     *telemetry
	m        *permission.Manager
	tools    map[string]loop.ExecutableTool
	calls    atomic.Int64
	plan     *plan.Mode  // withPlan…
	goals    *goal.Store // withGoals
}

func newRig(t testing.TB, opts ...rigOption) *rig {
	t.Helper()
	cfg := rigConfig{files: map[string]string{}, cwd: "/repo"}
	for _, o := range opts {
		o(&cfg)
	}
	mem := osenvtest.New(osenvtest.Options{Cwd: cfg.cwd, Home: "/home/u", Files: cfg.files})
	var env osenv.Env = mem
	if cfg.local {
		env = osenv.NewLocal(osenv.LocalOptions{Cwd: cfg.cwd, Home: "/home/u"})
	}
	if !cfg.noGit {
		mustMkdir(t, mem, "/repo/.git")
	}
	for _, d := range append(cfg.dirs, cfg.addDirs...) {
		mustMkdir(t, mem, d)
	}
	if cfg.win32 {
		env = win32Env{mem}
	}
	r := &rig{t: t, ws: workspace.Dirs{Dir: cfg.cwd, AdditionalDirs: cfg.addDirs}, env: env,
		approver: &approver{answers: cfg.answers}, hooks: &hookLog{results: cfg.hookResults},
		log: &recordLog{}, tele: &telemetry{}}
	r.buildModes(t, &cfg, env)
	o := permission.Options{
		Env:         env,
		Workspace:   func() workspace.Dirs { return r.ws },
		Rules:       cfg.rules,
		Parent:      cfg.parent,
		AgentType:   cfg.agentType,
		SideChannel: cfg.sideChannel,
		Slots:       cfg.slots,
		Hooks:       r.hooks,
		Approver:    r.approver,
		Recorder:    r.log,
		RuleWriter:  cfg.writer,
		Telemetry:   r.tele,
		Unconfined:  cfg.unconfined,
	}
	if cfg.noApprover {
		o.Approver = nil
	}
	if cfg.quiet {
		o.Hooks, o.Telemetry = discard{}, discard{}
	}
	r.m = permission.New(o)
	r.log.m = r.m
	if cfg.mode != "" {
		if err := r.m.SetMode(t.Context(), cfg.mode); err != nil {
			t.Fatal(err)
		}
	}
	base := tools.Base{Env: env, Workspace: r.ws}
	r.tools = map[string]loop.ExecutableTool{
		"Bash": tools.NewBash(tools.BashOptions{Base: base}), "Write": tools.NewWriteFile(base),
		"Edit": tools.NewEditFile(base), "Read": tools.NewReadFile(base), "Grep": tools.NewGrep(base),
		"Glob": tools.NewGlob(base), "FetchURL": tools.NewFetchURL(nil),
	}
	r.modeTools()
	return r
}

func mustMkdir(t testing.TB, env osenv.Env, dir string) {
	t.Helper()
	if err := env.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
}

// win32Env reports the Windows path class over an in-memory environment.
type win32Env struct{ *osenvtest.Env }

func (win32Env) PathClass() osenv.PathClass { return osenv.PathWin32 }

// resolve returns the execution a tool resolves for args: the real tool
// for the built-ins the rig has, a subject-less stand-in for the others.
func (r *rig) resolve(name, args string) (*loop.Execution, error) {
	tool, ok := r.tools[name]
	if !ok {
		return &loop.Execution{ApprovalRule: name}, nil
	}
	exec, res, err := tool.ResolveExecution(json.RawMessage(args))
	if err != nil {
		return nil, err
	}
	if res != nil {
		return nil, fmt.Errorf("resolve %s: %v", name, res.Output)
	}
	return &exec, nil
}

// call authorizes one call of name with args, alone in its batch.
func (r *rig) call(name, args string) (loop.Authorization, error) {
	r.t.Helper()
	exec, err := r.resolve(name, args)
	if err != nil {
		r.t.Fatalf("resolve %s %s: %v", name, args, err)
	}
	return r.callExec(name, args, exec)
}

// callExec authorizes a call with a given execution.
func (r *rig) callExec(name, args string, exec *loop.Execution) (loop.Authorization, error) {
	tc := llm.ToolCall{ID: fmt.Sprintf("c%d", r.calls.Add(1)), Name: name, Arguments: args}
	return r.m.Authorize(r.t.Context(), loop.ToolCtx{
		StepCtx:   loop.StepCtx{TurnID: "0", StepNumber: 1},
		TraceID:   "trace-1",
		ToolCall:  tc,
		ToolCalls: []llm.ToolCall{tc},
		Args:      json.RawMessage(args),
		Execution: exec,
	})
}

// callBatch authorizes every call of a batch in order.
func (r *rig) callBatch(calls ...llm.ToolCall) []loop.Authorization {
	r.t.Helper()
	var out []loop.Authorization
	for _, tc := range calls {
		exec, err := r.resolve(tc.Name, tc.Arguments)
		if err != nil {
			r.t.Fatal(err)
		}
		a, err := r.m.Authorize(r.t.Context(), loop.ToolCtx{StepCtx: loop.StepCtx{TurnID: "0", StepNumber: 1},
			ToolCall: tc, ToolCalls: calls, Args: json.RawMessage(tc.Arguments), Execution: exec})
		if err != nil {
			r.t.Fatal(err)
		}
		out = append(out, a)
	}
	return out
}

// decidedBy is the policy of the last decision.
func (r *rig) decidedBy() string {
	if d := r.tele.last(permission.EventPolicyDecision); d != nil {
		return d["policy_name"].(string)
	}
	return ""
}

func (r *rig) requests() int { return r.approver.count() }

// outcome classifies an authorization for table tests.
type outcome string

const (
	approved outcome = "approve"
	asked    outcome = "ask"
	denied   outcome = "deny"
	failed   outcome = "error"
	result   outcome = "result"
)

// judge runs one call and classifies what happened: an ask is an approval
// request (answered with the scripted answer, by default once).
func (r *rig) judge(name, args string) outcome {
	r.t.Helper()
	before := r.requests()
	a, err := r.call(name, args)
	return classify(a, err, r.requests() > before)
}

func classify(a loop.Authorization, err error, requested bool) outcome {
	switch {
	case err != nil:
		return failed
	case requested:
		return asked
	case a.Block:
		return denied
	case a.SyntheticResult != nil:
		return result
	}
	return approved
}

func wantBlock(t *testing.T, a loop.Authorization, err error, fragments ...string) {
	t.Helper()
	if err != nil || !a.Block {
		t.Fatalf("got %+v, %v; want a block", a, err)
	}
	for _, f := range fragments {
		if !strings.Contains(a.Reason, f) {
			t.Errorf("block reason %q does not contain %q", a.Reason, f)
		}
	}
}

func wantAllow(t *testing.T, a loop.Authorization, err error) {
	t.Helper()
	if err != nil || a.Block || a.SyntheticResult != nil {
		t.Fatalf("got %+v, %v; want the call allowed", a, err)
	}
}

// approver answers requests from a script; without one it approves once.
type approver struct {
	mu       sync.Mutex
	answers  []permission.ApprovalResponse
	reqs     []permission.ApprovalRequest
	err      error
	onCall   func(ctx context.Context) // runs while the request is open
	blocking bool                      // wait for ctx instead of answering
}

func (a *approver) RequestApproval(ctx context.Context, req permission.ApprovalRequest) (permission.ApprovalResponse, error) {
	a.mu.Lock()
	a.reqs = append(a.reqs, req)
	onCall, blocking, err := a.onCall, a.blocking, a.err
	var resp permission.ApprovalResponse
	if len(a.answers) > 0 {
		resp, a.answers = a.answers[0], a.answers[1:]
	} else {
		resp = answer(event.ApproveOnce)
	}
	a.mu.Unlock()
	if onCall != nil {
		onCall(ctx)
	}
	if blocking {
		<-ctx.Done()
		return permission.ApprovalResponse{}, ctx.Err()
	}
	return resp, err
}

func (a *approver) count() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.reqs)
}

func (a *approver) last() permission.ApprovalRequest {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.reqs[len(a.reqs)-1]
}

// hookLog records hook runs and answers Block with scripted results.
type hookLog struct {
	mu      sync.Mutex
	results []permission.HookResult
	events  []hookEvent
}

type hookEvent struct {
	event   permission.HookEvent
	matcher string
	input   map[string]any
}

func (h *hookLog) Block(_ context.Context, e permission.HookEvent, matcher string, input map[string]any) ([]permission.HookResult, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.events = append(h.events, hookEvent{e, matcher, input})
	return h.results, nil
}

func (h *hookLog) Fire(e permission.HookEvent, matcher string, input map[string]any) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.events = append(h.events, hookEvent{e, matcher, input})
}

func (h *hookLog) of(e permission.HookEvent) []hookEvent {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []hookEvent
	for _, ev := range h.events {
		if ev.event == e {
			out = append(out, ev)
		}
	}
	return out
}

// recordLog is the commit path: it keeps each record as its JSON, decodes
// it back the way a resume would and applies it.
type recordLog struct {
	mu   sync.Mutex
	m    *permission.Manager
	recs []storedRecord
	fail error
}

type storedRecord struct {
	Type permission.RecordType
	JSON string
}

func (l *recordLog) Commit(_ context.Context, p permission.Payload) error {
	if l.fail != nil {
		return l.fail
	}
	data, err := json.Marshal(p)
	if err != nil {
		return err
	}
	decoded, err := permission.DecodeRecord(p.RecordType(), data)
	if err != nil {
		return err
	}
	l.mu.Lock()
	l.recs = append(l.recs, storedRecord{p.RecordType(), string(data)})
	l.mu.Unlock()
	return l.m.Apply(decoded)
}

func (l *recordLog) of(t permission.RecordType) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, r := range l.recs {
		if r.Type == t {
			out = append(out, r.JSON)
		}
	}
	return out
}

// replay applies every stored record to m, as resume does.
func (l *recordLog) replay(t *testing.T, m *permission.Manager) {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, r := range l.recs {
		p, err := permission.DecodeRecord(r.Type, []byte(r.JSON))
		if err != nil {
			t.Fatal(err)
		}
		if err := m.Apply(p); err != nil {
			t.Fatal(err)
		}
	}
}

// telemetry records tracked events.
type telemetry struct {
	mu     sync.Mutex
	events []trackedEvent
}

type trackedEvent struct {
	name  string
	props map[string]any
}

func (t *telemetry) Track(event string, props map[string]any) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.events = append(t.events, trackedEvent{event, props})
}

func (t *telemetry) last(name string) map[string]any {
	t.mu.Lock()
	defer t.mu.Unlock()
	for i := len(t.events) - 1; i >= 0; i-- {
		if t.events[i].name == name {
			return t.events[i].props
		}
	}
	return nil
}

// fileRuleWriter is a RuleWriter over a real config file: it appends a
// [[permission.rules]] table, writing a temp file and renaming it over the
// target, the way the config layer must.
type fileRuleWriter struct {
	mu   sync.Mutex
	path string
}

func (w *fileRuleWriter) AddUserAllowRule(pattern string) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	old, err := os.ReadFile(w.path)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	quoted, _ := json.Marshal(pattern) // a TOML basic string accepts JSON escapes
	entry := fmt.Sprintf("\n[[permission.rules]]\ndecision = \"allow\"\nscope = \"user\"\npattern = %s\n", quoted)
	tmp, err := os.CreateTemp(filepath.Dir(w.path), filepath.Base(w.path)+".tmp.*")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(append(old, entry...)); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), w.path)
}

// discard is a hook runner and telemetry sink that keeps nothing.
type discard struct{}

func (discard) Block(context.Context, permission.HookEvent, string, map[string]any) ([]permission.HookResult, error) {
	return nil, nil
}
func (discard) Fire(permission.HookEvent, string, map[string]any) {}
func (discard) Track(string, map[string]any)                      {}

// answer is the response of choice c.
func answer(c event.Choice) permission.ApprovalResponse {
	r, err := permission.Response(event.ApprovalAnswer{Choice: c})
	if err != nil {
		panic(err) // a test named a choice that does not exist
	}
	return r
}
