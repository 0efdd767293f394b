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

// fakeModel is a loopback Chat Completions service that keeps no state
// between requests. A conversation whose first user message says
// "steps:N" is answered with a tool call (Read of a window of a.txt, a
// different one each step, as a model paging through a file does) until
// it holds N tool results, then with a short text; anything else is
// answered with text at once. onRequest, when set, is called with the
// number of tool results before each answer.
//
// A compaction request (its last message asks for the handoff note) is
// answered with a short summary. Once a conversation has been compacted
// its tool results are no longer in the request, so the model counts the
// tool calls it has answered instead (one conversation per model).
type fakeModel struct {
	stepsWanted *regexp.Regexp
	onRequest   func(results int)

	mu     sync.Mutex
	served int // tool calls answered so far; guarded by mu
}

// compactionRequest recognises kimigo's compaction instruction.
var compactionRequest = []byte("handoff note")

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
	if n := len(req.Messages); n > 0 && req.Messages[n-1].Role == "user" &&
		bytes.Contains(req.Messages[n-1].Content, compactionRequest) {
		w.Header().Set("Content-Type", "text/event-stream")
		writeChunk(w, prompt, map[string]any{"role": "assistant",
			"content": "Handoff: paging through a.txt with Read, five lines per step; carry on from the next window."}, nil)
		writeChunk(w, prompt, map[string]any{}, "stop")
		fmt.Fprint(w, "data: [DONE]\n\n")
		return
	}
	want := 0
	for _, m := range req.Messages {
		switch m.Role {
		case "user":
			if want == 0 {
				if g := f.stepsWanted.FindSubmatch(m.Content); g != nil {
					want, _ = strconv.Atoi(string(g[1]))
				}
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
		f.onRequest(done)
	}
	w.Header().Set("Content-Type", "text/event-stream")
	if done < want {
		args := fmt.Sprintf(`{"path":"a.txt","line_offset":%d,"n_lines":5}`, done%500+1)
		call := map[string]any{"index": 0, "id": fmt.Sprintf("call_%d", done+1), "type": "function",
			"function": map[string]any{"name": "Read", "arguments": args}}
		writeChunk(w, prompt, map[string]any{"role": "assistant", "content": "Reading on."}, nil)
		writeChunk(w, prompt, map[string]any{"tool_calls": []any{call}}, nil)
		writeChunk(w, prompt, map[string]any{}, "tool_calls")
	} else {
		writeChunk(w, prompt, map[string]any{"role": "assistant", "content": "Done."}, nil)
		writeChunk(w, prompt, map[string]any{}, "stop")
	}
	fmt.Fprint(w, "data: [DONE]\n\n")
}

// writeChunk writes one chat.completion.chunk event; a finish reason
// comes with usage.
func writeChunk(w http.ResponseWriter, prompt int, delta map[string]any, finish any) {
	chunk := map[string]any{"id": "chatcmpl-bench", "object": "chat.completion.chunk", "created": 0,
		"model": "bench-model", "choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}}
	if finish != nil {
		chunk["usage"] = map[string]any{"prompt_tokens": prompt, "completion_tokens": 5, "total_tokens": prompt + 5}
	}
	b, _ := json.Marshal(chunk) // maps of plain values always marshal
	fmt.Fprintf(w, "data: %s\n\n", b)
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}
