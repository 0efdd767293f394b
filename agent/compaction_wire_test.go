package agent_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/kimigo/kimigo/agent/agenttest"
	"github.com/kimigo/kimigo/agent/compaction"
	"github.com/kimigo/kimigo/agent/history"
	"github.com/kimigo/kimigo/agent/records"
	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/llm/llmtest"
	"github.com/kimigo/kimigo/llm/openai"
	"github.com/kimigo/kimigo/loop"
	"github.com/kimigo/kimigo/loop/looptest"
)

// The compaction tests run a real agent against a strict loopback Chat
// Completions server: it rejects a request over its window with the real
// context-length 400, so "never sent over the window" is checked on the
// wire.

// summaryMarker is a phrase of the compaction instruction: a request
// carrying it is a summary request.
const summaryMarker = "write a handoff note to yourself"

// prefixMarker is a phrase of the summary prefix the model sees.
const prefixMarker = "The conversation was compacted to free up context."

// openAIOverflowBody is the real context-length 400 of OpenAI.
const openAIOverflowBody = `{"error":{"message":"This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens. Please reduce the length of the messages.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}`

// wire builds a harness whose model is an OpenAI-flavoured provider on a
// strict fake server with the given window (0: no window check); declared
// is the window the agent's capability states (0: the server's).
func wire(t *testing.T, window, declared int, opts ...agenttest.Option) (*llmtest.Server, *agenttest.Harness) {
	t.Helper()
	srv := llmtest.FakeChatCompletionsWith(t, llmtest.ChatOptions{ContextWindow: window})
	p := openai.New(openai.Options{Flavour: openai.OpenAI, BaseURL: llmtest.ChatBaseURL(srv), APIKey: "test-key",
		Model: "fake-model"})
	if declared == 0 {
		declared = window
	}
	base := []agenttest.Option{agenttest.Provider(p),
		agenttest.Capability(&llm.Capability{ToolUse: true, MaxContextTokens: declared})}
	return srv, newHarness(t, append(base, opts...)...)
}

// isSummary reports a summary request.
func isSummary(r *llmtest.Request) bool { return strings.Contains(string(r.Body), summaryMarker) }

// wireMessage is one message of a request body, its content as text.
type wireMessage struct {
	Role, Text string
}

// wireMessages decodes the messages of a request body.
func wireMessages(t *testing.T, r *llmtest.Request) []wireMessage {
	t.Helper()
	var body struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(r.Body, &body); err != nil {
		t.Fatalf("request body: %v", err)
	}
	var out []wireMessage
	for _, m := range body.Messages {
		var s string
		if json.Unmarshal(m.Content, &s) != nil {
			var parts []struct {
				Text string `json:"text"`
			}
			_ = json.Unmarshal(m.Content, &parts) // null content has no text
			for _, p := range parts {
				s += p.Text
			}
		}
		out = append(out, wireMessage{Role: m.Role, Text: s})
	}
	return out
}

// roles lists the roles of msgs.
func roles(msgs []wireMessage) []string {
	var out []string
	for _, m := range msgs {
		out = append(out, m.Role)
	}
	return out
}

// readTool is a Read tool that answers every call with output.
func readTool(output func(n int) string) *looptest.Tool {
	var mu sync.Mutex
	n := 0
	return &looptest.Tool{Name: "Read",
		Schema: `{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`,
		Run: func(context.Context, json.RawMessage, loop.ExecCtx) (loop.ToolResult, error) {
			mu.Lock()
			n++
			i := n
			mu.Unlock()
			return loop.TextResult(output(i)), nil
		}}
}

func fixed(s string) func(int) string { return func(int) string { return s } }

// compactionEvents are the compaction events so far, in order.
func compactionEvents(h *agenttest.Harness) []event.Event {
	var out []event.Event
	for _, ev := range h.Events() {
		switch ev.(type) {
		case event.CompactionStarted, event.CompactionBlocked, event.CompactionCompleted, event.CompactionCancelled:
			out = append(out, ev)
		}
	}
	return out
}

func compactionTypes(h *agenttest.Harness) []event.Type {
	var out []event.Type
	for _, ev := range compactionEvents(h) {
		out = append(out, ev.EventType())
	}
	return out
}

// countType counts the records of type typ.
func countType(h *agenttest.Harness, typ records.Type) int {
	return len(recordStrings(h, typ))
}

// historyJSON is history as bytes, for byte-identity checks.
func historyJSON(t *testing.T, h []history.Message) string {
	t.Helper()
	b, err := json.Marshal(h)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// hold makes summary requests wait until released; every request seen
// is signalled on arrived.
type hold struct {
	arrived chan struct{}
	release chan struct{}
	once    sync.Once
}

func newHold(t *testing.T) *hold {
	h := &hold{arrived: make(chan struct{}, 16), release: make(chan struct{})}
	t.Cleanup(h.Release)
	return h
}

func (h *hold) Release() { h.once.Do(func() { close(h.release) }) }

// wait blocks the server's goroutine until the hold is released.
func (h *hold) wait() {
	h.arrived <- struct{}{}
	<-h.release
}

const (
	typeApply    = records.Type(history.TypeApplyCompaction)
	typeBegin    = compaction.TypeBegin
	typeCancel   = compaction.TypeCancel
	typeComplete = compaction.TypeComplete
)

// readToolOption gives the agent a Read tool with a short answer.
func readToolOption() agenttest.Option {
	return agenttest.Tools(readTool(fixed("package a // the parser")))
}

func decode(r records.Record, v any) error { return records.Decode(r, v) }
