package llmtest

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// fakes starts one fake of each dialect with the replies, in memory.
func fakes(t *testing.T, replies ...Reply) map[string]*Server {
	return map[string]*Server{
		"chat":      FakeChatCompletionsWith(t, ChatOptions{InMemory: true}, replies...),
		"anthropic": FakeAnthropicWith(t, AnthropicOptions{InMemory: true}, replies...),
	}
}

// send posts a valid streaming request of srv's dialect through its client.
func send(ctx context.Context, t *testing.T, srv *Server) *http.Response {
	t.Helper()
	url, body := ChatBaseURL(srv)+"/chat/completions", request(msgs(userMsg))
	if _, ok := srv.d.(anthropicDialect); ok {
		url, body = srv.URL+"/v1/messages", `{"model":"claude-sonnet-4-5","max_tokens":1024,"stream":true,`+
			`"messages":[{"role":"user","content":"hi"}]}`
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("x-api-key", "k")
	req.Header.Set("anthropic-version", "2023-06-01")
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = resp.Body.Close() })
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("status %d: %s", resp.StatusCode, b)
	}
	return resp
}

// readFor reads resp's body for d of fake time and returns what arrived
// and how the read ended.
func readFor(t *testing.T, srv *Server, d time.Duration) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), d)
	defer cancel()
	b, err := io.ReadAll(send(ctx, t, srv).Body)
	return string(b), err
}

func TestNeverEndingFaults(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		for name, srv := range fakes(t, HeadersThenSilence()) {
			got, err := readFor(t, srv, time.Hour)
			if got != "" || !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("%s: headers then silence: read %q, %v; want nothing until the deadline", name, got, err)
			}
		}
		for name, srv := range fakes(t, KeepAliveForever(15*time.Second)) {
			got, err := readFor(t, srv, time.Minute+time.Second)
			if got != strings.Repeat(": keep-alive\n\n", 4) || !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("%s: keep-alive: read %q, %v", name, got, err)
			}
		}
		for name, srv := range fakes(t, EndlessDeltas(time.Second)) {
			got, err := readFor(t, srv, time.Hour)
			if n := strings.Count(got, "more "); n != 3599 && n != 3600 || !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("%s: endless: %d deltas in an hour, %v", name, n, err)
			}
			if strings.Contains(got, "finish_reason\":\"") || strings.Contains(got, "message_stop") {
				t.Errorf("%s: endless stream finished", name)
			}
		}
		for name, srv := range fakes(t, Text("abc").WithFault(Fault{Stall: true, StallAfter: 1})) {
			got, err := readFor(t, srv, time.Hour)
			if strings.Count(got, "\n\n") != 1 || !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("%s: stall after one event: read %q, %v", name, got, err)
			}
		}
	})
}

func TestBodyFaults(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		for name, srv := range fakes(t, HTML200(), JSON200(`{"object":"list","data":[]}`), Empty200(),
			LongLine(Text("a"), 1<<20), EndAfter(Text("abc"), 2)) {
			for _, want := range []struct{ ct, body string }{
				{"text/html; charset=utf-8", proxyLoginPage},
				{"application/json", `{"object":"list","data":[]}`},
				{"text/event-stream", ""},
			} {
				resp := send(t.Context(), t, srv)
				b, _ := io.ReadAll(resp.Body)
				if ct := resp.Header.Get("Content-Type"); ct != want.ct || string(b) != want.body {
					t.Errorf("%s: got %s %q, want %s %q", name, ct, b, want.ct, want.body)
				}
			}
			b, _ := io.ReadAll(send(t.Context(), t, srv).Body)
			events := strings.Split(strings.TrimSuffix(string(b), "\n\n"), "\n\n")
			if len(events) < 3 || len(events[1]) != len("data: ")+1<<20 {
				t.Errorf("%s: long line: second event has %d bytes", name, len(events[1]))
			}
			b, _ = io.ReadAll(send(t.Context(), t, srv).Body)
			if n := strings.Count(string(b), "\n\n"); n != 2 || strings.Contains(string(b), "[DONE]") ||
				strings.Contains(string(b), "message_stop") {
				t.Errorf("%s: end after 2: %d events:\n%s", name, n, b)
			}
		}
	})
}

// TestLoopbackFaults: the presets work over loopback TCP too.
func TestLoopbackFaults(t *testing.T) {
	srv := FakeChatCompletions(t, HTML200())
	resp := send(t.Context(), t, srv)
	if ct := resp.Header.Get("Content-Type"); ct != "text/html; charset=utf-8" {
		t.Errorf("content type %q", ct)
	}
}
