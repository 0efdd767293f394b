package llmtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/llm/scripted"
)

// Reply is one scripted answer of a fake server: a model response streamed
// in the server's dialect, or a fault.
type Reply struct {
	scripted.Response
	Fault Fault
}

// Fault makes a fake server misbehave the way real services and networks do.
// Event counts refer to the SSE events of the encoded reply.
type Fault struct {
	// Status, when non-zero, answers with this HTTP status, Header and Body
	// instead of a stream.
	Status int
	Header map[string]string
	Body   string
	// ResetAfter > 0 resets the TCP connection after that many events.
	ResetAfter int
	// TornAfter > 0 writes that many events and half of the next, then
	// closes the connection without ending the chunked body.
	TornAfter int
	// MalformedAfter > 0 sends an event whose data is not valid JSON after
	// that many events, then continues.
	MalformedAfter int
	// ErrorEventAfter > 0 sends the dialect's mid-stream error payload
	// carrying ErrorMessage after that many events, then ends the body.
	ErrorEventAfter int
	ErrorMessage    string
	// FirstByteDelay delays the response headers; EventDelay sleeps
	// before each event. Both stop early when the client goes away.
	FirstByteDelay time.Duration
	EventDelay     time.Duration
	// Hold, when set, stops the reply and waits at the gate until it is
	// released or the client goes away: before the response headers when
	// HoldAfter is 0 (the request was received and nothing answered), else
	// after HoldAfter events were written and flushed (mid-stream).
	Hold      *Gate
	HoldAfter int

	// The faults below are the ones that stall, never end or are not a
	// stream at all (faults.go has presets for each).

	// Stall sends the headers and the first StallAfter events, then
	// nothing until the client goes away.
	Stall      bool
	StallAfter int
	// KeepAlive > 0 sends the headers and then only an SSE comment every
	// KeepAlive, until the client goes away.
	KeepAlive time.Duration
	// Endless > 0 opens a text block and streams a text delta every
	// Endless, never finishing, until the client goes away.
	Endless time.Duration
	// EndAfter > 0 ends the body cleanly after that many events, at an
	// event boundary and without the end marker the encoded reply had.
	EndAfter int
	// EndBefore, when set, ends the body cleanly before the first event
	// whose text contains it (`"finish_reason":"`, "[DONE]",
	// "content_block_stop", "message_stop", …).
	EndBefore string
	// LongLine > 0 sends, after the first event, an event whose data line
	// is LongLine bytes long.
	LongLine int
	// ContentType replaces the Content-Type of a 200 answer (the stream's
	// text/event-stream, or what a Status 200 body would get).
	ContentType string
	// EmptyBody, with Status, sends no body at all instead of Body.
	EmptyBody bool
}

// Request is one request a fake server received.
type Request struct {
	Method   string
	Path     string
	RawQuery string
	Header   http.Header
	Body     []byte
	// Rejected is the error status the server answered because the
	// request broke a rule the real service enforces, or 0.
	Rejected int
	// RejectReason is the error message sent with Rejected.
	RejectReason string
}

// Tokens is what the fake charges for the request: its body bytes / 4,
// the count ChatOptions.ContextWindow compares with the window. Tests use
// it as the provider-reported input usage.
func (r *Request) Tokens() int { return len(r.Body) / 4 }

// JSON decodes the body into a generic value for assertions.
func (r *Request) JSON(t testing.TB) map[string]any {
	t.Helper()
	var v map[string]any
	if err := json.Unmarshal(r.Body, &v); err != nil {
		t.Fatalf("request body is not a JSON object: %v\n%s", err, r.Body)
	}
	return v
}

var uuidLike = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)

// CanonicalBody returns the body with values that differ between runs
// replaced by stable placeholders: UUIDs become <id-1>, <id-2>, … in order of
// first appearance. Golden files compare canonical bodies.
func (r *Request) CanonicalBody() []byte {
	seen := map[string]string{}
	return uuidLike.ReplaceAllFunc(r.Body, func(b []byte) []byte {
		k := string(b)
		if v, ok := seen[k]; ok {
			return []byte(v)
		}
		v := fmt.Sprintf("<id-%d>", len(seen)+1)
		seen[k] = v
		return []byte(v)
	})
}

// dialect is what differs between the Chat Completions and Anthropic fakes.
type dialect interface {
	// path is the request path the dialect serves.
	path() string
	// check returns the status and body a strict real service would answer
	// for a request that breaks its rules, or status 0.
	check(r *Request) (status int, body string)
	// events encodes a reply as complete SSE events ("event: …\ndata: …\n\n").
	events(r Reply) []string
	// errorEvent encodes a mid-stream error payload.
	errorEvent(msg string) string
	// malformed returns an event whose data is not valid JSON.
	malformed() string
	// textStream returns the events that open a text answer and one text
	// delta event carrying text, for endless streams.
	textStream(text string) (head []string, delta string)
	// errorBody formats a JSON error body for a status reply.
	errorBody(status int, msg string) string
}

