package session_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/llm/llmtest"
	"github.com/kimigo/kimigo/session"
)

// next reads sub until an event of type T arrives.
func next[T event.Event](t *testing.T, sub *event.Subscription) T {
	t.Helper()
	for {
		ev, err := sub.Next(t.Context())
		if err != nil {
			var zero T
			t.Fatalf("waiting for %T: %v", zero, err)
		}
		if e, ok := ev.(T); ok {
			return e
		}
	}
}

// toolResult is the output of the first tool.result of call id in sub.
func toolResult(t *testing.T, sub *event.Subscription) event.ToolResult {
	t.Helper()
	return next[event.ToolResult](t, sub)
}

const writeArgs = `{"path":"b.txt","content":"hi"}`

// A front end that answers: the Write the manual mode asks about becomes
// an approval.requested event of the main agent; the answer runs it, and
// request.closed says the request is over. An answer to a request that is
// not open, or with a choice that does not exist, is an error.
func TestApprovalThroughTheFrontEnd(t *testing.T) {
	r := newRig(t)
	r.srv.Add(llmtest.ToolCall("c1", "Write", writeArgs), llmtest.Text("written"))
	s, sub := r.start(t, session.Answered, "write b.txt")
	req := next[event.ApprovalRequested](t, sub)
	if req.AgentID != "main" || req.ToolName != "Write" || req.ToolCallID != "c1" || req.RequestID == "" || req.TurnID != 0 {
		t.Errorf("approval request = %+v", req)
	}
	if err := s.AnswerApproval(req.RequestID, event.ApprovalAnswer{Choice: "maybe"}); err == nil || !strings.Contains(err.Error(), `"maybe"`) {
		t.Errorf("an unknown choice = %v, want an error naming it", err)
	}
	if err := s.AnswerApproval(req.RequestID, event.ApprovalAnswer{Choice: event.ApproveOnce}); err != nil {
		t.Fatal(err)
	}
	if closed := next[event.RequestClosed](t, sub); closed.RequestID != req.RequestID || closed.Outcome != event.OutcomeAnswered {
		t.Errorf("request.closed = %+v", closed)
	}
	if ended := waitEnded(t, sub); ended.Reason != event.EndCompleted {
		t.Fatalf("turn ended %+v", ended)
	}
	if b, err := os.ReadFile(filepath.Join(r.workDir, "b.txt")); err != nil || string(b) != "hi" {
		t.Errorf("b.txt = %q, %v", b, err)
	}
	if err := s.AnswerApproval(req.RequestID, event.ApprovalAnswer{Choice: event.ApproveOnce}); !errors.Is(err, session.ErrNoRequest) {
		t.Errorf("a second answer = %v, want ErrNoRequest", err)
	}
}

