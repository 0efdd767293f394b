package plainjson_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/kimigo/kimigo/llm/plainjson"
)

func TestMarshalKeepsTextAsWritten(t *testing.T) {
	for _, tt := range []struct {
		name string
		in   any
		want string
	}{
		{"angle brackets and ampersands", map[string]string{"k": "<system>a && b</system>"}, `{"k":"<system>a && b</system>"}`},
		{"no trailing newline", []int{1, 2}, `[1,2]`},
		{"control characters are still escaped", "a\nb\"c", `"a\nb\"c"`},
		{"invalid UTF-8 becomes U+FFFD", "a\xffb", `"a\ufffdb"`},
		{"null", nil, `null`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := plainjson.Marshal(tt.in)
			if err != nil || string(got) != tt.want {
				t.Errorf("Marshal(%#v) = %s, %v; want %s", tt.in, got, err, tt.want)
			}
		})
	}
}

func TestMarshalReportsUnencodableValues(t *testing.T) {
	if _, err := plainjson.Marshal(func() {}); err == nil {
		t.Error("Marshal(func) succeeded; want an error")
	}
}

func TestQuote(t *testing.T) {
	if got := string(plainjson.Quote("<a href=\"x\">")); got != `"<a href=\"x\">"` {
		t.Errorf("Quote = %s", got)
	}
}

func TestWriteAppends(t *testing.T) {
	var buf bytes.Buffer
	buf.WriteString("[")
	for i, v := range []any{"<a>", 1, map[string]bool{"&": true}} {
		if i > 0 {
			buf.WriteByte(',')
		}
		if err := plainjson.Write(&buf, v); err != nil {
			t.Fatal(err)
		}
	}
	buf.WriteString("]")
	if got := buf.String(); got != `["<a>",1,{"&":true}]` {
		t.Errorf("Write = %s", got)
	}
}

// AppendQuote writes what encoding/json writes for a string without HTML
// escaping, byte for byte: control bytes, quotes, backslashes, invalid
// UTF-8, U+2028 and U+2029 included; and it appends to what dst holds.
func FuzzAppendQuote(f *testing.F) {
	for _, s := range []string{"", "plain", "a \"q\" \\ b", "<system> & </system>", "\x00\x01\b\f\n\r\t\x1f\x7f",
		"\xff\xfe invalid", "line\u2028sep\u2029", "é ünïcödé 😀", "\xed\xa0\x80 surrogate"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(s); err != nil {
			t.Fatal(err)
		}
		got := plainjson.AppendQuote([]byte("x"), s)
		if w := "x" + strings.TrimSuffix(want.String(), "\n"); string(got) != w {
			t.Fatalf("AppendQuote(%q) = %s, want %s", s, got, w)
		}
	})
}

func TestAppendQuoteAllocatesNothingWithRoom(t *testing.T) {
	dst := make([]byte, 0, 256)
	s := "a line with \"quotes\", a tab\t and é"
	if n := testing.AllocsPerRun(100, func() { dst = plainjson.AppendQuote(dst[:0], s) }); n != 0 {
		t.Errorf("%v allocations per call", n)
	}
}
