package wire

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"mime"
	"strings"

	"github.com/kimigo/kimigo/llm"
)

// Format is how a 2xx body is to be read.
type Format int

// Body formats.
const (
	// Stream is an event stream: text/event-stream, no content type, or
	// SSE fields under another label.
	Stream Format = iota
	// JSON is a whole JSON document (application/json or a +json type).
	JSON
)

// maxPeek is how far Sniff looks for the first SSE field; maxShown is how
// much of a refused body it reads to say what it is.
const (
	maxPeek  = 64
	maxShown = 4 << 10
)

// sseFields are the starts of a line an event stream may open with.
var sseFields = [][]byte{[]byte("data:"), []byte("event:"), []byte("id:"), []byte("retry:"), []byte(":")}

// Sniff decides how to read a 2xx body from its Content-Type, looking at
// the first bytes only when the label is neither an event stream nor JSON.
// It returns the reader to decode from: body itself, or a buffered reader
// over it that still holds what was looked at. A body that is neither is a
// KindInvalidResponse error naming where it came from (for example
// "POST https://host/v1/messages"), the content type and what the body says
// (llm.BodySummary). A read error is returned as it is, for the provider to
// classify.
func Sniff(contentType string, body io.Reader, where string) (Format, io.Reader, error) {
	mt, _, err := mime.ParseMediaType(contentType)
	switch {
	case strings.TrimSpace(contentType) == "", err == nil && mt == "text/event-stream":
		return Stream, body, nil
	case err == nil && (mt == "application/json" || strings.HasSuffix(mt, "+json")):
		return JSON, body, nil
	}
	br := bufio.NewReader(body)
	ok, rerr := looksLikeSSE(br)
	if ok {
		return Stream, br, nil
	}
	if rerr != nil && rerr != io.EOF {
		return 0, nil, rerr
	}
	shown, rerr := io.ReadAll(io.LimitReader(br, maxShown))
	if rerr != nil && len(shown) == 0 {
		return 0, nil, rerr
	}
	return 0, nil, NotAStream(contentType, shown, where)
}

// NotAStream is the error of a 2xx answer that is not an event stream.
func NotAStream(contentType string, body []byte, where string) *llm.Error {
	if contentType == "" {
		contentType = "none"
	}
	return &llm.Error{Kind: llm.KindInvalidResponse, Message: fmt.Sprintf(
		"invalid response: %s answered 200 with Content-Type %s, not an event stream: %s (is the base URL right?)",
		where, contentType, llm.BodySummary(body))}
}

// looksLikeSSE reports whether the first non-blank bytes of br open an SSE
// field. It reads no further than it must, so a stream whose first event
// is short is not held up.
func looksLikeSSE(br *bufio.Reader) (bool, error) {
	for n := 1; n <= maxPeek; n++ {
		b, err := br.Peek(n)
		rest := bytes.TrimLeft(b, " \t\r\n")
		for _, f := range sseFields {
			if bytes.HasPrefix(rest, f) {
				return true, nil
			}
		}
		prefix := false
		for _, f := range sseFields {
			if len(rest) < len(f) && bytes.HasPrefix(f, rest) {
				prefix = true
			}
		}
		if err != nil {
			return false, err
		}
		if len(rest) > 0 && !prefix {
			return false, nil
		}
	}
	return false, nil
}
