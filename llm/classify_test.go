package llm

import (
	"strings"
	"testing"
)

// Issue 15 item 11: an error page is reported by its status and one line,
// never dumped whole.
func TestS15StatusErrorShowsOneLine(t *testing.T) {
	page := "<!DOCTYPE html>\n<html><head><title>501 Not Implemented</title></head>\n<body><h1>Not Implemented</h1>\n" +
		strings.Repeat("<p>filler</p>\n", 200) + "</body></html>\n"
	for _, tt := range []struct {
		body, want string
	}{
		{page, "501 Not Implemented (HTML page)"},
		{"Not Implemented\nthe gateway has no route for POST /v1/chat/completions\n" + strings.Repeat("trace line\n", 100),
			"501 Not Implemented (first line of the body)"},
		{"Not Implemented", "501 Not Implemented"},
	} {
		if got := StatusError(501, nil, []byte(tt.body)).Message; got != tt.want {
			t.Errorf("message = %q; want %q", got, tt.want)
		}
	}
}