// Server is a loopback fake model service. It serves one scripted reply per
// accepted request, records every request, and is safe for concurrent use.
type Server struct {
	URL string

	d    dialect
	srv  *httptest.Server
	t    testing.TB
	pipe *pipeListener // nil on loopback TCP

	mu       sync.Mutex
	replies  []Reply              // guarded by mu
	requests []*Request           // guarded by mu
	lenient  bool                 // guarded by mu
	respond  func(*Request) Reply // guarded by mu
	client   *http.Client         // guarded by mu; made by Client
	forget   bool                 // guarded by mu
}

func newServer(t testing.TB, d dialect, replies []Reply, inMemory bool) *Server {
	t.Helper()
	s := &Server{d: d, t: t, replies: append([]Reply(nil), replies...)}
	s.srv = httptest.NewUnstartedServer(http.HandlerFunc(s.serve))
	if inMemory {
		_ = s.srv.Listener.Close() // the loopback listener is replaced before use
		s.pipe = newPipeListener()
		s.srv.Listener = s.pipe
	}
	s.srv.Start()
	s.URL = s.srv.URL
	t.Cleanup(s.srv.Close)
	return s
}

// Add appends replies to the script.
func (s *Server) Add(replies ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.replies = append(s.replies, replies...)
}

// Respond answers the requests that find the script empty with f, called
// on the server's goroutine once the request passed the strict checks:
// for long scripted sessions whose replies depend on what was asked.
func (s *Server) Respond(f func(*Request) Reply) *Server {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.respond = f
	return s
}

// Lenient turns off the strict request checks, for tests that need the
// server to accept what the real service would reject.
func (s *Server) Lenient() *Server {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lenient = true
	return s
}

// DropBodies makes the server forget each request's body once it has been
// answered (Request.Body becomes nil), for long sessions whose requests
// would otherwise stay in memory all at once, such as tests that measure
// the client's memory.
func (s *Server) DropBodies() *Server {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.forget = true
	return s
}

// Requests returns every request received so far, accepted or rejected.
func (s *Server) Requests() []*Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*Request(nil), s.requests...)
}

// Request returns request i (0-based) or fails the test.
func (s *Server) Request(i int) *Request {
	s.t.Helper()
	rs := s.Requests()
	if i < 0 || i >= len(rs) {
		s.t.Fatalf("fake server got %d requests; request %d does not exist", len(rs), i)
	}
	return rs[i]
}

// Remaining is the number of replies not yet served.
func (s *Server) Remaining() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.replies)
}

func (s *Server) serve(w http.ResponseWriter, hr *http.Request) {
	body, _ := io.ReadAll(hr.Body) // a short read shows up as a rejected request below
	req := &Request{Method: hr.Method, Path: hr.URL.Path, RawQuery: hr.URL.RawQuery,
		Header: hr.Header.Clone(), Body: body}

	s.mu.Lock()
	s.requests = append(s.requests, req)
	lenient := s.lenient
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		if s.forget {
			req.Body = nil
		}
		s.mu.Unlock()
	}()

	if hr.Method != http.MethodPost || hr.URL.Path != s.d.path() {
		s.reject(w, req, http.StatusNotFound, fmt.Sprintf("no route for %s %s", hr.Method, hr.URL.Path))
		return
	}
	if !lenient {
		if status, msg := s.d.check(req); status != 0 {
			s.reject(w, req, status, msg)
			return
		}
	}

	s.mu.Lock()
	if len(s.replies) == 0 {
		respond := s.respond
		s.mu.Unlock()
		if respond == nil {
			s.reject(w, req, http.StatusInternalServerError, "fake server: no scripted reply left")
			return
		}
		s.reply(w, hr, respond(req))
		return
	}
	r := s.replies[0]
	s.replies = s.replies[1:]
	s.mu.Unlock()

	s.reply(w, hr, r)
}

func (s *Server) reject(w http.ResponseWriter, req *Request, status int, msg string) {
	s.mu.Lock()
	req.Rejected, req.RejectReason = status, msg
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, s.d.errorBody(status, msg)) // client may be gone
}

func sleepCtx(hr *http.Request, d time.Duration) bool {
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-hr.Context().Done():
		return false
	}
}

