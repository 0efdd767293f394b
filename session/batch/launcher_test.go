package batch_test

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/session/batch"
)

// The launcher of these tests plays the subagent host inside a
// testing/synctest bubble: each launch makes a child whose behaviour a
// script picks per task and attempt, on timers of the bubble's fake clock.

// behaviour is how one attempt's child runs.
type behaviour struct {
	// readyAfter is when the child sends its first request; < 0 never.
	readyAfter time.Duration
	// runFor is how long the run lasts before it ends.
	runFor time.Duration
	// err fails the run; nil completes it with the output "done <item>".
	err error
	// launchErr fails the launch itself: no child is made.
	launchErr error
	// launchFor is how long making the child takes.
	launchFor time.Duration
}

// launch is one call of the launcher, as the test sees it.
type launch struct {
	method  string // spawn, resume, retry
	agentID string
	index   int
	at      time.Duration
	prompt  string
}

// fakeLauncher implements batch.Launcher.
type fakeLauncher struct {
	t0     time.Time
	script func(t batch.Task, attempt int) behaviour

	mu         sync.Mutex
	launches   []launch
	attempts   map[int]int // task index → attempts so far
	running    int
	peak       int
	suspended  []string // agent ids
	inLaunch   int
	overlapped bool // two launches ran at once
}

func newLauncher(script func(t batch.Task, attempt int) behaviour) *fakeLauncher {
	return &fakeLauncher{t0: time.Now(), script: script, attempts: map[int]int{}}
}

func (f *fakeLauncher) Spawn(ctx context.Context, t batch.Task, r batch.Launch) (batch.Handle, error) {
	// Spawns run concurrently: the id follows the task, not the order.
	return f.run(ctx, "spawn", fmt.Sprintf("agent-%d", t.Index-1), t, r)
}

func (f *fakeLauncher) Resume(ctx context.Context, id string, t batch.Task, r batch.Launch) (batch.Handle, error) {
	return f.run(ctx, "resume", id, t, r)
}

func (f *fakeLauncher) Retry(ctx context.Context, id string, t batch.Task, r batch.Launch) (batch.Handle, error) {
	return f.run(ctx, "retry", id, t, r)
}

func (f *fakeLauncher) Suspended(t batch.Task, id, reason string) {
	if reason != batch.SuspendedReason {
		panic("suspended with reason " + reason)
	}
	f.mu.Lock()
	f.suspended = append(f.suspended, id)
	f.mu.Unlock()
}

func (f *fakeLauncher) run(ctx context.Context, method, id string, t batch.Task, r batch.Launch) (batch.Handle, error) {
	f.mu.Lock()
	n := f.attempts[t.Index]
	f.attempts[t.Index] = n + 1
	b := f.script(t, n)
	f.inLaunch++
	if f.inLaunch > 1 {
		f.overlapped = true
	}
	f.mu.Unlock()
	time.Sleep(b.launchFor) // the bubble's clock
	f.mu.Lock()
	f.inLaunch--
	f.launches = append(f.launches, launch{method: method, agentID: id, index: t.Index, at: time.Since(f.t0), prompt: t.Prompt})
	if b.launchErr != nil {
		f.mu.Unlock()
		return nil, b.launchErr
	}
	f.running++
	f.peak = max(f.peak, f.running)
	f.mu.Unlock()
	h := &fakeHandle{id: id, done: make(chan struct{})}
	go func() {
		defer close(h.done)
		defer func() { f.mu.Lock(); f.running--; f.mu.Unlock() }()
		if b.readyAfter >= 0 {
			select {
			case <-time.After(b.readyAfter):
				r.OnReady()
			case <-ctx.Done():
				h.err = context.Cause(ctx)
				return
			}
		}
		select {
		case <-time.After(b.runFor - max(0, b.readyAfter)):
			h.c, h.err = batch.Completion{Output: "done " + t.Item, Usage: llm.TokenUsage{Output: 1}}, b.err
		case <-ctx.Done():
			h.err = context.Cause(ctx)
		}
	}()
	return h, nil
}

type fakeHandle struct {
	id   string
	done chan struct{}
	c    batch.Completion
	err  error
}

func (h *fakeHandle) AgentID() string { return h.id }

func (h *fakeHandle) Wait() (batch.Completion, error) {
	<-h.done
	return h.c, h.err
}

// calls returns the launches so far.
func (f *fakeLauncher) calls() []launch {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]launch(nil), f.launches...)
}

// items makes n spawn tasks with items "i1"…"in" and indexes 1…n.
func items(n int) []batch.Task {
	ts := make([]batch.Task, n)
	for i := range ts {
		ts[i] = batch.Task{Kind: batch.KindSpawn, Profile: "coder", Index: i + 1, Item: fmt.Sprintf("i%d", i+1),
			Prompt: fmt.Sprintf("work on i%d", i+1)}
	}
	return ts
}

// rateLimit is a provider's 429 as the child's turn reports it.
var rateLimit = &llm.Error{Kind: llm.KindRateLimit, StatusCode: 429, Message: "429 Too many requests"}
