package anthropic

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
)

// benchStream builds a realistic stream of about size bytes: a thinking
// block of short deltas, a text block of short deltas, and a tool call
// whose large arguments arrive as a long run of input_json_delta events.
func benchStream(size int) []byte {
	var b bytes.Buffer
	quote := func(s string) string { q, _ := json.Marshal(s); return string(q) }
	b.WriteString(ev("message_start", `{"type":"message_start","message":{"id":"msg_bench","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":2095,"cache_creation_input_tokens":0,"cache_read_input_tokens":18000,"output_tokens":1}}}`))
	b.WriteString(ev("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":""}}`))
	words := strings.Fields("Let me look at the failing test first, then check how the parser handles an empty line — it may \"skip\" the terminator.")
	for i := 0; b.Len() < size/4; i++ {
		fmt.Fprintf(&b, "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"thinking_delta\",\"thinking\":%s}}\n\n", quote(words[i%len(words)]+" "))
	}
	b.WriteString(ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"EqQBCkYIBxgCIkDj0mVJ2rQz+X4k5dM="}}`))
	b.WriteString(ev("content_block_stop", `{"type":"content_block_stop","index":0}`))
	b.WriteString(ev("content_block_start", `{"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}`))
	for i := 0; b.Len() < size/2; i++ {
		if i%50 == 0 {
			b.WriteString(ev("ping", `{"type": "ping"}`))
		}
		fmt.Fprintf(&b, "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"text_delta\",\"text\":%s}}\n\n", quote(words[i%len(words)]+" "))
	}
	b.WriteString(ev("content_block_stop", `{"type":"content_block_stop","index":1}`))
	b.WriteString(ev("content_block_start", `{"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"toolu_01","name":"Write","input":{}}}`))
	src := `func main() {\n\tfmt.Println(\"hello, \\\"world\\\"\")\n}\n`
	for b.Len() < size {
		fmt.Fprintf(&b, "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":2,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":%s}}\n\n", quote(src))
	}
	b.WriteString(ev("content_block_stop", `{"type":"content_block_stop","index":2}`))
	b.WriteString(ev("message_delta", `{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":9000}}`))
	b.WriteString(ev("message_stop", `{"type":"message_stop"}`))
	return b.Bytes()
}

func BenchmarkSSEDecode(b *testing.B) {
	data := benchStream(1 << 20)
	ctx := context.Background()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		s := newStream(ctx, ctx, io.NopCloser(bytes.NewReader(data)), nil)
		for {
			if _, err := s.Next(); err != nil {
				if err != io.EOF {
					b.Fatal(err)
				}
				break
			}
		}
	}
}
