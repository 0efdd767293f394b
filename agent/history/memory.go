package history

import (
	"log/slog"
	"slices"
	"time"

	"github.com/kimigo/kimigo/llm"
)

// Options configure a Memory. The zero value is usable: no hooks, logs
// discarded, the wall clock.
type Options struct {
	// Logger receives the warnings of repairs and in-place closes; nil
	// discards them.
	Logger *slog.Logger
	// Hooks tell other subsystems what a mutation did.
	Hooks Hooks
	// Now stamps the time of the last assistant message. The agent should
	// return the time of the record being applied, so that resume gives
	// the same value; nil means time.Now.
	Now func() time.Time
}

// Hooks are the optional callbacks a Memory makes while it applies a
// record (spec 02 §7 item 3). They run synchronously, under whatever lock
// the caller holds, and must only update in-memory state: no I/O, no
// events, no records. A nil hook is skipped.
type Hooks struct {
	// NotificationDelivered is called when a message with a
	// background_task origin enters history, so that the notification is
	// never delivered again.
	NotificationDelivered func(o Origin)
	// MessageRemoved is called for each message Undo removes, with the
	// index it had, newest first (the injection manager tracks indices).
	MessageRemoved func(index int, m Message)
	// Cleared runs at the end of Clear (injection and tool managers).
	Cleared func()
	// Compacted runs at the end of ApplyCompaction (injection manager;
	// the tool manager discards loaded dynamic tool schemas).
	Compacted func()
	// LimitMicroCompaction caps the micro-compaction cutoff at n messages:
	// Undo passes the new history length, Clear and compaction pass 0.
	LimitMicroCompaction func(n int)
	// DynamicTools reports whether the current model gets progressively
	// disclosed tools (capability, tool use and the feature flag). When it
	// is nil or false, projection strips the dynamic tool context.
	DynamicTools func() bool
	// ShapeDynamicTools narrows the tools of schema messages to those
	// still loaded, dropping schema messages left empty; it must not
	// modify its input. Used only when DynamicTools reports true.
	ShapeDynamicTools func(h []Message) []Message
	// Repaired receives each projection repair that was logged, for
	// telemetry.
	Repaired func(Repair)
}

// Change is what one mutation did, for the agent's effects (events, status,
// replay cards). Mutations never emit anything themselves.
type Change struct {
	// Pushed are the messages that entered history, in order, with their
	// Seq: the appended message, deferred ones flushed behind it, tool
	// results, closes.
	Pushed []Message
	// Updated are open-step assistant messages that grew (a content part
	// or a tool call), as they are now; their Seq is unchanged.
	Updated []Message
	// Removed are the messages that left history one by one (undo, pop).
	Removed []Message
	// Deferred is set when the appended message waits behind an open tool
	// exchange.
	Deferred bool
	// Closed are the calls a step boundary closed in place.
	Closed []string
	// Replaced is set when the whole history was replaced (clear,
	// compaction).
	Replaced bool
	// Undone is the outcome of an undo; a live undo reports Undone.Err()
	// to its caller.
	Undone *UndoResult
	// Compacted is the applied compaction record with every derived field
	// filled, for the replay stream's compaction card.
	Compacted *ApplyCompactionRecord
}

// Memory is one agent's context memory (spec 02 §2): the stored history
// (facts), the loop-event state machine that grows it, deferral of
// messages behind open tool exchanges, undo, clear, token accounting and
// the compaction rewrite.
//
// Every mutator is the apply of one record: it is deterministic, touches
// no I/O and emits nothing, and the agent calls it the same way live and on
// resume. A Memory is owned by its agent: every method except Project and
// View needs the agent's state lock. History returns a snapshot that stays
// valid and unchanged while the memory moves on, so a request can be
// projected from it with no lock held; Project and View may run on any
// goroutine.
type Memory struct {
	log     *slog.Logger
	hooks   Hooks
	now     func() time.Time
	repairs *repairLog

	history []Message
	// shared is how many leading elements of history's backing array a
	// snapshot may be reading; writing one of them first copies the array.
	shared     int
	tokenCount int
	// covered is how many leading history messages tokenCount accounts
	// for.
	covered int
	// openSteps maps a step uuid to the index of its assistant message.
	openSteps map[string]int
	// pending are the unanswered call ids in the order they were called;
	// pendingSet holds the same ids.
	pending    []string
	pendingSet map[string]struct{}
	// deferred messages wait for the open exchange to close.
	deferred        []Message
	lastAssistantAt time.Time
	lastSeq         uint64
	// renders are the tool results of history rendered once.
	renders renders
}

