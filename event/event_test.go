package event_test

import (
	"errors"
	"testing"

	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/loop"
)

func TestMarshal(t *testing.T) {
	for _, tt := range []struct {
		ev   event.Event
		want string
	}{
		{event.TurnStarted{Header: event.Header{AgentID: "main", TurnID: 0, Seq: 1}, Origin: "user"},
			`{"type":"turn.started","agentId":"main","turnId":0,"seq":1,"origin":"user"}`},
		{event.AssistantDelta{Header: event.InTurn(2), Delta: "<b> & </b>"},
			`{"type":"assistant.delta","turnId":2,"delta":"<b> & </b>"}`},
		{event.Status{Header: event.Header{AgentID: "agent-0", TurnID: event.NoTurn, Seq: 9}, ContextTokens: 5},
			`{"type":"agent.status.updated","agentId":"agent-0","turnId":-1,"seq":9,"contextTokens":5}`},
		{event.Error{Header: event.InTurn(1), ErrorPayload: event.ErrorPayload{Code: "x", Message: "m"}},
			`{"type":"error","turnId":1,"code":"x","message":"m","retryable":false}`},
		{event.ToolCallStarted{Header: event.InTurn(0), ToolCallID: "c", Name: "Bash", Args: []byte(`{"z":1,"a":2}`),
			Display: &loop.CommandDisplay{Command: "ls"}},
			`{"type":"tool.call.started","turnId":0,"toolCallId":"c","name":"Bash","args":{"z":1,"a":2},"display":{"kind":"command","command":"ls"}}`},
		{event.CompactionCancelled{Header: event.InTurn(event.NoTurn)}, `{"type":"compaction.cancelled","turnId":-1}`},
	} {
		got, err := event.Marshal(tt.ev)
		if err != nil || string(got) != tt.want {
			t.Errorf("Marshal(%T) =\n %s, %v\nwant\n %s", tt.ev, got, err, tt.want)
		}
	}
}

func TestWithAgentKeepsTheRestOfTheHeader(t *testing.T) {
	ev := event.WithAgent(event.StepStarted{Header: event.Header{TurnID: 3, Seq: 4}, Step: 1}, "agent-1")
	if h := ev.EventHeader(); h != (event.Header{AgentID: "agent-1", TurnID: 3, Seq: 4}) {
		t.Errorf("header = %+v", h)
	}
	if ev.(event.StepStarted).Step != 1 {
		t.Error("the event's own fields were lost")
	}
}

func TestErrorOf(t *testing.T) {
	for _, tt := range []struct {
		name string
		err  error
		code string
	}{
		{"nil", nil, event.CodeInternal},
		{"plain", errors.New("boom"), event.CodeInternal},
		{"rate limit", &llm.Error{Kind: llm.KindRateLimit, Message: "slow down", StatusCode: 429}, event.CodeProviderRateLimit},
		{"context overflow", &llm.Error{Kind: llm.KindContextOverflow}, event.CodeContextOverflow},
		{"filtered", &llm.Error{Kind: llm.KindEmptyResponse, FinishReason: llm.FinishFiltered}, event.CodeProviderFiltered},
		{"coded", codedErr{}, "my.code"},
	} {
		if got := event.ErrorOf(tt.err); got.Code != tt.code {
			t.Errorf("%s: code %q, want %q", tt.name, got.Code, tt.code)
		}
	}
	if p := event.ErrorOf(&llm.Error{Kind: llm.KindRateLimit, StatusCode: 429, RequestID: "r"}); p.Details["statusCode"] != 429 ||
		p.Details["requestId"] != "r" || !p.Retryable {
		t.Errorf("provider details = %+v", p)
	}
}

type codedErr struct{}

func (codedErr) Error() string { return "coded" }
func (codedErr) Code() string  { return "my.code" }
