package turn_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/kimigo/kimigo/agent/turn"
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/llm/anthropic"
	"github.com/kimigo/kimigo/llm/llmtest"
	"github.com/kimigo/kimigo/llm/openai"
	"github.com/kimigo/kimigo/loop"
	"github.com/kimigo/kimigo/loop/looptest"
)

// wire is one provider family pointed at its strict loopback fake.
type wire struct {
	name string
	// serve starts a fake server with the replies and returns a provider
	// that talks to it.
	serve func(t *testing.T, headerTimeout time.Duration, replies ...llmtest.Reply) (*llmtest.Server, llm.Provider)
	// presets for the faults this wire's service really sends.
	rateLimited     func(retryAfter int) llmtest.Reply
	serverError     func() llmtest.Reply
	unavailable     func() llmtest.Reply
	overloaded      func() llmtest.Reply
	tooLarge        func() llmtest.Reply
	contextOverflow func() llmtest.Reply
}

var kimiWire = wire{
	name: "kimi",
	serve: func(t *testing.T, headerTimeout time.Duration, replies ...llmtest.Reply) (*llmtest.Server, llm.Provider) {
		srv := llmtest.FakeChatCompletionsWith(t, llmtest.ChatOptions{Flavour: llmtest.ChatKimi}, replies...)
		return srv, openai.New(openai.Options{Flavour: openai.Kimi, BaseURL: llmtest.ChatBaseURL(srv),
			APIKey: "test-key", Model: "kimi-k2", ResponseHeaderTimeout: headerTimeout})
	},
	rateLimited: llmtest.ChatRateLimited,
	serverError: llmtest.ChatServerError,
	unavailable: llmtest.ChatUnavailable,
	overloaded: func() llmtest.Reply {
		return llmtest.Status(529, `{"error":{"message":"The engine is overloaded","type":"engine_overloaded_error"}}`)
	},
	tooLarge:        llmtest.ChatTooLarge,
	contextOverflow: func() llmtest.Reply { return llmtest.ChatContextOverflow(262144, 274613) },
}

var anthropicWire = wire{
	name: "anthropic",
	serve: func(t *testing.T, headerTimeout time.Duration, replies ...llmtest.Reply) (*llmtest.Server, llm.Provider) {
		srv := llmtest.FakeAnthropic(t, replies...)
		return srv, anthropic.New(anthropic.Options{BaseURL: srv.URL, APIKey: "test-key",
			Model: "claude-sonnet-4-5", ResponseHeaderTimeout: headerTimeout})
	},
	rateLimited: llmtest.AnthropicRateLimited,
	serverError: llmtest.AnthropicServerError,
	unavailable: func() llmtest.Reply {
		return llmtest.Status(503, llmtest.AnthropicErrorBody("api_error", "Service Unavailable"))
	},
	overloaded:      llmtest.AnthropicOverloaded,
	tooLarge:        llmtest.AnthropicRequestTooLarge,
	contextOverflow: func() llmtest.Reply { return llmtest.AnthropicPromptTooLong(210000, 200000) },
}

// conversation is a minimal host for wire tests: it folds the loop's
// recorded events into messages the way the agent's history does, and
// projects them by dropping assistant messages a step left empty. The real
// history and projection are tested in agent/history.
type conversation struct {
	mu   sync.Mutex
	msgs []llm.Message // guarded by mu
	rec  looptest.Recorder
	// fields holds the RequestLogFields of every request sent.
	fields []loop.RequestLogFields
}

func newConversation(prompt string) *conversation {
	return &conversation{msgs: []llm.Message{llm.UserMessage(prompt)}}
}

func (c *conversation) append(ctx context.Context, ev loop.RecordedEvent) error {
	if err := c.rec.Append(ctx, ev); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	last := func() *llm.Message { return &c.msgs[len(c.msgs)-1] }
	switch e := ev.(type) {
	case loop.StepBeginEvent:
		c.msgs = append(c.msgs, llm.Message{Role: llm.RoleAssistant})
	case loop.ContentPartEvent:
		last().Content = append(last().Content, e.Part)
	case loop.ToolCallEvent:
		for i := len(c.msgs) - 1; i >= 0; i-- {
			if c.msgs[i].Role == llm.RoleAssistant {
				c.msgs[i].ToolCalls = append(c.msgs[i].ToolCalls,
					llm.ToolCall{ID: e.ToolCallID, Name: e.Name, Arguments: string(e.Args)})
				break
			}
		}
	case loop.ToolResultEvent:
		out := e.Result.Output.Text()
		if e.Result.Output.IsParts() {
			out = llm.ExtractText(llm.Message{Content: e.Result.Output.Parts()}, "")
		}
		c.msgs = append(c.msgs, llm.ToolMessage(e.ToolCallID, llm.TextPart(out)))
	}
	return nil
}

func (c *conversation) addUser(text string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.msgs = append(c.msgs, llm.UserMessage(text))
}

func (c *conversation) build(context.Context) ([]llm.Message, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []llm.Message
	for _, m := range c.msgs {
		if m.Role == llm.RoleAssistant && len(m.Content) == 0 && len(m.ToolCalls) == 0 {
			continue
		}
		out = append(out, m.Clone())
	}
	return out, nil
}

// run runs one turn of c through p with the echo tool and instant sleeps.
func (c *conversation) run(t *testing.T, p llm.Provider, mutate ...func(*loop.RunTurnInput)) (loop.TurnResult, *looptest.Sleeper, error) {
	t.Helper()
	sleeper := &looptest.Sleeper{}
	adapter := turn.NewLLM(turn.LLMOptions{
		Provider: p,
		Generate: func(ctx context.Context, pr llm.Provider, req llm.Request, cb llm.Callbacks, f loop.RequestLogFields) (*llm.Result, error) {
			c.mu.Lock()
			c.fields = append(c.fields, f)
			c.mu.Unlock()
			return llm.Generate(ctx, pr, req, cb)
		},
	})
	in := loop.RunTurnInput{
		TurnID:        "turn-1",
		LLM:           adapter,
		BuildMessages: c.build,
		Dispatch:      loop.NewDispatcher(c.append, c.rec.Emit),
		Tools:         []loop.ExecutableTool{looptest.Echo()},
		Options:       loop.Options{Sleep: sleeper.Sleep, Jitter: func() float64 { return 0 }},
	}
	for _, m := range mutate {
		m(&in)
	}
	res, err := loop.RunTurn(t.Context(), in)
	return res, sleeper, err
}

// acceptedAll fails the test when the strict server rejected any request.
func acceptedAll(t *testing.T, srv *llmtest.Server) {
	t.Helper()
	for i, r := range srv.Requests() {
		if r.Rejected != 0 {
			t.Errorf("request %d rejected by the strict server: %d %s", i, r.Rejected, r.RejectReason)
		}
	}
}

func contentTexts(rec *looptest.Recorder) []string {
	var out []string
	for _, e := range looptest.RecordedOfType[loop.ContentPartEvent](rec) {
		out = append(out, e.Part.Text)
	}
	return out
}

func mustJSON(t *testing.T, b []byte) map[string]any {
	t.Helper()
	var v map[string]any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, b)
	}
	return v
}
