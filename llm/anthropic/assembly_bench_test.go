package anthropic

import (
	"bytes"
	"encoding/json"
	"fmt"
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

// largeArgsStream is a Messages stream of one tool_use block whose input
// arrives in delta-byte input_json_delta events.
func largeArgsStream(args string, delta int) []byte {
	var b bytes.Buffer
	b.WriteString(ev("message_start", `{"type":"message_start","message":{"id":"msg_big","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":20,"output_tokens":1}}}`))
	b.WriteString(ev("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_big","name":"Write","input":{}}}`))
	for i := 0; i < len(args); i += delta {
		q, _ := json.Marshal(args[i:min(i+delta, len(args))])
		fmt.Fprintf(&b, "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":%s}}\n\n", q)
	}
	b.WriteString(ev("content_block_stop", `{"type":"content_block_stop","index":0}`))
	b.WriteString(ev("message_delta", `{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":500000}}`))
	b.WriteString(ev("message_stop", `{"type":"message_stop"}`))
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
	p := New(Options{BaseURL: srv.URL, APIKey: "k", Model: "claude-sonnet-4-5"})
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
