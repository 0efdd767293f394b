package llmtest

import (
	"context"
	"io"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/kimigo/kimigo/llm"
)

// Presets for the faults of a service that stalls, never ends, or answers
// 200 with something that is not a stream. They work on both dialects.

// HeadersThenSilence answers 200 with the stream's headers and then sends
// nothing, until the client goes away.
func HeadersThenSilence() Reply { return Reply{Fault: Fault{Stall: true}} }

// KeepAliveForever answers 200 and then sends only an SSE comment every
// interval, until the client goes away.
func KeepAliveForever(every time.Duration) Reply { return Reply{Fault: Fault{KeepAlive: every}} }

// EndlessDeltas answers 200, opens a text answer and streams a text delta
// every interval, never finishing, until the client goes away.
func EndlessDeltas(every time.Duration) Reply { return Reply{Fault: Fault{Endless: every}} }

// proxyLoginPage is what a wrong base URL often reaches: a web page.
const proxyLoginPage = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n" +
	"<title>Sign in - Example Gateway</title>\n</head>\n<body>\n<form method=\"post\">\n" +
	"<input name=\"user\"><input name=\"password\" type=\"password\">\n</form>\n</body>\n</html>\n"

// HTML200 answers 200 text/html with a web page, as a wrong base URL or a
// captive portal does.
func HTML200() Reply {
	return Reply{Fault: Fault{Status: http.StatusOK, Body: proxyLoginPage, ContentType: "text/html; charset=utf-8"}}
}

// JSON200 answers 200 application/json with body (which may be empty)
// where a stream was asked for.
func JSON200(body string) Reply {
	return Reply{Fault: Fault{Status: http.StatusOK, Body: body, EmptyBody: body == "", ContentType: "application/json"}}
}

// Empty200 answers 200 text/event-stream with no body at all.
func Empty200() Reply {
	return Reply{Fault: Fault{Status: http.StatusOK, EmptyBody: true, ContentType: "text/event-stream"}}
}

// LongLine is r with an event after its first whose data line is n bytes,
// over the client's limit when n is larger than 32 MiB.
func LongLine(r Reply, n int) Reply {
	r.Fault.LongLine = n
	return r
}

// EndAfter is r cut cleanly after its first n events: the body ends at an
// event boundary without the end marker.
func EndAfter(r Reply, n int) Reply {
	r.Fault.EndAfter = n
	return r
}

// EndBefore is r cut cleanly before its first event that contains marker.
func EndBefore(r Reply, marker string) Reply {
	r.Fault.EndBefore = marker
	return r
}

// endless plays the faults that never end the body; it reports whether f
// was one of them.
func (s *Server) endless(w http.ResponseWriter, hr *http.Request, f Fault) bool {
	every, text := f.KeepAlive, false
	if f.Endless > 0 {
		every, text = f.Endless, true
	}
	if every <= 0 {
		return false
	}
	flusher := w.(http.Flusher)
	var delta string
	if text {
		var head []string
		head, delta = s.d.textStream("more ")
		for _, ev := range head {
			if _, err := io.WriteString(w, ev); err != nil {
				return true
			}
		}
		flusher.Flush()
	}
	for sleepCtx(hr, every) {
		ev := ": keep-alive\n\n"
		if text {
			ev = delta
		}
		if _, err := io.WriteString(w, ev); err != nil {
			return true
		}
		flusher.Flush()
	}
	return true
}

func (d chatDialect) textStream(text string) ([]string, string) {
	id := "chatcmpl-fake"
	return []string{d.chunk(id, deltaChoice(map[string]any{"role": "assistant", "content": ""}), nil)},
		d.chunk(id, deltaChoice(map[string]any{"content": text}), nil)
}

func (anthropicDialect) textStream(text string) ([]string, string) {
	e := &anthropicEncoder{open: -1, toolBlock: map[int]int{}, stopped: map[int]bool{}}
	e.emit("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": "msg_fake", "type": "message", "role": "assistant", "model": "fake-model",
		"content": []any{}, "stop_reason": nil, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": 1, "output_tokens": 1}}})
	e.part(llm.ContentStreamPart(llm.TextPart("")))
	head := e.events
	e.events = nil
	e.delta(0, map[string]any{"type": "text_delta", "text": text})
	return head, e.events[0]
}

// Client returns the HTTP client that reaches s: for a fake started with
// InMemory, one whose connections are in-memory pipes to it; else a plain
// loopback client. Its idle connections are closed when the test ends.
func (s *Server) Client() *http.Client {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.client == nil {
		tr := &http.Transport{}
		if s.pipe != nil {
			tr.DialContext = s.pipe.dial
		}
		s.client = &http.Client{Transport: tr}
		s.t.Cleanup(tr.CloseIdleConnections)
	}
	return s.client
}

// pipeListener is a net.Listener whose connections are net.Pipe pairs: a
// fake that listens on one works inside a testing/synctest bubble, where
// blocking on a real socket would stop the fake clock.
type pipeListener struct {
	conns     chan net.Conn
	done      chan struct{}
	closeOnce sync.Once
}

func newPipeListener() *pipeListener {
	return &pipeListener{conns: make(chan net.Conn), done: make(chan struct{})}
}

func (l *pipeListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

func (l *pipeListener) Close() error {
	l.closeOnce.Do(func() { close(l.done) })
	return nil
}

func (l *pipeListener) Addr() net.Addr { return pipeAddr{} }

// dial is the client transport's DialContext: a pipe whose other end the
// server accepts.
func (l *pipeListener) dial(ctx context.Context, _, _ string) (net.Conn, error) {
	client, server := net.Pipe()
	select {
	case l.conns <- server:
		return client, nil
	case <-l.done:
		return nil, net.ErrClosed
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// pipeAddr names the in-memory listener; httptest builds the fake's URL
// from it.
type pipeAddr struct{}

func (pipeAddr) Network() string { return "pipe" }
func (pipeAddr) String() string  { return "127.0.0.1:9" }
