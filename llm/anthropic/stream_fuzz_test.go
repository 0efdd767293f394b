package anthropic

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"testing"

	"github.com/kimigo/kimigo/llm"
)

func FuzzAnthropicStream(f *testing.F) {
	full := ev("message_start", `{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"usage":{"input_tokens":19,"cache_read_input_tokens":2,"cache_creation_input_tokens":1,"output_tokens":1}}}`) +
		ev("ping", `{"type": "ping"}`) +
		ev("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":""}}`) +
		ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"hm"}}`) +
		ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"EqQB"}}`) +
		ev("content_block_stop", `{"type":"content_block_stop","index":0}`) +
		ev("content_block_start", `{"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}`) +
		ev("content_block_delta", `{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"Hello from Anthropic"}}`) +
		ev("content_block_stop", `{"type":"content_block_stop","index":1}`) +
		ev("content_block_start", `{"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"toolu_1","name":"add","input":{}}}`) +
		ev("content_block_delta", `{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"{\"a\":2"}}`) +
		ev("content_block_delta", `{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":",\"b\":3}"}}`) +
		ev("content_block_stop", `{"type":"content_block_stop","index":2}`) +
		ev("message_delta", `{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":7}}`) +
		ev("message_stop", `{"type":"message_stop"}`)
	f.Add([]byte(full))
	f.Add([]byte(full[:len(full)/2]))
	f.Add([]byte(ev("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"redacted_thinking","data":"x"}}`)))
	f.Add([]byte(ev("error", `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`)))
	f.Add([]byte(ev("error", `{"type":"error","error":{"type":"api_error","message":"boom"}}`)))
	f.Add([]byte(ev("message_delta", `{"delta":{"stop_reason":null},"usage":{"output_tokens":-1,"input_tokens":1e300}}`)))
	f.Add([]byte("event: content_block_delta\r\ndata: {\"index\":0,\r\ndata: \"delta\":{\"type\":\"text_delta\",\"text\":\"x\"}}\r\n\r\n"))
	f.Add([]byte(": comment\n\nevent: ping\n\n"))
	f.Add([]byte("data: [DONE]\n\n"))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		ctx := context.Background()
		s := newStream(ctx, ctx, io.NopCloser(bytes.NewReader(data)), nil)
		defer func() { _ = s.Close() }()
		for parts := 0; ; parts++ {
			if parts > len(data) {
				t.Fatalf("%d parts from %d bytes", parts, len(data))
			}
			_, err := s.Next()
			if err == io.EOF {
				if u, ok := s.Usage(); !ok || u.InputOther < 0 || u.Output < 0 || u.InputCacheRead < 0 || u.InputCacheCreation < 0 {
					t.Fatalf("usage %+v reported=%v", u, ok)
				}
				return
			}
			if err != nil {
				e, ok := llm.AsError(err)
				if !ok || e.Message == "" {
					t.Fatalf("error %#v is not a classified *llm.Error with a message", err)
				}
				if _, again := s.Next(); again != err {
					t.Fatalf("error not sticky: %v then %v", err, again)
				}
				return
			}
		}
	})
}

// FuzzDeltaFastPath checks that the content_block_delta fast path agrees
// with encoding/json whenever it accepts an input.
func FuzzDeltaFastPath(f *testing.F) {
	for _, s := range []string{
		`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hello"}}`,
		`{"type":"content_block_delta","index":12,"delta":{"type":"input_json_delta","partial_json":"{\"a\":\"\\u00e9\\n\"}"}}`,
		`{"type":"content_block_delta","index":3,"delta":{"type":"thinking_delta","thinking":"\ud83d\ude00 ok"}}`,
		`{"type":"content_block_delta","index":1,"delta":{"type":"signature_delta","signature":"EqQB+/="}}`,
		`{"type":"content_block_delta","index":01,"delta":{"type":"text_delta","text":"x"}}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a\"}}`,
		"{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"\xff\"}}",
		"{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"\x01\"}}",
		`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"tab\there \"q\" back\\slash \/ \b\f\r\n"}}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"bad \x escape"}}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"ends in \"}}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"\u0000\/"}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var fast blockDeltaEvent
		scratch := []byte("left over")
		text, ok := decodeDeltaFast(data, &fast, &scratch)
		if !ok {
			return
		}
		switch fast.Delta.Type { // the fast path returns the text; encoding/json fills its field
		case deltaText:
			fast.Delta.Text = string(text)
		case deltaThinking:
			fast.Delta.Thinking = string(text)
		case deltaInputJSON:
			fast.Delta.PartialJSON = string(text)
		case deltaSignature:
			fast.Delta.Signature = string(text)
		}
		var slow blockDeltaEvent
		if err := json.Unmarshal(data, &slow); err != nil {
			t.Fatalf("fast path accepted what encoding/json rejects (%v): %q", err, data)
		}
		if fast != slow {
			t.Fatalf("fast %+v != encoding/json %+v for %q", fast, slow, data)
		}
	})
}
