package anthropic

import (
	"runtime"
	"strings"
	"testing"

	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/llm/plainjson"
)

// TestEncodeBodyMatchesEncodeJSON: the body written a message at a time is
// byte for byte the body encoding/json writes in one piece.
func TestEncodeBodyMatchesEncodeJSON(t *testing.T) {
	temp, topK := 0.5, 3
	p := New(Options{Model: "claude-sonnet-4-5", Temperature: &temp, TopK: &topK, MetadataUserID: "u<1>"})
	req := &llm.Request{System: "be <brief>", Tools: []llm.Tool{{Name: "Read", Description: "reads & more"}},
		Messages: []llm.Message{llm.UserMessage("hi <there>"),
			llm.AssistantMessage("ok", llm.ToolCall{ID: "c1", Name: "Read", Arguments: `{"path":"a&b"}`}),
			llm.ToolMessage("c1", llm.TextPart("line\n\tmore \u2028"))}}
	for _, tt := range []struct {
		name string
		p    *Provider
		req  *llm.Request
	}{
		{"full", p.WithThinking("high").(*Provider), req},
		{"plain", New(Options{Model: "m"}), &llm.Request{Messages: []llm.Message{llm.UserMessage("x")}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b, err := tt.p.buildBody(tt.req)
			if err != nil {
				t.Fatal(err)
			}
			want, err := plainjson.Marshal(b)
			if err != nil {
				t.Fatal(err)
			}
			got, err := encodeBody(b)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != string(want) {
				t.Errorf("encodeBody:\n%s\nplainjson.Marshal:\n%s", got, want)
			}
		})
	}
	b := &requestBody{Model: "m"}
	want, _ := plainjson.Marshal(b)
	if got, _ := encodeBody(b); string(got) != string(want) {
		t.Errorf("nil messages: encodeBody %s, plainjson.Marshal %s", got, want)
	}
}

// TestEncodeBodyLeavesNoRequestSizedBuffer: after a large request is
// encoded, encoding/json's buffer pool holds nothing near its size (the
// Anthropic wire's memory growth of issue 13 item 8). Live heap is read
// after one collection, which keeps what the pool holds.
func TestEncodeBodyLeavesNoRequestSizedBuffer(t *testing.T) {
	var msgs []llm.Message
	for i := range 200 {
		msgs = append(msgs, llm.UserMessage(strings.Repeat("x", 40<<10)+string(rune('a'+i%26))),
			llm.AssistantMessage("ok"))
	}
	p := New(Options{Model: "claude-sonnet-4-5"})
	b, err := p.buildBody(&llm.Request{Messages: msgs})
	if err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	size := func() int {
		data, err := encodeBody(b)
		if err != nil {
			t.Fatal(err)
		}
		return len(data)
	}()
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(b)
	if grew := int64(after.HeapAlloc) - int64(before.HeapAlloc); grew > int64(size)/2 {
		t.Errorf("encoding a %d-byte body left the heap %d bytes larger; want well under the body's size", size, grew)
	}
}

// encodeBody is the request body in one buffer: the bytes the transport
// sends.
func encodeBody(b *requestBody) ([]byte, error) {
	body, err := newBody(b, nil)
	if err != nil {
		return nil, err
	}
	return body.Bytes()
}