// New returns an empty Memory.
func New(opts Options) *Memory {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	return &Memory{
		log: log, hooks: opts.Hooks, now: now,
		repairs:    &repairLog{log: log, onRep: opts.Hooks.Repaired},
		openSteps:  map[string]int{},
		pendingSet: map[string]struct{}{},
	}
}

// TokenCount is the last known context size.
func (m *Memory) TokenCount() int { return m.tokenCount }

// TokenCountWithPending adds the estimate of the messages TokenCount does
// not account for yet.
func (m *Memory) TokenCountWithPending() int {
	return m.tokenCount + estimateHistory(m.history[min(m.covered, len(m.history)):])
}

// History returns a snapshot of the stored conversation, deferred messages
// excluded. The snapshot never changes, whatever the memory does next;
// treat it and its messages as read-only.
func (m *Memory) History() []Message {
	m.shared = max(m.shared, len(m.history))
	return m.history[:len(m.history):len(m.history)]
}

// Len is the number of messages in history.
func (m *Memory) Len() int { return len(m.history) }

// Data is the memory as the getContext RPC returns it.
type Data struct {
	History    []Message `json:"history"`
	TokenCount int       `json:"tokenCount"`
}

// Data returns a snapshot of history and the token count.
func (m *Memory) Data() Data { return Data{History: m.History(), TokenCount: m.tokenCount} }

// Pending returns the ids of recorded calls without a result, in call
// order.
func (m *Memory) Pending() []string { return slices.Clone(m.pending) }

// Deferred returns the messages waiting behind the open tool exchange.
func (m *Memory) Deferred() []Message { return slices.Clone(m.deferred) }

// LastAssistantAt is when the last assistant message entered history; zero
// if none did.
func (m *Memory) LastAssistantAt() time.Time { return m.lastAssistantAt }

// AppendMessage applies context.append_message (spec 02 §2.4): while a call
// is pending the message waits (Change.Deferred), otherwise it enters
// history. msg must not be modified afterwards.
func (m *Memory) AppendMessage(msg Message) Change {
	var ch Change
	msg.Seq = 0
	msg.normalize()
	if len(m.pending) > 0 {
		m.deferred = append(m.deferred, msg)
		ch.Deferred = true
		return ch
	}
	m.push(msg, &ch)
	return ch
}

// UpdateTokenCount applies context.update_token_count: n becomes the
// count and covers the whole history.
func (m *Memory) UpdateTokenCount(n int) {
	m.tokenCount = n
	m.covered = len(m.history)
}

// push adds msg to history with the side effects of spec 02 §2.8.
func (m *Memory) push(msg Message, ch *Change) {
	if len(m.history) < m.shared {
		m.unshare()
	}
	m.lastSeq++
	msg.Seq = m.lastSeq
	msg.normalize()
	msg = m.renders.add(msg)
	m.history = append(m.history, msg)
	if msg.Role == llm.RoleAssistant {
		m.lastAssistantAt = m.now()
	}
	if msg.Origin.Is(OriginBackgroundTask) && m.hooks.NotificationDelivered != nil {
		m.hooks.NotificationDelivered(*msg.Origin)
	}
	ch.Pushed = append(ch.Pushed, msg)
}

// flushDeferred moves the deferred messages into history once no call is
// pending.
func (m *Memory) flushDeferred(ch *Change) {
	if len(m.pending) > 0 || len(m.deferred) == 0 {
		return
	}
	deferred := m.deferred
	m.deferred = nil
	for _, msg := range deferred {
		m.push(msg, ch)
	}
}

// mutable returns the message at i for in-place change, first copying the
// backing array when a snapshot may be reading it.
func (m *Memory) mutable(i int) *Message {
	if i < m.shared {
		m.unshare()
	}
	return &m.history[i]
}

// unshare gives history a backing array no snapshot shares.
func (m *Memory) unshare() {
	h := make([]Message, len(m.history), len(m.history)+len(m.history)/4+8)
	copy(h, m.history)
	m.history = h
	m.shared = 0
}

// replaceHistory installs a new history array (undo, compaction, clear).
func (m *Memory) replaceHistory(h []Message) {
	m.renders.keep(h)
	m.history = h
	m.shared = 0
}

// resetExchange forgets open steps, pending calls and deferred messages.
func (m *Memory) resetExchange() {
	clear(m.openSteps)
	m.pending = nil
	clear(m.pendingSet)
	m.deferred = nil
}

func estimateHistory(h []Message) int {
	n := 0
	for i := range h {
		n += llm.EstimateMessage(h[i].Message)
	}
	return n
}
