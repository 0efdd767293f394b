package hooks

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/kimigo/kimigo/osenv"
)

// Options configure an Engine. The zero value runs no hooks.
type Options struct {
	// Hooks are the configured hooks in definition order (config.toml,
	// then plugins).
	Hooks []Hook
	// SessionID and Cwd go into every input; Cwd is also where commands
	// run unless a hook says otherwise.
	SessionID string
	Cwd       string
	// Trusted says the workspace is trusted: hooks from project files run
	// only then (ERRATA 38).
	Trusted bool
	// Env spawns the commands; nil means the local OS.
	Env osenv.Env
	// Logger receives failures and skipped hooks; nil discards.
	Logger *slog.Logger
	// OnTriggered and OnResolved observe every trigger (debug log,
	// telemetry); a panic in one is logged and changes nothing.
	OnTriggered func(event Event, matcher string, count int)
	OnResolved  func(event Event, matcher string, action Action, reason string, d time.Duration)
	// Now is the clock of durations; nil means time.Now.
	Now func() time.Time
}

// Engine runs a session's lifecycle hooks (spec 06 §6.2): it matches the
// hooks of an event, skips duplicates, runs the rest in parallel and
// aggregates their decisions. It knows nothing of agents: inputs in,
// decisions out. Every method is safe for concurrent use.
type Engine struct {
	o       Options
	log     *slog.Logger
	env     osenv.Env
	now     func() time.Time
	byEvent map[Event][]compiled

	root   context.Context // ends when Close gives up waiting
	cancel context.CancelFunc

	mu     sync.Mutex
	closed bool           // guarded by mu
	fired  sync.WaitGroup // FireAndForget triggers in flight; Add under mu
}

// New returns an engine for o. Hooks of unknown events are dropped (the
// configuration validates them first), and project hooks are dropped in an
// untrusted workspace.
func New(o Options) *Engine {
	e := &Engine{o: o, log: o.Logger, env: o.Env, now: o.Now, byEvent: map[Event][]compiled{}}
	if e.log == nil {
		e.log = slog.New(slog.DiscardHandler)
	}
	if e.env == nil {
		e.env = osenv.NewLocal(osenv.LocalOptions{})
	}
	if e.now == nil {
		e.now = time.Now
	}
	e.root, e.cancel = context.WithCancel(context.Background())
	for _, h := range o.Hooks {
		switch {
		case !h.Event.Valid():
			e.log.Warn("hook for an unknown event ignored", "event", string(h.Event), "command", h.Command)
			continue
		case h.Source == SourceProject && !o.Trusted:
			e.log.Info("project hook not run: the workspace is not trusted", "event", string(h.Event))
			continue
		}
		c := compile(h)
		if c.invalid {
			e.log.Warn("hook matcher is not a valid regular expression; the hook never runs",
				"event", string(h.Event), "matcher", h.Matcher)
		}
		e.byEvent[h.Event] = append(e.byEvent[h.Event], c)
	}
	return e
}

// Hooks lists the hooks the engine may run, in definition order.
func (e *Engine) Hooks() []Hook {
	var out []Hook
	for _, info := range events {
		for _, c := range e.byEvent[info.Event] {
			out = append(out, c.Hook)
		}
	}
	return out
}

// Has reports whether any hook is configured for event.
func (e *Engine) Has(event Event) bool { return len(e.byEvent[event]) > 0 }

// Matching returns the hooks of event whose matcher matches value, without
// duplicates (the same command in the same directory runs once), in
// definition order.
func (e *Engine) Matching(event Event, value string) []Hook {
	var out []Hook
	for _, c := range e.matching(event, value) {
		out = append(out, c.Hook)
	}
	return out
}

func (e *Engine) matching(event Event, value string) []compiled {
	var out []compiled
	seen := map[[2]string]bool{}
	for _, c := range e.byEvent[event] {
		if !c.matches(value) {
			continue
		}
		key := [2]string{e.dirOf(c.Hook), c.Command}
		if seen[key] {
			continue
		}
		seen[key] = true
		out = append(out, c)
	}
	return out
}

func (e *Engine) dirOf(h Hook) string {
	if h.Cwd != "" {
		return h.Cwd
	}
	return e.o.Cwd
}

