//go:build unix

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"sync"
)

// Wires the fake model speaks.
const (
	wireOpenAI    = "openai"
	wireAnthropic = "anthropic"
)

// fakeModel is a loopback model service (Chat Completions, or Anthropic
// Messages when wire is "anthropic"). A conversation whose first user
// message says "steps:N" is answered with a tool call (Read of a window of
// a.txt, a different one each step, as a model paging through a file does)
// until it holds N tool results, then with a short text; anything else is
// answered with text at once. onRequest, when set, is called with the
// number of tool calls answered so far and the request's body size before
// each answer.
//
// A compaction request (its last message asks for the handoff note) is
// answered with a short summary. Once a conversation has been compacted
// its tool results are no longer in the request, so the model counts the
// tool calls it has answered instead (one conversation per model).
type fakeModel struct {
	wire        string
	lines       int // lines each Read asks for
	stepsWanted *regexp.Regexp
	onRequest   func(results, bodyBytes int)

	mu     sync.Mutex
	served int // tool calls answered so far; guarded by mu
}

// compactionRequest recognises kimigo's compaction instruction.
var compactionRequest = []byte("handoff note")

func newFakeModel(wire string, lines int, onRequest func(results, bodyBytes int)) *fakeModel {
	if lines <= 0 {
		lines = 5
	}
	return &fakeModel{wire: wire, lines: lines, stepsWanted: regexp.MustCompile(`steps:(\d+)`), onRequest: onRequest}
}

// path is the endpoint the wire serves.
func (f *fakeModel) path() string {
	if f.wire == wireAnthropic {
		return "/v1/messages"
	}
	return "/v1/chat/completions"
}

func (f *fakeModel) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != f.path() {
		http.Error(w, `{"error":{"message":"not found","type":"invalid_request_error"}}`, http.StatusNotFound)
		return
	}
	var req struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	body, err := io.ReadAll(r.Body)
	if err == nil {
		err = json.Unmarshal(body, &req)
	}
	// The reported prompt size grows with the request, as a real model's
	// does (about four bytes a token), so kimigo's compaction sees it.
	prompt := len(body) / 4
	if err != nil {
		http.Error(w, `{"error":{"message":"bad json","type":"invalid_request_error"}}`, http.StatusBadRequest)
		return
	}
	out := newReplyWriter(w, f.wire, prompt)
	if n := len(req.Messages); n > 0 && req.Messages[n-1].Role == "user" &&
		bytes.Contains(req.Messages[n-1].Content, compactionRequest) {
		out.text("Handoff: paging through a.txt with Read, a window per step; carry on from the next window.")
		out.finish(false)
		return
	}
	want := 0
	for _, m := range req.Messages {
		if m.Role == "user" && want == 0 {
			if g := f.stepsWanted.FindSubmatch(m.Content); g != nil {
				want, _ = strconv.Atoi(string(g[1]))
			}
		}
	}
	f.mu.Lock()
	done := f.served
	if done < want {
		f.served++
	}
	f.mu.Unlock()
	if f.onRequest != nil {
		f.onRequest(done, len(body))
	}
	if done < want {
		out.text("Reading on.")
		out.toolCall(fmt.Sprintf("call_%d", done+1), "Read",
			fmt.Sprintf(`{"path":"a.txt","line_offset":%d,"n_lines":%d}`, done%500+1, f.lines))
		out.finish(true)
		return
	}
	out.text("Done.")
	out.finish(false)
}

// replyWriter streams one answer in a wire's SSE dialect.
type replyWriter struct {
	w      http.ResponseWriter
	wire   string
	prompt int
	block  int // Anthropic: the next content block's index
}

func newReplyWriter(w http.ResponseWriter, wire string, prompt int) *replyWriter {
	w.Header().Set("Content-Type", "text/event-stream")
	rw := &replyWriter{w: w, wire: wire, prompt: prompt}
	if wire == wireAnthropic {
		rw.event("message_start", map[string]any{"type": "message_start", "message": map[string]any{
			"id": "msg_bench", "type": "message", "role": "assistant", "model": "bench-model", "content": []any{},
			"stop_reason": nil, "stop_sequence": nil,
			"usage": map[string]any{"input_tokens": prompt, "output_tokens": 1}}})
	}
	return rw
}

func (rw *replyWriter) text(s string) {
	if rw.wire != wireAnthropic {
		rw.chunk(map[string]any{"role": "assistant", "content": s}, nil)
		return
	}
	i := rw.block
	rw.block++
	rw.event("content_block_start", map[string]any{"type": "content_block_start", "index": i,
		"content_block": map[string]any{"type": "text", "text": ""}})
	rw.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
		"delta": map[string]any{"type": "text_delta", "text": s}})
	rw.event("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
}

func (rw *replyWriter) toolCall(id, name, args string) {
	if rw.wire != wireAnthropic {
		call := map[string]any{"index": 0, "id": id, "type": "function",
			"function": map[string]any{"name": name, "arguments": args}}
		rw.chunk(map[string]any{"tool_calls": []any{call}}, nil)
		return
	}
	i := rw.block
	rw.block++
	rw.event("content_block_start", map[string]any{"type": "content_block_start", "index": i,
		"content_block": map[string]any{"type": "tool_use", "id": "toolu_" + id, "name": name, "input": map[string]any{}}})
	rw.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
		"delta": map[string]any{"type": "input_json_delta", "partial_json": args}})
	rw.event("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
}

// finish ends the answer with its stop reason and usage.
func (rw *replyWriter) finish(toolUse bool) {
	if rw.wire != wireAnthropic {
		reason := "stop"
		if toolUse {
			reason = "tool_calls"
		}
		rw.chunk(map[string]any{}, reason)
		fmt.Fprint(rw.w, "data: [DONE]\n\n")
		return
	}
	reason := "end_turn"
	if toolUse {
		reason = "tool_use"
	}
	rw.event("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": reason, "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 5}})
	rw.event("message_stop", map[string]any{"type": "message_stop"})
}

// chunk writes one chat.completion.chunk event; a finish reason comes with
// usage.
func (rw *replyWriter) chunk(delta map[string]any, finish any) {
	chunk := map[string]any{"id": "chatcmpl-bench", "object": "chat.completion.chunk", "created": 0,
		"model": "bench-model", "choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}}
	if finish != nil {
		chunk["usage"] = map[string]any{"prompt_tokens": rw.prompt, "completion_tokens": 5, "total_tokens": rw.prompt + 5}
	}
	rw.event("", chunk)
}

// event writes one SSE event; typ may be empty.
func (rw *replyWriter) event(typ string, v any) {
	b, _ := json.Marshal(v) // maps of plain values always marshal
	if typ != "" {
		fmt.Fprintf(rw.w, "event: %s\n", typ)
	}
	fmt.Fprintf(rw.w, "data: %s\n\n", b)
	if f, ok := rw.w.(http.Flusher); ok {
		f.Flush()
	}
}
