//go:build unix

package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// fakeModel is a loopback Chat Completions service for the benchmark. It
// keeps no state between requests: a request whose first user message
// says "tools:N" is answered with a tool call (Read of a.txt, one more
// line each time) until the conversation holds N tool results, then with
// a short text; "bash:N" asks for Bash calls (`head -n <k> a.txt`)
// instead; "agents:N" asks for N background Agent calls in one response,
// and each child's task ("Subagent task k") is answered with a 250-character
// handoff; any other prompt is answered with text at once. Each answer is
// streamed as the real service streams it, with usage.
//
// For the subagent scenario it notes when it finished sending the Agent
// calls and when each child's first request arrived; GET /v1/stats
// returns those delays in milliseconds (and forgets them).
type fakeModel struct {
	toolsWanted  *regexp.Regexp // "tools:N" or "bash:N" in the prompt
	agentsWanted *regexp.Regexp // "agents:N"

	mu     sync.Mutex
	sent   time.Time            // the last Agent calls were sent
	firsts map[string]time.Time // a child's first request, by task
	delays []float64            // ms from sent to each child's first request
}

func newFakeModel() *fakeModel {
	return &fakeModel{toolsWanted: regexp.MustCompile(`(tools|bash):(\d+)`), agentsWanted: regexp.MustCompile(`agents:(\d+)`),
		firsts: map[string]time.Time{}}
}

// stats serves and forgets the children's delays.
func (f *fakeModel) stats(w http.ResponseWriter) {
	f.mu.Lock()
	d := f.delays
	f.delays = nil
	f.mu.Unlock()
	slices.Sort(d)
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(d) // a failed write only loses the figures
}

// chatRequest is the part of a request the fake reads.
type chatRequest struct {
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
}

func (f *fakeModel) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodGet && r.URL.Path == "/v1/stats" {
		f.stats(w)
		return
	}
	if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
		http.Error(w, `{"error":{"message":"not found","type":"invalid_request_error"}}`, http.StatusNotFound)
		return
	}
	var req chatRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, `{"error":{"message":"bad json","type":"invalid_request_error"}}`, http.StatusBadRequest)
		return
	}
	want, done, bash, agents, first := 0, 0, false, 0, ""
	for _, m := range req.Messages {
		switch m.Role {
		case "user":
			if first == "" {
				first = string(m.Content)
				if g := f.agentsWanted.FindStringSubmatch(first); g != nil {
					agents, _ = strconv.Atoi(g[1])
				}
			}
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
	if task := strings.Index(first, "Subagent task "); task >= 0 && done == 0 {
		f.childArrived(first[task:])
	}
	switch {
	case agents > 0 && done == 0:
		var calls []any
		for k := range agents {
			args, _ := json.Marshal(map[string]any{"prompt": fmt.Sprintf("Subagent task %d: report on part %d.", k, k),
				"description": fmt.Sprintf("Part %d", k), "run_in_background": true})
			calls = append(calls, map[string]any{"index": k, "id": fmt.Sprintf("call_a%d", k), "type": "function",
				"function": map[string]any{"name": "Agent", "arguments": string(args)}})
		}
		writeChunk(w, map[string]any{"role": "assistant", "tool_calls": calls}, nil)
		writeChunk(w, map[string]any{}, "tool_calls")
		fmt.Fprint(w, "data: [DONE]\n\n")
		f.mu.Lock()
		f.sent, f.firsts = time.Now(), map[string]time.Time{} // a new run's children
		f.mu.Unlock()
		return
	case strings.Contains(first, "Subagent task "):
		writeChunk(w, map[string]any{"role": "assistant", "content": "Part checked. " + strings.Repeat("Nothing to report. ", 12)}, nil)
		writeChunk(w, map[string]any{}, "stop")
		fmt.Fprint(w, "data: [DONE]\n\n")
		return
	}
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

// childArrived notes a child's first request.
func (f *fakeModel) childArrived(task string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.firsts[task]; ok || f.sent.IsZero() {
		return
	}
	now := time.Now()
	f.firsts[task] = now
	f.delays = append(f.delays, float64(now.Sub(f.sent).Microseconds())/1000)
}