// Nobody answers (the default): what the chain asks about is denied at
// once, saying what would allow it; no request is published and the
// file is not written.
func TestApprovalWithoutAFrontEndIsDenied(t *testing.T) {
	r := newRig(t)
	r.srv.Add(llmtest.ToolCall("c1", "Write", writeArgs), llmtest.Text("not written"))
	_, sub := r.start(t, session.Declined, "write b.txt")
	var result event.ToolResult
	for {
		ev, err := sub.Next(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := ev.(event.ApprovalRequested); ok {
			t.Fatal("an approval was requested although nobody answers")
		}
		if res, ok := ev.(event.ToolResult); ok {
			result = res
		}
		if _, ok := ev.(event.TurnEnded); ok {
			break
		}
	}
	if !result.IsError || !strings.Contains(result.Output.Text(), "nobody is here to approve it") {
		t.Errorf("tool result = %+v", result)
	}
	if _, err := os.Stat(filepath.Join(r.workDir, "b.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("b.txt was written: %v", err)
	}
}

// Cancelling the turn withdraws its open request: request.closed says so,
// the tool does not run, and a late answer finds nothing open.
func TestCancelWithdrawsTheRequest(t *testing.T) {
	r := newRig(t)
	r.srv.Add(llmtest.ToolCall("c1", "Write", writeArgs))
	s, sub := r.start(t, session.Answered, "write b.txt")
	req := next[event.ApprovalRequested](t, sub)
	if err := s.Cancel(t.Context(), nil); err != nil {
		t.Fatal(err)
	}
	if closed := next[event.RequestClosed](t, sub); closed.Outcome != event.OutcomeCancelled {
		t.Errorf("request.closed = %+v, want cancelled", closed)
	}
	if ended := waitEnded(t, sub); ended.Reason != event.EndCancelled {
		t.Errorf("turn ended %+v, want cancelled", ended)
	}
	if err := s.AnswerApproval(req.RequestID, event.ApprovalAnswer{Choice: event.ApproveOnce}); !errors.Is(err, session.ErrNoRequest) {
		t.Errorf("an answer after the cancel = %v, want ErrNoRequest", err)
	}
	if _, err := os.Stat(filepath.Join(r.workDir, "b.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("b.txt was written: %v", err)
	}
}

const askArgs = `{"questions":[{"question":"Which way?","header":"Way","options":[{"label":"Left","description":"l"},{"label":"Right","description":"r"}],"multi_select":false}]}`

// AskUserQuestion reaches an answering front end as question.requested;
// its answer is what the model reads. Without a front end the questions
// are dismissed.
func TestQuestionsThroughTheFrontEnd(t *testing.T) {
	for _, tt := range []struct {
		name     string
		requests session.Requests
		want     string
	}{
		{"answered", session.Answered, `{"answers":{"Which way?":"Left"}}`},
		{"declined", session.Declined, "User dismissed the question without answering."},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := newRig(t)
			r.srv.Add(llmtest.ToolCall("q1", "AskUserQuestion", askArgs), llmtest.Text("ok"))
			s, sub := r.start(t, tt.requests, "ask me")
			if tt.requests == session.Answered {
				q := next[event.QuestionRequested](t, sub)
				if len(q.Questions) != 1 || q.Questions[0].Question != "Which way?" || len(q.Questions[0].Options) != 2 ||
					q.ToolCallID != "q1" || q.AgentID != "main" {
					t.Errorf("question request = %+v", q)
				}
				if err := s.AnswerQuestion(q.RequestID, map[string]string{"Which way?": "Left"}); err != nil {
					t.Fatal(err)
				}
			}
			if res := toolResult(t, sub); !strings.Contains(res.Output.Text(), tt.want) {
				t.Errorf("the model reads %q, want %q", res.Output.Text(), tt.want)
			}
			waitEnded(t, sub)
		})
	}
}

// Every event of a run names the main agent, its sequence numbers rise,
// and Close ends the stream.
func TestEveryEventOfASessionNamesTheMainAgent(t *testing.T) {
	r := newRig(t)
	r.srv.Add(llmtest.ToolCall("c1", "Glob", `{"pattern":"*"}`), llmtest.Text("done"))
	s, err := session.Open(t.Context(), r.opts(""))
	if err != nil {
		t.Fatal(err)
	}
	sub := s.Subscribe()
	if err := s.Prompt(t.Context(), textParts("list")); err != nil {
		t.Fatal(err)
	}
	var last uint64
	seen := map[event.Type]bool{}
	for !seen[event.TypeTurnEnded] {
		ev, err := sub.Next(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if h := ev.EventHeader(); h.AgentID != "main" || h.Seq <= last {
			t.Errorf("%s: header %+v after seq %d", ev.EventType(), h, last)
		}
		last = ev.EventHeader().Seq
		seen[ev.EventType()] = true
	}
	for _, typ := range []event.Type{event.TypeTurnStarted, event.TypeToolCallStarted, event.TypeToolResult, event.TypeStatus} {
		if !seen[typ] {
			t.Errorf("no %s event", typ)
		}
	}
	closeSession(t, s)
	for {
		if _, err := sub.Next(context.Background()); err != nil {
			if !errors.Is(err, event.ErrClosed) {
				t.Errorf("after Close: %v, want ErrClosed", err)
			}
			break
		}
	}
}
