package wire

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/kimigo/kimigo/llm"
)

func TestSniff(t *testing.T) {
	const where = "POST http://h/v1/messages"
	for _, tt := range []struct {
		name, ct, body string
		want           Format
		err            string // the error message, when refused
	}{
		{"event stream", "text/event-stream; charset=utf-8", "<html>never looked at", Stream, ""},
		{"no content type", "", "data: {}\n\n", Stream, ""},
		{"json", "application/json", "{}", JSON, ""},
		{"problem json", "application/problem+json", "{}", JSON, ""},
		{"sse under text/plain", "text/plain", "\r\n: keep-alive\n\ndata: {}\n\n", Stream, ""},
		{"sse event field under octet-stream", "application/octet-stream", "event: ping\ndata: {}\n\n", Stream, ""},
		{"html page", "text/html; charset=utf-8", "<!doctype html><html><head><title>Sign in</title></head></html>", 0,
			"invalid response: " + where + " answered 200 with Content-Type text/html; charset=utf-8, not an event stream: " +
				"Sign in (is the base URL right?)"},
		{"plain text", "text/plain", "Hello, world!\nsecond line", 0,
			"invalid response: " + where + " answered 200 with Content-Type text/plain, not an event stream: " +
				"Hello, world! (is the base URL right?)"},
		{"empty html", "text/html", "", 0,
			"invalid response: " + where + " answered 200 with Content-Type text/html, not an event stream: " +
				"(empty body) (is the base URL right?)"},
		{"a field name prefix that is not a field", "text/plain", "dat", 0,
			"invalid response: " + where + " answered 200 with Content-Type text/plain, not an event stream: " +
				"dat (is the base URL right?)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f, r, err := Sniff(tt.ct, strings.NewReader(tt.body), where)
			if tt.err != "" {
				if !llm.IsInvalidResponse(err) || llm.IsRetryable(err) || err.Error() != tt.err {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil || f != tt.want {
				t.Fatalf("Sniff = %v, %v; want %v", f, err, tt.want)
			}
			got, _ := io.ReadAll(r)
			if string(got) != tt.body {
				t.Errorf("reader yields %q, want the whole body", got)
			}
		})
	}
}

// TestSniffReadsNoFurtherThanItMust: a mislabelled stream whose first
// event is short is recognised without waiting for more bytes.
func TestSniffReadsNoFurtherThanItMust(t *testing.T) {
	pr, pw := io.Pipe()
	go func() { _, _ = pw.Write([]byte("data: {}\n\n")) }() // then nothing
	f, _, err := Sniff("text/plain", pr, "x")
	if err != nil || f != Stream {
		t.Fatalf("Sniff = %v, %v", f, err)
	}
	pw.Close()
}

func TestSniffReadError(t *testing.T) {
	boom := errors.New("boom")
	_, _, err := Sniff("text/html", io.MultiReader(strings.NewReader(""), errReader{boom}), "x")
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v, want the read error", err)
	}
}

type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) { return 0, r.err }
