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

// ErrNoBtw is the error of a side-conversation id that is not open (never
// started, or closed); the error names the id.
var ErrNoBtw = errors.New("no such side conversation")

// btw is a side conversation (/btw, spec 05 §5.12): an ephemeral child of
// the main agent that sees the main conversation as the main agent's next
// request would carry it and answers questions about it in text, while
// the main agent's turn goes on. Every tool call it makes is refused
// before anything runs. Its records stay in memory: nothing of it reaches
// the main agent's history, its records or state.json, and it is gone
// when closed. Its events are on the session's stream with its own agent
// id. Every method is safe for concurrent use.
type btw struct {
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
	open   map[string]*btw
	closed bool // the session closed: no new ones
}

// StartBtw starts a side conversation (spec 05 §5.12) and returns its
// agent id, which names it in AskBtw, WaitBtw, CancelBtw and CloseBtw and
// in the header of its events. The child is built the
// way the main agent is, from what the main agent has now: its model
// binding (alias, thinking effort and provider), its exact system prompt
// and its tool table verbatim, so the child's first request shares the
// main agent's prefix (and the provider's prompt cache); its history is
// the main agent's projected history without a trailing exchange that is
// still waiting for its tool results, followed by a system reminder
// (btw.md, origin system_trigger "btw"). Its permission chain starts with
// deny-all: every tool call gets "Tool calls are disabled for side
// questions. Answer with text only." No lifecycle hook runs for it and it
// never compacts: it is a short aside, not part of the session's work. It
// may start while a main turn runs; the main turn does not notice. AskBtw
// puts a question to it.
func (s *Session) StartBtw(ctx context.Context) (string, error) {
	b, err := s.startBtw(ctx)
	if err != nil {
		return "", err
	}
	return b.id, nil
}

// AskBtw puts a question (or a follow-up) to side conversation id: a turn
// of the child starts with it, and its events, the answer's deltas
// included, arrive on the session's stream under id. While the child
// answers an earlier question it is refused with an agent.BusyError; an
// id that is not open is an ErrNoBtw error naming it. Nothing is recorded
// in the session's state.json.
func (s *Session) AskBtw(ctx context.Context, id string, input []llm.ContentPart) error {
	b, err := s.openBtw(id)
	if err != nil {
		return err
	}
	return b.ask(ctx, input)
}

// WaitBtw waits for side conversation id's answer to the last question
// and returns its text: the child's last assistant message. A turn that
// did not complete (cancelled, failed) is an error saying how it ended.
func (s *Session) WaitBtw(ctx context.Context, id string) (string, error) {
	b, err := s.openBtw(id)
	if err != nil {
		return "", err
	}
	return b.wait(ctx)
}

// CancelBtw stops the answer side conversation id is writing, if any; it
// stays open for another question.
func (s *Session) CancelBtw(ctx context.Context, id string) error {
	b, err := s.openBtw(id)
	if err != nil {
		return err
	}
	return b.a.Cancel(ctx, nil, nil)
}

// CloseBtw ends side conversation id (dismissed): a running answer is
// cancelled and the child is dropped; the id is not open afterwards.
func (s *Session) CloseBtw(ctx context.Context, id string) error {
	b, err := s.openBtw(id)
	if err != nil {
		return err
	}
	return b.close(ctx)
}

// openBtw is the open side conversation id.
func (s *Session) openBtw(id string) (*btw, error) {
	s.side.mu.Lock()
	defer s.side.mu.Unlock()
	if b := s.side.open[id]; b != nil {
		return b, nil
	}
	if s.side.closed {
		return nil, fmt.Errorf("side conversation %q: %w", id, ErrBtwClosed)
	}
	return nil, fmt.Errorf("side conversation %q: %w", id, ErrNoBtw)
}

// startBtw builds and registers the child.
func (s *Session) startBtw(ctx context.Context) (*btw, error) {
	parent := s.agent
	seed := history.FromProjected(history.TrimTrailingOpenToolExchange(parent.ProjectedHistory()))
	seed = append(seed, history.SystemReminder(btwReminder, history.SystemTriggerOrigin(btwTrigger)))
	tokens := parent.TokenCount() // the completion cap is clamped as the main agent's is

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
	if err := a.Seed(ctx, seed, tokens); err != nil {
		return nil, errors.Join(fmt.Errorf("start side conversation %s: %w", id, err), a.Close(context.WithoutCancel(ctx)))
	}
	b := &btw{s: s, id: id, a: a}
	s.side.mu.Lock()
	closed := s.side.closed
	if !closed {
		if s.side.open == nil {
			s.side.open = map[string]*btw{}
		}
		s.side.open[id] = b
	}
	s.side.mu.Unlock()
	if closed { // the session closed meanwhile
		return nil, errors.Join(fmt.Errorf("start a side conversation: %w", ErrBtwClosed), a.Close(context.WithoutCancel(ctx)))
	}
	return b, nil
}

// ask starts a turn of the child with input.
func (b *btw) ask(ctx context.Context, input []llm.ContentPart) error {
	l, err := b.a.Prompt(ctx, input, history.UserOrigin())
	if err != nil {
		return err
	}
	if !l.Launched {
		return &agent.BusyError{Op: "ask a side question", TurnID: l.TurnID}
	}
	return nil
}

// wait waits for the current turn and returns the last assistant text.
func (b *btw) wait(ctx context.Context) (string, error) {
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

// close forgets the child and closes it; later calls return the first
// call's error.
func (b *btw) close(ctx context.Context) error {
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

// closeBtw closes every open side conversation and refuses new ones; the
// session's Close calls it before the main agent closes.
func (s *Session) closeBtw(ctx context.Context) error {
	s.side.mu.Lock()
	s.side.closed = true
	open := make([]*btw, 0, len(s.side.open))
	for _, b := range s.side.open {
		open = append(open, b)
	}
	s.side.mu.Unlock()
	var err error
	for _, b := range open {
		err = errors.Join(err, b.close(ctx))
	}
	return err
}
