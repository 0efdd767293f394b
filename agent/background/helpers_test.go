package background_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kimigo/kimigo/agent/background"
	"github.com/kimigo/kimigo/agent/history"
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/loop"
	"github.com/kimigo/kimigo/tools"
)

// recorder is the agent side of the manager in unit tests: it keeps what
// was steered and what was appended, in order. The agent's own tests run
// the manager inside a real agent.
type recorder struct {
	mu       sync.Mutex
	steered  []history.Message
	appended []history.Message
	fail     error
	events   []background.Event
}

func (r *recorder) Steer(_ context.Context, parts []llm.ContentPart, o *history.Origin) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.fail != nil {
		return r.fail
	}
	r.steered = append(r.steered, history.Message{Message: llm.Message{Role: llm.RoleUser, Content: parts}, Origin: o})
	return nil
}

func (r *recorder) AppendMessage(_ context.Context, m history.Message) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.appended = append(r.appended, m)
	return nil
}

func (r *recorder) Publish(background.Event) {} // events are collected through Options.Events

func (r *recorder) Notified(background.Notification) {}

func (r *recorder) event(ev background.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, ev)
}

func (r *recorder) steers() []history.Message {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]history.Message(nil), r.steered...)
}

func (r *recorder) eventTypes() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, e := range r.events {
		out = append(out, string(e.EventType()))
	}
	return out
}

func textOf(m history.Message) string { return llm.ExtractText(m.Message, "") }

// newManager builds a manager bound to a recorder.
func newManager(t *testing.T, o background.Options) (*background.Manager, *recorder) {
	t.Helper()
	r := &recorder{}
	if o.Events == nil {
		o.Events = r.event
	}
	m := background.New(o)
	m.Bind(r)
	t.Cleanup(func() {
		if err := m.Close(context.WithoutCancel(t.Context())); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	return m, r
}

// gated is an agent task that ends when the test says: release makes it
// return text (or err); with obey false it ignores its stop signal until
// released.
type gated struct {
	release chan result
	obey    bool
}

type result struct {
	text string
	err  error
}

func newGated(obey bool) *gated { return &gated{release: make(chan result, 1), obey: obey} }

func (g *gated) spec(desc string) background.AgentSpec {
	return background.AgentSpec{Description: desc, AgentID: "agent-child001", SubagentType: "coder",
		Run: func(ctx context.Context) (string, error) {
			stop := ctx.Done()
			if !g.obey {
				stop = nil
			}
			select {
			case r := <-g.release:
				return r.text, r.err
			case <-stop:
				return "", context.Cause(ctx)
			}
		}}
}

func (g *gated) finish(text string) { g.release <- result{text: text} }

func (g *gated) fail(msg string) { g.release <- result{err: errors.New(msg)} }

// mustRegister registers an agent task.
func mustRegister(t *testing.T, m *background.Manager, task background.Task, o background.RegisterOptions) *background.Handle {
	t.Helper()
	h, err := m.Register(task, o)
	if err != nil {
		t.Fatalf("register: %v", err)
	}
	return h
}

func wantStatus(t *testing.T, m *background.Manager, id string, want tools.TaskStatus) tools.TaskInfo {
	t.Helper()
	info, ok := m.Get(id)
	if !ok || info.Status != want {
		t.Fatalf("task %s = %+v (found %v); want status %s", id, info, ok, want)
	}
	return info
}

func contains(t *testing.T, s string, subs ...string) {
	t.Helper()
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			t.Errorf("missing %q in:\n%s", sub, s)
		}
	}
}

type loopResult = loop.ToolResult

func okResult(s string) loop.ToolResult  { return loop.TextResult(s) }
func errResult(s string) loop.ToolResult { return loop.ErrorResult(s) }

var _ = time.Second
