package print_test

import (
	"bytes"
	"testing"

	"github.com/kimigo/kimigo/internal/print"
)

func TestBlockWriter(t *testing.T) {
	for _, tt := range []struct {
		name   string
		width  int
		writes []string
		want   string
	}{
		{"two lines end with a blank line", 0, []string{"Hello\nworld"}, "• Hello\n  world\n\n"},
		{"a trailing newline ends with one more", 0, []string{"done\n"}, "• done\n\n"},
		{"blank lines stay empty", 0, []string{"a\n\nb"}, "• a\n\n  b\n\n"},
		{"writes continue one block", 0, []string{"He", "llo\nwo", "rld"}, "• Hello\n  world\n\n"},
		{"wraps before the column past the width", 10, []string{"abcdefghijkl"}, "• abcdefgh\n  ijkl\n\n"},
		{"a tab counts four columns", 10, []string{"ab\tcdef"}, "• ab\tcd\n  ef\n\n"},
		{"a width of 3 does not wrap", 3, []string{"abcdef"}, "• abcdef\n\n"},
		{"runes count one column", 6, []string{"äöüß"}, "• äöüß\n\n"},
		{"nothing written, nothing ended", 0, nil, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			b := print.NewBlockWriter(&buf, tt.width)
			for _, w := range tt.writes {
				b.Write(w)
			}
			b.End()
			b.End() // a second end writes nothing
			if buf.String() != tt.want {
				t.Errorf("output = %q; want %q", buf.String(), tt.want)
			}
		})
	}
}

func TestBlockWriterStartsANewBlockAfterEnd(t *testing.T) {
	var buf bytes.Buffer
	b := print.NewBlockWriter(&buf, 0)
	b.Write("one")
	b.End()
	if b.Open() {
		t.Error("Open after End")
	}
	b.Write("two")
	if !b.Open() {
		t.Error("not Open after Write")
	}
	b.End()
	if want := "• one\n\n• two\n\n"; buf.String() != want {
		t.Errorf("output = %q; want %q", buf.String(), want)
	}
}
