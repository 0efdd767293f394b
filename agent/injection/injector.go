package injection

import (
	"context"
	"sync"

	"github.com/kimigo/kimigo/agent/history"
	"github.com/kimigo/kimigo/tools"
)

// Host is the agent as injectors see it. Every method is safe for
// concurrent use; the manager holds no lock while calling one.
type Host interface {
	// History is a snapshot of the conversation.
	History() []history.Message
	// AppendMessage commits a message to history (context.append_message;
	// deferred while a tool exchange is open).
	AppendMessage(ctx context.Context, m history.Message) error
	// PermissionMode is the current permission mode (manual, auto, yolo).
	PermissionMode() string
	// ToolActive reports whether the named tool is in the agent's table.
	ToolActive(name string) bool
	// Todos is the current todo list.
	Todos() []tools.TodoItem
	// ActiveTasks are the background tasks still running.
	ActiveTasks() []tools.TaskInfo
	// LoadableTools are the tools select_tools may load, sorted; disclosure
	// is false when the model does not get progressively disclosed tools.
	LoadableTools() (names []string, disclosure bool)
}

// Injector adds a reminder to history when its condition holds (spec 04
// §8.1). Inject runs on the turn goroutine (or the compaction worker);
// the lifecycle callbacks run under the agent's state lock while history
// changes and must only update the injector's own state.
type Injector interface {
	Inject(ctx context.Context, h Host) error
	// OnClear and OnCompacted say history was cleared or compacted: the
	// injector's earlier reminder is gone.
	OnClear()
	OnCompacted()
	// OnMessageRemoved says undo removed the message at index i.
	OnMessageRemoved(i int)
}

// Tracker is the bookkeeping every dynamic injector shares: where its last
// reminder went in history (injectedAt), kept in step with clears,
// compactions and undos. Embed it and call Append. Safe for concurrent
// use.
type Tracker struct {
	mu         sync.Mutex
	injectedAt int // guarded by mu; -1 when none
	set        bool
}

// InjectedAt is the history index of the last reminder; ok is false when
// there is none in history.
func (t *Tracker) InjectedAt() (i int, ok bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.injectedAt, t.set
}

// Append records text as the injector's reminder with variant: a user
// message <system-reminder>…</system-reminder> with origin {injection,
// variant}. An empty text appends nothing.
func (t *Tracker) Append(ctx context.Context, h Host, variant, text string) error {
	if text == "" {
		return nil
	}
	n := len(h.History())
	if err := h.AppendMessage(ctx, history.SystemReminder(text, history.InjectionOrigin(variant))); err != nil {
		return err
	}
	t.mark(n)
	return nil
}

// mark records the reminder at history index i.
func (t *Tracker) mark(i int) {
	t.mu.Lock()
	t.injectedAt, t.set = i, true
	t.mu.Unlock()
}

// OnClear implements Injector.
func (t *Tracker) OnClear() { t.forget() }

// OnCompacted implements Injector.
func (t *Tracker) OnCompacted() { t.forget() }

// OnMessageRemoved implements Injector: a removal before the reminder
// moves it down; removing the reminder itself forgets it.
func (t *Tracker) OnMessageRemoved(i int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	switch {
	case !t.set:
	case i < t.injectedAt:
		t.injectedAt--
	case i == t.injectedAt:
		t.set = false
	}
}

func (t *Tracker) forget() {
	t.mu.Lock()
	t.set = false
	t.mu.Unlock()
}