// Trigger runs the hooks of event that match matcher, in parallel, and
// waits for them all. input holds the event's fields with camelCase keys
// (converted to snake_case for the command). Results keep definition
// order. When ctx ends the running commands are killed and their results
// allow. Any failure to prepare the trigger yields no results (fail-open).
func (e *Engine) Trigger(ctx context.Context, event Event, matcher string, input map[string]any) []Result {
	hooks := e.matching(event, matcher)
	if len(hooks) == 0 {
		return nil
	}
	data, err := encodeInput(event, e.o.SessionID, e.o.Cwd, input)
	if err != nil {
		e.log.Warn("hook input not encodable; hooks skipped", "event", string(event), "error", err)
		return nil
	}
	e.observe(func() { e.triggered(event, matcher, len(hooks)) })
	start := e.now()
	results := make([]Result, len(hooks))
	var wg sync.WaitGroup
	for i, h := range hooks {
		wg.Go(func() { results[i] = e.runSafely(ctx, h, data) })
	}
	wg.Wait()
	for _, r := range results {
		switch {
		case r.TimedOut:
			e.log.Warn("hook timed out; allowed", "event", string(event), "command", r.Hook.Command,
				"timeout_ms", r.Hook.timeout().Milliseconds())
		case r.Err != nil && r.Err != errCancelled:
			e.log.Warn("hook failed to run; allowed", "event", string(event), "command", r.Hook.Command, "error", r.Err)
		case r.Action == Allow && r.ExitCode != 0:
			e.log.Warn("hook failed; allowed", "event", string(event), "command", r.Hook.Command,
				"exit_code", r.ExitCode, "stderr", firstLine(r.Stderr))
		}
	}
	action, reason := Allow, ""
	if d := Decide(event, results); d != nil {
		action, reason = Block, d.Reason
	}
	e.observe(func() { e.resolved(event, matcher, action, reason, e.now().Sub(start)) })
	return results
}

// runSafely is the boundary where a panic in running one hook stops: it
// becomes an allowing result.
func (e *Engine) runSafely(ctx context.Context, h compiled, data []byte) (res Result) {
	defer func() {
		if r := recover(); r != nil {
			e.log.Error("hook runner panicked", "command", h.Command, "panic", fmt.Sprint(r))
			res = Result{Hook: h.Hook, Action: Allow, ExitCode: -1, Err: fmt.Errorf("panic: %v", r)}
		}
	}()
	return e.run(ctx, h, data)
}

// Decision is the aggregated block of a trigger.
type Decision struct {
	// Reason is the blocking hook's trimmed reason, or "Blocked by
	// <Event> hook" when it gave none.
	Reason string
	// Result is the blocking hook's result.
	Result Result
}

// Decide aggregates results (spec 06 §6.2): the first block in
// definition order decides; nil means allow.
func Decide(event Event, results []Result) *Decision {
	for _, r := range results {
		if r.Action != Block {
			continue
		}
		reason := strings.TrimSpace(r.Reason)
		if reason == "" {
			reason = fmt.Sprintf("Blocked by %s hook", event)
		}
		return &Decision{Reason: reason, Result: r}
	}
	return nil
}

// TriggerBlock runs the hooks like Trigger and returns the block
// decision, or nil when they allow.
func (e *Engine) TriggerBlock(ctx context.Context, event Event, matcher string, input map[string]any) *Decision {
	return Decide(event, e.Trigger(ctx, event, matcher, input))
}

// FireAndForget starts the hooks and returns at once. The engine tracks
// them so Close can wait for them briefly; after Close it starts nothing.
func (e *Engine) FireAndForget(event Event, matcher string, input map[string]any) {
	if len(e.byEvent[event]) == 0 {
		return
	}
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return
	}
	e.fired.Add(1)
	e.mu.Unlock()
	go func() { // owned by the engine: Close waits for it or cancels it
		defer e.fired.Done()
		e.Trigger(e.root, event, matcher, input)
	}()
}

// Close waits for the fire-and-forget hooks until ctx ends, then kills
// what still runs and waits for that. The engine starts nothing
// afterwards.
func (e *Engine) Close(ctx context.Context) error {
	e.mu.Lock()
	e.closed = true
	e.mu.Unlock()
	done := make(chan struct{})
	go func() { e.fired.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
		e.cancel()
		<-done
	}
	e.cancel()
	return nil
}

func (e *Engine) triggered(event Event, matcher string, n int) {
	if e.o.OnTriggered != nil {
		e.o.OnTriggered(event, matcher, n)
	}
}

func (e *Engine) resolved(event Event, matcher string, a Action, reason string, d time.Duration) {
	if e.o.OnResolved != nil {
		e.o.OnResolved(event, matcher, a, reason, d)
	}
}

// observe calls an observer; its panic is logged and changes nothing.
func (e *Engine) observe(f func()) {
	defer func() {
		if r := recover(); r != nil {
			e.log.Error("hook observer panicked", "panic", fmt.Sprint(r))
		}
	}()
	f()
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
