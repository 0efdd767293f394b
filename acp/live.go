package acp

import (
	"context"
	"errors"
	"log/slog"
	"sync"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/session"
)

// live is one ACP session: a session.Session, the goroutine that turns
// its events into session/update notifications, and the state of the
// prompt that waits for its turn.
type live struct {
	srv *Server
	id  string
	s   *session.Session
	sub *event.Subscription
	log *slog.Logger
	tr  *translator // used by the pump goroutine only
	// pumped is closed when the event stream ended (the session closed).
	pumped chan struct{}

	mu        sync.Mutex
	busy      bool                          // guarded by mu: a prompt is in progress
	cancelled bool                          // guarded by mu: a cancel arrived for it
	waiter    chan event.TurnEnded          // guarded by mu: the waiting prompt's
	waitTurn  int                           // guarded by mu: its turn, 0 until it started
	requests  map[string]context.CancelFunc // guarded by mu: open permission requests by id
}

func newLive(srv *Server, s *session.Session) *live {
	l := &live{srv: srv, id: s.ID(), s: s, sub: s.Subscribe(), log: srv.log.With("session_id", s.ID()),
		tr: newTranslator(), pumped: make(chan struct{}), requests: map[string]context.CancelFunc{}}
	go l.pump()
	return l
}

// close closes the session: its running turn is cancelled and waited for.
func (l *live) close(ctx context.Context) error {
	err := l.s.Close(ctx)
	l.sub.Close()
	return err
}

// send sends one update; a failed send is logged and never stops a turn.
func (l *live) send(ctx context.Context, u sdk.SessionUpdate) {
	if err := l.srv.conn.SessionUpdate(ctx, sdk.SessionNotification{SessionId: sdk.SessionId(l.id), Update: u}); err != nil {
		l.log.Warn("acp: session/update failed", "err", err)
	}
}

// pump forwards the main agent's events, in order, until the session
// closes.
func (l *live) pump() {
	defer close(l.pumped)
	ctx := l.srv.ctx
	for {
		ev, err := l.sub.Next(context.Background())
		if err != nil {
			if !errors.Is(err, event.ErrClosed) {
				l.log.Warn("acp: event stream ended", "err", err)
			}
			l.mu.Lock()
			for _, cancel := range l.requests {
				cancel()
			}
			l.mu.Unlock()
			return
		}
		if ev.EventHeader().AgentID != session.MainAgentID {
			// A child's turn is not shown, but its approvals and
			// questions are the user's to answer (spec 05 §5.11): left
			// unasked, the child would wait for them forever.
			l.request(ev)
			continue
		}
		for _, u := range l.tr.updates(ev) {
			l.send(ctx, u)
		}
		switch e := ev.(type) {
		case event.TurnStarted:
			l.mu.Lock()
			if l.waiter != nil && l.waitTurn == 0 && e.Origin == "user" {
				l.waitTurn = e.TurnID
			}
			l.mu.Unlock()
		case event.TurnEnded:
			l.mu.Lock()
			if l.waiter != nil && l.waitTurn == e.TurnID {
				l.waiter <- e
				l.waiter = nil
			}
			l.mu.Unlock()
		default:
			l.request(ev)
		}
	}
}

// request puts an approval or a question to the client, or withdraws one
// the session closed; other events it ignores.
func (l *live) request(ev event.Event) {
	switch e := ev.(type) {
	case event.ApprovalRequested:
		l.startRequest(e.RequestID, func(ctx context.Context) { l.askApproval(ctx, e) })
	case event.QuestionRequested:
		l.startRequest(e.RequestID, func(ctx context.Context) { l.askQuestion(ctx, e) })
	case event.RequestClosed:
		l.mu.Lock()
		if cancel := l.requests[e.RequestID]; cancel != nil {
			cancel()
			delete(l.requests, e.RequestID)
		}
		l.mu.Unlock()
	}
}

// startRequest runs ask on its own goroutine with a context that ends
// when the request is withdrawn (its turn was cancelled) or the session
// closes.
func (l *live) startRequest(id string, ask func(context.Context)) {
	ctx, cancel := context.WithCancel(l.srv.ctx)
	l.mu.Lock()
	l.requests[id] = cancel
	l.mu.Unlock()
	go func() {
		defer func() {
			l.mu.Lock()
			delete(l.requests, id)
			l.mu.Unlock()
			cancel()
		}()
		ask(ctx)
	}()
}

// cancel cancels the running turn, or marks a prompt that is still
// preparing its input.
func (l *live) cancel() {
	l.mu.Lock()
	busy := l.busy
	if busy {
		l.cancelled = true
	}
	l.mu.Unlock()
	if err := l.s.Cancel(l.srv.ctx, nil); err != nil {
		l.log.Warn("acp: cancel failed", "err", err)
	}
}
