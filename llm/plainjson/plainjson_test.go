package plainjson_test

import (
	"bytes"
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
