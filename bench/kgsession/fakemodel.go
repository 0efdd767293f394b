//go:build unix

package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
)

// fakeModel is a loopback Chat Completions service that keeps no state
// between requests. A conversation whose first user message says
// "steps:N" is answered with a tool call (Read of a window of a.txt, a
// different one each step, as a model paging through a file does) until
// it holds N tool results, then with a short text; anything else is
// answered with text at once. onRequest, when set, is called with the
// number of tool results before each answer.
type fakeModel struct {
	stepsWanted *regexp.Regexp
	onRequest   func(results int)
}

func newFakeModel(onRequest func(int)) *fakeModel {
	return &fakeModel{stepsWanted: regexp.MustCompile(`steps:(\d+)`), onRequest: onRequest}
}

func (f *fakeModel) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
		http.Error(w, `{"error":{"message":"not found","type":"invalid_request_error"}}`, http.StatusNotFound)
		return
	}
	var req struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, `{"error":{"message":"bad json","type":"invalid_request_error"}}`, http.StatusBadRequest)
		return
	}
	want, done := 0, 0
	for _, m := range req.Messages {
		switch m.Role {
		case "user":
			if want == 0 {
				if g := f.stepsWanted.FindSubmatch(m.Content); g != nil {
					want, _ = strconv.Atoi(string(g[1]))
				}
			}
		case "tool":
			done++
		}
	}
	if f.onRequest != nil {
		f.onRequest(done)
	}
	w.Header().Set("Content-Type", "text/event-stream")
	if done < want {
		args := fmt.Sprintf(`{"path":"a.txt","line_offset":%d,"n_lines":5}`, done%500+1)
		call := map[string]any{"index": 0, "id": fmt.Sprintf("call_%d", done+1), "type": "function",
			"function": map[string]any{"name": "Read", "arguments": args}}
		writeChunk(w, map[string]any{"role": "assistant", "content": "Reading on."}, nil)
		writeChunk(w, map[string]any{"tool_calls": []any{call}}, nil)
		writeChunk(w, map[string]any{}, "tool_calls")
	} else {
		writeChunk(w, map[string]any{"role": "assistant", "content": "Done."}, nil)
		writeChunk(w, map[string]any{}, "stop")
	}
	fmt.Fprint(w, "data: [DONE]\n\n")
}

// writeChunk writes one chat.completion.chunk event; a finish reason
// comes with usage.
func writeChunk(w http.ResponseWriter, delta map[string]any, finish any) {
	chunk := map[string]any{"id": "chatcmpl-bench", "object": "chat.completion.chunk", "created": 0,
		"model": "bench-model", "choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}}
	if finish != nil {
		chunk["usage"] = map[string]any{"prompt_tokens": 100, "completion_tokens": 5, "total_tokens": 105}
	}
	b, _ := json.Marshal(chunk) // maps of plain values always marshal
	fmt.Fprintf(w, "data: %s\n\n", b)
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}
