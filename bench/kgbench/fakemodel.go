//go:build unix

package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
)

// fakeModel is a loopback Chat Completions service for the benchmark. It
// keeps no state between requests: a request whose first user message
// says "tools:N" is answered with a tool call (Read of a.txt, one more
// line each time) until the conversation holds N tool results, then with
// a short text; "bash:N" asks for Bash calls (`head -n <k> a.txt`)
// instead; any other prompt is answered with text at once. Each answer is
// streamed as the real service streams it, with usage.
type fakeModel struct {
	toolsWanted *regexp.Regexp // "tools:N" or "bash:N" in the prompt
}

func newFakeModel() fakeModel {
	return fakeModel{toolsWanted: regexp.MustCompile(`(tools|bash):(\d+)`)}
}

// chatRequest is the part of a request the fake reads.
type chatRequest struct {
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
}

func (f fakeModel) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
		http.Error(w, `{"error":{"message":"not found","type":"invalid_request_error"}}`, http.StatusNotFound)
		return
	}
	var req chatRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, `{"error":{"message":"bad json","type":"invalid_request_error"}}`, http.StatusBadRequest)
		return
	}
	want, done, bash := 0, 0, false
	for _, m := range req.Messages {
		switch m.Role {
		case "user":
			if want == 0 {
				if g := f.toolsWanted.FindSubmatch(m.Content); g != nil {
					want, _ = strconv.Atoi(string(g[2]))
					bash = string(g[1]) == "bash"
				}
			}
		case "tool":
			done++
		}
	}
	w.Header().Set("Content-Type", "text/event-stream")
	if done < want {
		// Each call asks for a different line count, so the repeat guard
		// (spec 03 §3.4) sees no repeated call.
		fn := map[string]any{"name": "Read", "arguments": fmt.Sprintf(`{"path":"a.txt","n_lines":%d}`, done+1)}
		if bash {
			fn = map[string]any{"name": "Bash", "arguments": fmt.Sprintf(`{"command":"head -n %d a.txt"}`, done+1)}
		}
		call := map[string]any{"index": 0, "id": fmt.Sprintf("call_%d", done+1), "type": "function", "function": fn}
		writeChunk(w, map[string]any{"role": "assistant", "tool_calls": []any{call}}, nil)
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
