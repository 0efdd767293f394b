package session

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/kimigo/kimigo/agent"
	"github.com/kimigo/kimigo/agent/history"
	"github.com/kimigo/kimigo/agent/permission"
	"github.com/kimigo/kimigo/agent/turn"
	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/llm"
)

// btwReminder tells a side conversation's model what it is (spec 05
// §5.12 step 4).
//
//go:embed btw.md
var btwReminder string

// btwTrigger is the system_trigger name of that reminder (spec 02 §1.3).
const btwTrigger = "btw"

// BtwIDPrefix starts the agent id of a side conversation: "btw-1",
// "btw-2", … counted per open Session. Children that are kept on disk
// are "agent-<n>", so the two never collide; a side conversation is never
// on disk, so its id is never looked up again after the session closes.
const BtwIDPrefix = "btw-"

// ErrBtwClosed refuses a side conversation on a closed session, and a
// question to a side conversation that was closed.
var ErrBtwClosed = errors.New("the side conversation is closed")

// Btw is a side conversation (/btw, spec 05 §5.12): an ephemeral child of
// the main agent that sees the main conversation as the main agent's next
// request would carry it and answers questions about it in text, while
// the main agent's turn goes on. Every tool call it makes is refused
// before anything runs. Its records stay in memory: nothing of it reaches
// the main agent's history, its records or state.json, and it is gone
// when closed. Its events are on the session's stream with its own agent
// id (ID). Every method is safe for concurrent use.
type Btw struct {
	s  *Session
	id string
	a  *agent.Agent

	closeOnce sync.Once
	closeErr  error
}

// sideChannels are a session's open side conversations.
type sideChannels struct {
	mu     sync.Mutex
	seq    int
	open   map[string]*Btw
	closed bool // the session closed: no new ones
}

// Btw starts a side conversation (spec 05 §5.12). The child is built the
// way the main agent is, from what the main agent has now: its model
// binding (alias, thinking effort and provider), its exact system prompt
// and its tool table verbatim, so the child's first request shares the
// main agent's prefix (and the provider's prompt cache); its history is
// the main agent's projected history without a trailing exchange that is
// still waiting for its tool results, followed by a system reminder
// (btw.md, origin system_trigger "btw"). Its permission chain starts with
// deny-all: every tool call gets "Tool calls are disabled for side
// questions. Answer with text only." It may start while a main turn
// runs; the main turn does not notice. Ask puts a question to it.
func (s *Session) Btw(ctx context.Context) (*Btw, error) {
	parent := s.agent
	seed := history.FromProjected(history.TrimTrailingOpenToolExchange(parent.ProjectedHistory()))
	seed = append(seed, history.SystemReminder(btwReminder, history.SystemTriggerOrigin(btwTrigger)))

	s.side.mu.Lock()
	if s.side.closed {
		s.side.mu.Unlock()
		return nil, fmt.Errorf("start a side conversation: %w", ErrBtwClosed)
	}
	s.side.seq++
	id := fmt.Sprintf("%s%d", BtwIDPrefix, s.side.seq)
	s.side.mu.Unlock()

	a := agent.New(agent.Options{
		ID:     id,
		Model:  parent.Model(),
		Config: parent.Config(),
		Tools:  parent.ToolTable(ctx),
		// No Persistence: the records stay in memory. No HomeDir: a large
		// tool result (there are none: every call is refused) stays inline.
		Permission: &permission.Options{AgentType: permission.AgentSub, SideChannel: true,
			Parent: parent.Permission()},
		Compactor: turn.NoCompaction{}, // a short side talk; the main conversation keeps its own
		Events:    s.bus,
		Logger:    s.logger.With("agent_id", id),
	})
	if err := a.Seed(ctx, seed); err != nil {
		return nil, errors.Join(fmt.Errorf("start side conversation %s: %w", id, err), a.Close(context.WithoutCancel(ctx)))
	}
	b := &Btw{s: s, id: id, a: a}
	s.side.mu.Lock()
	defer s.side.mu.Unlock()
	if s.side.closed { // the session closed meanwhile
		return nil, errors.Join(fmt.Errorf("start a side conversation: %w", ErrBtwClosed), a.Close(context.WithoutCancel(ctx)))
	}
	if s.side.open == nil {
		s.side.open = map[string]*Btw{}
	}
	s.side.open[id] = b
	return b, nil
}

// ID is the side conversation's agent id, in the header of its events.
func (b *Btw) ID() string { return b.id }

// Ask puts a question (or a follow-up) to the side conversation: a turn
// of the child starts with it, and its events, the answer's deltas
// included, arrive on the session's stream under ID. While the child
// answers an earlier question Ask is refused with an agent.BusyError; a
// closed side conversation refuses with ErrBtwClosed. Nothing is
// recorded in the session's state.json.
func (b *Btw) Ask(ctx context.Context, input []llm.ContentPart) error {
	if b.isClosed() {
		return fmt.Errorf("ask side conversation %s: %w", b.id, ErrBtwClosed)
	}
	l, err := b.a.Prompt(ctx, input, history.UserOrigin())
	if err != nil {
		return err
	}
	if !l.Launched {
		return &agent.BusyError{Op: "ask a side question", TurnID: l.TurnID}
	}
	return nil
}

// Wait waits for the answer to the last question and returns its text:
// the child's last assistant message. A turn that did not complete
// (cancelled, failed) is an error saying how it ended.
func (b *Btw) Wait(ctx context.Context) (string, error) {
	res, err := b.a.WaitForCurrentTurn(ctx)
	if err != nil {
		return "", err
	}
	if res.Event.Reason != event.EndCompleted {
		msg := string(res.Event.Reason)
		if res.Event.Error != nil {
			msg += ": " + res.Event.Error.Message
		}
		return "", fmt.Errorf("side conversation %s: the answer did not complete (%s)", b.id, msg)
	}
	h := b.a.History()
	for i := len(h) - 1; i >= 0; i-- {
		if h[i].Role == llm.RoleAssistant {
			return strings.TrimSpace(llm.ExtractText(h[i].Message, "")), nil
		}
	}
	return "", nil
}

// Cancel stops the answer being written, if any; the side conversation
// stays open for another question.
func (b *Btw) Cancel(ctx context.Context) error { return b.a.Cancel(ctx, nil, nil) }

// Close ends the side conversation: a running answer is cancelled and
// the child is dropped. Later calls return the first call's error.
func (b *Btw) Close(ctx context.Context) error {
	b.closeOnce.Do(func() {
		b.s.side.mu.Lock()
		delete(b.s.side.open, b.id)
		b.s.side.mu.Unlock()
		if err := b.a.Close(ctx); err != nil {
			b.closeErr = fmt.Errorf("close side conversation %s: %w", b.id, err)
		}
	})
	return b.closeErr
}

func (b *Btw) isClosed() bool {
	b.s.side.mu.Lock()
	defer b.s.side.mu.Unlock()
	return b.s.side.open[b.id] != b
}

// closeBtw closes every open side conversation and refuses new ones; the
// session's Close calls it before the main agent closes.
func (s *Session) closeBtw(ctx context.Context) error {
	s.side.mu.Lock()
	s.side.closed = true
	open := make([]*Btw, 0, len(s.side.open))
	for _, b := range s.side.open {
		open = append(open, b)
	}
	s.side.mu.Unlock()
	var err error
	for _, b := range open {
		err = errors.Join(err, b.Close(ctx))
	}
	return err
}