func (s *Server) reply(w http.ResponseWriter, hr *http.Request, r Reply) {
	f := r.Fault
	if !sleepCtx(hr, f.FirstByteDelay) {
		return
	}
	if f.Hold != nil && f.HoldAfter <= 0 && !f.Hold.arrive(hr.Context().Done()) {
		return
	}
	if r.TraceID != "" {
		w.Header().Set("x-trace-id", r.TraceID)
	}
	if f.Status != 0 {
		for k, v := range f.Header {
			w.Header().Set(k, v)
		}
		body := f.Body
		switch {
		case f.EmptyBody:
			body = ""
		case body == "":
			body = s.d.errorBody(f.Status, http.StatusText(f.Status))
		}
		switch {
		case f.ContentType != "":
			w.Header().Set("Content-Type", f.ContentType)
		case json.Valid([]byte(body)):
			w.Header().Set("Content-Type", "application/json")
		default:
			w.Header().Set("Content-Type", "text/html")
		}
		w.WriteHeader(f.Status)
		_, _ = io.WriteString(w, body) // client may be gone
		return
	}
	contentType := "text/event-stream"
	if f.ContentType != "" {
		contentType = f.ContentType
	}
	w.Header().Set("Content-Type", contentType)
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	flusher := w.(http.Flusher)
	flusher.Flush()

	if s.endless(w, hr, f) {
		return
	}
	events := s.d.events(r)
	if f.LongLine > 0 {
		long := "data: " + strings.Repeat("x", f.LongLine) + "\n\n"
		events = append(events[:1:1], append([]string{long}, events[1:]...)...)
	}
	if f.EndAfter > 0 && f.EndAfter < len(events) {
		events = events[:f.EndAfter]
	}
	if f.EndBefore != "" {
		for i, ev := range events {
			if strings.Contains(ev, f.EndBefore) {
				events = events[:i]
				break
			}
		}
	}
	if f.MalformedAfter > 0 && f.MalformedAfter <= len(events) {
		events = append(events[:f.MalformedAfter:f.MalformedAfter], append([]string{s.d.malformed()}, events[f.MalformedAfter:]...)...)
	}
	for i, ev := range events {
		if f.Hold != nil && f.HoldAfter > 0 && i == f.HoldAfter && !f.Hold.arrive(hr.Context().Done()) {
			return
		}
		if f.Stall && i == f.StallAfter {
			<-hr.Context().Done()
			return
		}
		switch {
		case f.ErrorEventAfter > 0 && i == f.ErrorEventAfter:
			_, _ = io.WriteString(w, s.d.errorEvent(f.ErrorMessage))
			flusher.Flush()
			return
		case f.ResetAfter > 0 && i == f.ResetAfter:
			hijackClose(w, true)
			return
		case f.TornAfter > 0 && i == f.TornAfter:
			_, _ = io.WriteString(w, ev[:len(ev)/2])
			flusher.Flush()
			hijackClose(w, false)
			return
		}
		if !sleepCtx(hr, f.EventDelay) {
			return
		}
		if _, err := io.WriteString(w, ev); err != nil {
			return
		}
		flusher.Flush()
	}
	if f.ErrorEventAfter > 0 && f.ErrorEventAfter >= len(events) {
		_, _ = io.WriteString(w, s.d.errorEvent(f.ErrorMessage))
		flusher.Flush()
	}
	if f.Stall { // StallAfter was past the last event
		<-hr.Context().Done()
	}
}

// hijackClose takes the connection over and closes it: with reset, the
// kernel sends RST (SO_LINGER 0); otherwise a plain FIN that leaves the
// chunked body unterminated.
func hijackClose(w http.ResponseWriter, reset bool) {
	conn, buf, err := w.(http.Hijacker).Hijack()
	if err != nil {
		return
	}
	_ = buf.Flush() // pending bytes go out before the close
	if tc, ok := conn.(*net.TCPConn); ok && reset {
		_ = tc.SetLinger(0)
	}
	_ = conn.Close()
}

// sseEvent formats one event; typ may be empty.
func sseEvent(typ string, data []byte) string {
	var b bytes.Buffer
	if typ != "" {
		b.WriteString("event: " + typ + "\n")
	}
	for _, line := range bytes.Split(data, []byte("\n")) {
		b.WriteString("data: ")
		b.Write(line)
		b.WriteByte('\n')
	}
	b.WriteByte('\n')
	return b.String()
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("llmtest: marshal %T: %v", v, err))
	}
	return b
}

// Text is a reply that streams s and completes.
func Text(s string) Reply { return Reply{Response: scripted.Text(s)} }

// Think is a reply that streams thinking, then text.
func Think(thinking, text string) Reply { return Reply{Response: scripted.Think(thinking, text)} }

// ToolCall is a reply with one tool call.
func ToolCall(id, name, args string) Reply {
	return Reply{Response: scripted.ToolCalls(scripted.Call{ID: id, Name: name, Arguments: args})}
}

// ToolCalls is a reply with several parallel tool calls.
func ToolCalls(calls ...scripted.Call) Reply {
	return Reply{Response: scripted.ToolCalls(calls...)}
}

// Status is a reply that answers with an HTTP error. Header pairs are
// name, value, name, value, …
func Status(code int, body string, header ...string) Reply {
	h := map[string]string{}
	for i := 0; i+1 < len(header); i += 2 {
		h[header[i]] = header[i+1]
	}
	return Reply{Fault: Fault{Status: code, Body: body, Header: h}}
}

// WithUsage returns r reporting u.
func (r Reply) WithUsage(u llm.TokenUsage) Reply {
	r.Usage = &u
	return r
}

// WithFault returns r with f.
func (r Reply) WithFault(f Fault) Reply {
	r.Fault = f
	return r
}
