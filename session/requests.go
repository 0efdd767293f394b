package session

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"

	"github.com/kimigo/kimigo/agent/permission"
	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/tools"
)

// Requests says who answers the approval requests and questions of a
// session's agents.
type Requests int

const (
	// Declined: nobody answers. Every approval request is denied at once,
	// with a message saying what would allow the call (an allow rule, the
	// auto or yolo mode), and every question is dismissed. The zero value:
	// a session opened without a front end that answers is safe.
	Declined Requests = iota
	// Answered: the front end answers. The session publishes
	// event.ApprovalRequested and event.QuestionRequested and the turn waits
	// for AnswerApproval or AnswerQuestion (or its cancellation);
	// event.RequestClosed follows either way.
	Answered
)

// broker puts the agents' approval requests and questions to the front
// end as events and hands its answers back to the waiting turn.
type broker struct {
	bus *event.Bus

	mu   sync.Mutex
	next int                       // guarded by mu: the last request number
	open map[string]chan answerMsg // guarded by mu: by request id
}

// answerMsg is a front end's answer to one request.
type answerMsg struct {
	approval event.ApprovalAnswer
	answers  map[string]string
}

func newBroker(bus *event.Bus) *broker {
	return &broker{bus: bus, open: map[string]chan answerMsg{}}
}

// ErrNoRequest refuses an answer to a request that is not open: unknown,
// already answered, or withdrawn with its cancelled turn.
var ErrNoRequest = errors.New("no such open request")

// answer delivers a front end's answer to request id.
func (b *broker) answer(id string, a answerMsg) error {
	b.mu.Lock()
	ch, ok := b.open[id]
	delete(b.open, id)
	b.mu.Unlock()
	if !ok {
		return fmt.Errorf("answer request %q: %w", id, ErrNoRequest)
	}
	ch <- a // buffered: the waiting turn may already be gone
	return nil
}

// ask publishes ev (with the new request's id set by mk) for agentID and
// waits for its answer or ctx's end; RequestClosed follows either way.
func (b *broker) ask(ctx context.Context, agentID string, mk func(id string) event.Event) (answerMsg, error) {
	b.mu.Lock()
	b.next++
	id := agentID + "/" + strconv.Itoa(b.next)
	ch := make(chan answerMsg, 1)
	b.open[id] = ch
	b.mu.Unlock()
	ev := mk(id)
	b.bus.Publish(event.WithAgent(ev, agentID))
	closed := func(outcome string) {
		b.bus.Publish(event.WithAgent(event.RequestClosed{Header: ev.EventHeader(), RequestID: id, Outcome: outcome}, agentID))
	}
	select {
	case a := <-ch:
		closed(event.OutcomeAnswered)
		return a, nil
	case <-ctx.Done():
		b.mu.Lock()
		delete(b.open, id)
		b.mu.Unlock()
		closed(event.OutcomeCancelled)
		return answerMsg{}, ctx.Err()
	}
}

// approver is one agent's permission.Approver through the broker.
type requestApprover struct {
	b       *broker
	agentID string
}

// RequestApproval implements permission.Approver.
func (a requestApprover) RequestApproval(ctx context.Context, req permission.ApprovalRequest) (permission.ApprovalResponse, error) {
	ans, err := a.b.ask(ctx, a.agentID, func(id string) event.Event {
		return event.ApprovalRequested{Header: event.InTurn(req.TurnID), RequestID: id, ToolCallID: req.ToolCallID,
			ToolName: req.ToolName, Action: req.Action, Display: req.Display, OnceOnly: req.OnceOnly}
	})
	if err != nil {
		return permission.ApprovalResponse{}, err
	}
	return permission.Response(ans.approval)
}

// requestQuestioner is one agent's tools.QuestionAsker through the broker.
type requestQuestioner struct {
	b       *broker
	agentID string
}

// AskQuestions implements tools.QuestionAsker. An answer of nil or no
// entries means the user dismissed the questions.
func (q requestQuestioner) AskQuestions(ctx context.Context, req tools.QuestionRequest) (map[string]string, error) {
	turnID, err := strconv.Atoi(req.TurnID)
	if err != nil {
		turnID = event.NoTurn
	}
	qs := make([]event.Question, 0, len(req.Questions))
	for _, x := range req.Questions {
		opts := make([]event.QuestionOption, 0, len(x.Options))
		for _, o := range x.Options {
			opts = append(opts, event.QuestionOption{Label: o.Label, Description: o.Description})
		}
		qs = append(qs, event.Question{Question: x.Question, Header: x.Header, Options: opts, MultiSelect: x.MultiSelect})
	}
	ans, err := q.b.ask(ctx, q.agentID, func(id string) event.Event {
		return event.QuestionRequested{Header: event.InTurn(turnID), RequestID: id, ToolCallID: req.ToolCallID, Questions: qs}
	})
	if err != nil {
		return nil, err
	}
	return ans.answers, nil
}

// dismissAll answers every question as dismissed: nobody can answer.
type dismissAll struct{}

// AskQuestions implements tools.QuestionAsker.
func (dismissAll) AskQuestions(context.Context, tools.QuestionRequest) (map[string]string, error) {
	return nil, nil
}
