package history_test

import (
	"testing"

	"github.com/kimigo/kimigo/agent/history"
	ht "github.com/kimigo/kimigo/agent/history/historytest"
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/llm/anthropic"
	"github.com/kimigo/kimigo/llm/llmtest"
)

// TestS2StrictViewThroughAnthropic sends the strict view of generated
// histories through the real Anthropic adapter to the loopback fake, which
// rejects what the service rejects: the strict view of any history is
// accepted, for a Claude model (unsigned thinking dropped, signatures
// required) and a compatible backend (unsigned thinking kept). It also
// proves that historytest.CheckAnthropic agrees with the fake.
func TestS2StrictViewThroughAnthropic(t *testing.T) {
	const runs = 150
	for _, model := range []string{"claude-sonnet-4-5", "compatible-model"} {
		t.Run(model, func(t *testing.T) {
			srv := llmtest.FakeAnthropic(t)
			p := anthropic.New(anthropic.Options{BaseURL: srv.URL, APIKey: "test-key", Model: model})
			sent := 0
			defer func() {
				if got := len(srv.Requests()); got != sent || sent < runs/2 {
					t.Errorf("the fake saw %d requests, want %d (of %d histories)", got, sent, runs)
				}
			}()
			for seed := range uint64(runs) {
				h := history.StripDynamicToolContext(ht.Generate(seed))
				msgs := history.Project(h, history.StrictOptions())
				if len(msgs) == 0 {
					continue
				}
				if err := ht.CheckAnthropic(msgs); err != nil {
					t.Fatalf("seed %d: CheckAnthropic: %v", seed, err)
				}
				srv.Add(llmtest.Text("ok"))
				sent++
				if _, err := llm.Generate(t.Context(), p, llm.Request{Messages: msgs}, llm.Callbacks{}); err != nil {
					t.Fatalf("seed %d: the fake rejected the strict view: %v\n%s", seed, err, dumpLLM(msgs))
				}
			}
		})
	}
}

// TestCheckAnthropicAgreesWithTheFakeOnBadLists feeds the checker and the
// fake lists the service rejects.
func TestCheckAnthropicAgreesWithTheFakeOnBadLists(t *testing.T) {
	call := llm.AssistantMessage("", llm.ToolCall{ID: "c1", Name: "Read", Arguments: "{}"})
	result := llm.ToolMessage("c1", llm.TextPart("ok"))
	for _, tt := range []struct {
		name string
		msgs []llm.Message
	}{
		{"assistant first", []llm.Message{llm.AssistantMessage("hi"), llm.UserMessage("u")}},
		{"two assistants", []llm.Message{llm.UserMessage("u"), llm.AssistantMessage("a"), llm.AssistantMessage("b")}},
		{"unanswered call", []llm.Message{llm.UserMessage("u"), call, llm.UserMessage("next")}},
		{"result after text", []llm.Message{llm.UserMessage("u"), call, llm.UserMessage("x"), result}},
		{"whitespace text", []llm.Message{llm.UserMessage(" ")}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if ht.CheckAnthropic(tt.msgs) == nil {
				t.Error("CheckAnthropic accepted it")
			}
			srv := llmtest.FakeAnthropic(t, llmtest.Text("ok"))
			p := anthropic.New(anthropic.Options{BaseURL: srv.URL, APIKey: "test-key", Model: "claude-sonnet-4-5"})
			if _, err := llm.Generate(t.Context(), p, llm.Request{Messages: tt.msgs}, llm.Callbacks{}); err == nil {
				t.Error("the fake accepted it")
			}
		})
	}
}

func TestCheckWireCatchesEachRule(t *testing.T) {
	call := func(ids ...string) llm.Message {
		var calls []llm.ToolCall
		for _, id := range ids {
			calls = append(calls, llm.ToolCall{ID: id, Name: "Read", Arguments: "{}"})
		}
		return llm.AssistantMessage("", calls...)
	}
	res := func(id string) llm.Message { return llm.ToolMessage(id, llm.TextPart("r")) }
	u := llm.UserMessage("u")
	partial := llm.AssistantMessage("p")
	partial.Partial = true
	for _, tt := range []struct {
		name string
		msgs []llm.Message
	}{
		{"S1 first not user", []llm.Message{llm.AssistantMessage("a")}},
		{"S2 missing result", []llm.Message{u, call("a", "b"), res("a"), u}},
		{"S2 foreign result", []llm.Message{u, call("a"), res("b")}},
		{"S2 extra result", []llm.Message{u, call("a"), res("a"), res("a")}},
		{"S3 stray result", []llm.Message{u, res("a")}},
		{"S4 reused call id", []llm.Message{u, call("a"), res("a"), u, call("a"), res("a")}},
		{"S5 blank text", []llm.Message{{Role: llm.RoleUser, Content: []llm.ContentPart{llm.TextPart("x"), llm.TextPart(" ")}}}},
		{"S6 empty message", []llm.Message{u, {Role: llm.RoleAssistant}}},
		{"S7 vacuous message", []llm.Message{u, {Role: llm.RoleAssistant, Content: []llm.ContentPart{llm.ThinkPart(" ", "")}}}},
		{"S8 partial", []llm.Message{u, partial}},
		{"S9 two assistants", []llm.Message{u, llm.AssistantMessage("a"), llm.AssistantMessage("b")}},
	} {
		if err := ht.CheckWire(tt.msgs); err == nil {
			t.Errorf("%s: CheckWire accepted it", tt.name)
		}
	}
	if err := ht.CheckNormal([]llm.Message{u, call("a"), u}); err == nil {
		t.Error("CheckNormal accepted a call the conversation moved past")
	}
	if err := ht.CheckNormal([]llm.Message{u, call("a")}); err != nil {
		t.Errorf("CheckNormal rejected an open tail call: %v", err)
	}
}
