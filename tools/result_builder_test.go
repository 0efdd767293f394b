package tools_test

import (
	"strings"
	"testing"

	"github.com/kimigo/kimigo/tools"
)

func TestResultBuilder(t *testing.T) {
	for _, tt := range []struct {
		name    string
		opts    tools.BuilderOptions
		writes  []string
		ok      string // OK message
		want    string
		trunc   bool
		isError bool
	}{
		{"untouched output keeps the message out", tools.BuilderOptions{}, []string{"a\nb\n"}, "Done", "a\nb\n", false, false},
		{"empty output gets the message with a period", tools.BuilderOptions{}, nil, "Done", "Done.", false, false},
		{"long line is cut with marker and break", tools.BuilderOptions{MaxLineLength: 20}, []string{strings.Repeat("x", 30) + "\r\nok\n"}, "",
			"xxxx[...truncated]\r\nok\nOutput is truncated to fit in the message.", true, false},
		{"total cap writes the marker once", tools.BuilderOptions{MaxChars: 6}, []string{"abc\n", "def\n", "ghi\n"}, "Fine",
			"abc\n[...truncated]\nFine. Output is truncated to fit in the message.", true, false},
		{"no line limit", tools.BuilderOptions{NoLineLimit: true}, []string{strings.Repeat("y", 3000)}, "", strings.Repeat("y", 3000), false, false},
		{"lone CR splits lines", tools.BuilderOptions{MaxLineLength: 16}, []string{"short\r" + strings.Repeat("z", 20) + "\r"}, "",
			"short\rz[...truncated]\r\nOutput is truncated to fit in the message.", true, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rb := tools.NewResultBuilder(tt.opts)
			for _, w := range tt.writes {
				rb.Write(w)
			}
			r := rb.OK(tt.ok)
			if text(r) != tt.want || r.Truncated != tt.trunc || r.IsError != tt.isError {
				t.Errorf("OK = %q (truncated %v); want %q (%v)", text(r), r.Truncated, tt.want, tt.trunc)
			}
		})
	}
	rb := tools.NewResultBuilder(tools.BuilderOptions{})
	rb.Write("out")
	if r := rb.Error("Failed"); text(r) != "out\nFailed." || !r.IsError {
		t.Errorf("Error = %q", text(r))
	}
	rb = tools.NewResultBuilder(tools.BuilderOptions{MaxLineLength: 16})
	rb.Write("日本語日本語日本語日本語日本語日本語\n")
	if got := rb.String(); got != "日[...truncated]\n" || !rb.Truncated() {
		t.Errorf("runes: %q", got)
	}
}
