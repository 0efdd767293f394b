package llm_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/kimigo/kimigo/llm"
)

func TestBodySummary(t *testing.T) {
	for _, tt := range []struct {
		name, body, want string
	}{
		{"nginx error page", "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n" +
			"<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n",
			"502 Bad Gateway"},
		{"title with entities and line breaks", "<!DOCTYPE html><html><head><title>\n  Sign in &amp;\n continue </title>",
			"Sign in & continue"},
		{"heading without a title", "<html><body><h1>Service <b>Unavailable</b></h1><p>later</p></body></html>",
			"Service <b>Unavailable</b>"},
		{"first text line of a bare page", "<html><body>\n\n<p>Access denied</p>\n<p>ray id 1</p></body></html>",
			"Access denied"},
		{"plain text keeps its first line", "\n\nupstream connect error\nreset reason: overflow\n",
			"upstream connect error"},
		{"plain text is not decoded", "a &amp; b", "a &amp; b"},
		{"empty", " \n ", "(empty body)"},
		{"long line is cut", strings.Repeat("x", 300), strings.Repeat("x", 200) + "…"},
		{"invalid utf-8 is replaced", "bad \xff byte", "bad \uFFFD byte"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := llm.BodySummary([]byte(tt.body)); got != tt.want {
				t.Errorf("BodySummary = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestStatusErrorHTMLPage: a 4xx/5xx HTML page is shown as its status and
// one line, never the whole page.
func TestStatusErrorHTMLPage(t *testing.T) {
	page := "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n" +
		"<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n"
	e := llm.NormalizeStatus(llm.StatusError(502, http.Header{}, []byte(page)))
	if e.Message != "502 Bad Gateway (HTML page)" {
		t.Errorf("message = %q", e.Message)
	}
	if !llm.IsRetryable(e) {
		t.Error("a 502 page is not retryable")
	}
	e = llm.StatusError(403, nil, []byte("<!doctype html><title>Just a moment...</title>"+strings.Repeat("<div>x</div>", 500)))
	if e.Message != "403 Just a moment... (HTML page)" {
		t.Errorf("message = %q", e.Message)
	}
}

func TestResponseKinds(t *testing.T) {
	for _, tt := range []struct {
		kind      llm.Kind
		name      string
		retryable bool
		is        func(error) bool
	}{
		{llm.KindIncompleteResponse, "APIIncompleteResponseError", true, llm.IsIncompleteResponse},
		{llm.KindMalformedResponse, "APIMalformedResponseError", true, llm.IsMalformedResponse},
		{llm.KindInvalidResponse, "APIInvalidResponseError", false, llm.IsInvalidResponse},
	} {
		e := &llm.Error{Kind: tt.kind, Message: "m"}
		if e.ErrorName() != tt.name || llm.IsRetryable(e) != tt.retryable || !tt.is(e) {
			t.Errorf("%s: name %s, retryable %v, predicate %v", tt.kind, e.ErrorName(), llm.IsRetryable(e), tt.is(e))
		}
	}
	idle := &llm.Error{Kind: llm.KindTimeout, Message: "idle", Cause: llm.ErrProviderTimeout}
	ceiling := &llm.Error{Kind: llm.KindTimeout, Message: "too long", Cause: llm.ErrResponseTimeout}
	if !llm.IsRetryable(idle) || llm.IsRetryable(ceiling) {
		t.Errorf("retryable: idle %v, response ceiling %v; want true, false", llm.IsRetryable(idle), llm.IsRetryable(ceiling))
	}
}
