package openai

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/kimigo/kimigo/llm"
)

// The large-arguments stream (issue 13 item 3): a Write call whose 2 MiB of
// arguments arrive in 16-byte deltas, as real services stream them.
const (
	largeArgsSize  = 2 << 20
	largeArgsDelta = 16
)

// largeArgs returns about size bytes of Write arguments.
func largeArgs(size int) string {
	var b strings.Builder
	b.WriteString(`{"path":"big.go","content":"`)
	for b.Len() < size-2 {
		b.WriteString(`func f() {\n\treturn 42\n}\n`)
	}
	b.WriteString(`"}`)
	return b.String()
}

// largeArgsStream is a Chat Completions stream of one tool call whose
// arguments arrive in delta-byte pieces.
func largeArgsStream(args string, delta int) []byte {
	var b bytes.Buffer
	chunk := func(call map[string]any) {
		data, _ := json.Marshal(map[string]any{"id": "chatcmpl-big", "object": "chat.completion.chunk",
			"created": 1730000000, "model": "kimi-k2-turbo-preview",
			"choices": []any{map[string]any{"index": 0, "delta": map[string]any{"tool_calls": []any{call}},
				"finish_reason": nil}}})
		b.WriteString("data: ")
		b.Write(data)
		b.WriteString("\n\n")
	}
	chunk(map[string]any{"index": 0, "id": "call_big", "type": "function",
		"function": map[string]any{"name": "Write", "arguments": ""}})
	for i := 0; i < len(args); i += delta {
		chunk(map[string]any{"index": 0, "function": map[string]any{"arguments": args[i:min(i+delta, len(args))]}})
	}
	b.WriteString(`data: {"id":"chatcmpl-big","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}` + "\n\n")
	b.WriteString("data: [DONE]\n\n")
	return b.Bytes()
}

// BenchmarkGenerateLargeToolArgs streams a 2 MiB Write whose arguments
// arrive in 16-byte deltas through the real provider (HTTP over loopback,
// the SSE decoder, llm.Generate's assembly). Goal: under 100 ms and under
// three times the argument size allocated per operation.
func BenchmarkGenerateLargeToolArgs(b *testing.B) {
	args := largeArgs(largeArgsSize)
	stream := largeArgsStream(args, largeArgsDelta)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write(stream)
	}))
	defer srv.Close()
	p := New(Options{Flavour: OpenAI, BaseURL: srv.URL + "/v1", APIKey: "k", Model: "gpt-bench"})
	req := llm.Request{Messages: []llm.Message{llm.UserMessage("write big.go")}}
	b.SetBytes(int64(len(args)))
	b.ReportAllocs()
	for b.Loop() {
		res, err := llm.Generate(b.Context(), p, req, llm.Callbacks{})
		if err != nil {
			b.Fatal(err)
		}
		if got := res.Message.ToolCalls; len(got) != 1 || len(got[0].Arguments) != len(args) {
			b.Fatalf("assembled %d calls; want one with %d bytes of arguments", len(got), len(args))
		}
	}
}
