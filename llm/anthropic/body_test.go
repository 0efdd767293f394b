package anthropic

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"

	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/llm/plainjson"
)

// TestRequestBodyIsStreamed (issue 13 item 8): a long conversation is
// encoded while it is sent, with its length, so a request never holds a
// buffer of the conversation's size: sending 8 MiB of history allocates a
// small fraction of it (the server's side included; the first request,
// which the server reads whole, and runs under the race detector, whose
// sync.Pool keeps nothing, are not counted), and the bytes are the
// body plainjson.Marshal encodes.
func TestRequestBodyIsStreamed(t *testing.T) {
	var msgs []llm.Message
	result := strings.Repeat("a line of the file the model pages through\n", 40<<10/44)
	for i := range 200 {
		id := fmt.Sprintf("call_%d", i)
		msgs = append(msgs, llm.UserMessage("go on"),
			llm.AssistantMessage("", llm.ToolCall{ID: id, Name: "Read", Arguments: `{"path":"a.txt"}`}),
			llm.ToolMessage(id, llm.TextPart(result+id)))
	}
	req := llm.Request{System: "You page through files.", Messages: msgs}
	var got []byte
	var length int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		length = r.ContentLength
		if got == nil {
			got, _ = io.ReadAll(r.Body)
		} else {
			_, _ = io.Copy(io.Discard, r.Body)
		}
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, ev("message_start", `{"type":"message_start","message":{"id":"m","usage":{"input_tokens":1}}}`)+
			ev("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":"ok"}}`)+
			ev("message_delta", `{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":1}}`)+
			ev("message_stop", `{"type":"message_stop"}`))
	}))
	defer srv.Close()
	p := New(Options{BaseURL: srv.URL, APIKey: "k", Model: "claude-sonnet-4-5"})
	b, err := p.buildBody(&req)
	if err != nil {
		t.Fatal(err)
	}
	want, err := plainjson.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		if _, err := llm.Generate(t.Context(), p, req, llm.Callbacks{}); err != nil {
			t.Fatal(err)
		}
		runtime.ReadMemStats(&after)
		if i == 0 && string(got) != string(want) {
			t.Fatalf("sent %d bytes that differ from the %d plainjson.Marshal encodes", len(got), len(want))
		}
		if length != int64(len(want)) {
			t.Errorf("request %d: Content-Length %d, body %d bytes", i, length, len(want))
		}
		if alloc := after.TotalAlloc - before.TotalAlloc; i > 0 && !raceEnabled && alloc > uint64(len(want))/4 {
			t.Errorf("request %d allocated %d bytes to send a %d-byte body; want under a quarter of it", i, alloc, len(want))
		}
	}
}
