package search

import (
	"bytes"
	"regexp"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// naiveLines is the reference: split into lines, match each on its own.
func naiveLines(t *testing.T, pattern string, ignoreCase bool, buf []byte) (lines []string, counts []int) {
	t.Helper()
	flags := "(?m"
	if ignoreCase {
		flags += "i"
	}
	re := regexp.MustCompile(flags + ")" + pattern)
	if len(buf) == 0 {
		return nil, nil
	}
	body := buf
	if body[len(body)-1] == '\n' {
		body = body[:len(body)-1]
	}
	for line := range bytes.SplitSeq(body, []byte{'\n'}) {
		if n := len(re.FindAllIndex(line, -1)); n > 0 {
			lines = append(lines, string(line))
			counts = append(counts, n)
		}
	}
	return lines, counts
}

func scanned(t *testing.T, pattern string, ignoreCase bool, buf []byte) (lines []string, counts []int) {
	t.Helper()
	m, err := compileMatcher(pattern, ignoreCase, false)
	if err != nil {
		t.Fatalf("compile %q: %v", pattern, err)
	}
	m.scanLines(buf, true, func(s, e, n int) bool {
		lines = append(lines, string(buf[s:e]))
		counts = append(counts, n)
		return true
	})
	return lines, counts
}

var matcherPatterns = []struct {
	pattern    string
	ignoreCase bool
}{
	{"foo", false},
	{"foo", true},
	{"oo", true},
	{"k", true},  // folds to the Kelvin sign
	{"sk", true}, // and to the long s
	{"fo+bar", false},
	{"(?i)FOO", false},
	{"^foo", false},
	{"foo$", false},
	{`\bfoo\b`, false},
	{"foo|bar", false},
	{"x*", false},
	{`\s+bar`, false},
	{`[^a]foo`, false},
	{`(foo)(bar)?`, true},
	{`b.r`, true},
	{"é", true},
}

var matcherTexts = []string{
	"",
	"foo",
	"foo\n",
	"a foo\nbar\n\nfoofoo bar\r\n",
	"xfoo foo\n foo\nafoo\n FOO Foo\n",
	"\u212a k K\nſ s S\nSK ſ\u212a\n",
	"\n\n\nbar\nfoo\nbaz",
	"fo\no\nbar\n  bar\n\tbar",
	"ÉCOLE école\nfooooobar fobar\n",
}

func TestScanLinesMatchesNaive(t *testing.T) {
	for _, p := range matcherPatterns {
		for _, text := range matcherTexts {
			wantL, wantC := naiveLines(t, p.pattern, p.ignoreCase, []byte(text))
			gotL, gotC := scanned(t, p.pattern, p.ignoreCase, []byte(text))
			if d := cmp.Diff(wantL, gotL); d != "" {
				t.Errorf("pattern %q (i=%v) on %q: lines (-naive +scan):\n%s", p.pattern, p.ignoreCase, text, d)
			}
			if d := cmp.Diff(wantC, gotC); d != "" {
				t.Errorf("pattern %q (i=%v) on %q: counts (-naive +scan):\n%s", p.pattern, p.ignoreCase, text, d)
			}
		}
	}
}

func FuzzScanLines(f *testing.F) {
	for _, p := range matcherPatterns {
		for _, text := range matcherTexts {
			f.Add(p.pattern, p.ignoreCase, []byte(text))
		}
	}
	f.Fuzz(func(t *testing.T, pattern string, ignoreCase bool, buf []byte) {
		if _, err := compileMatcher(pattern, ignoreCase, false); err != nil {
			return
		}
		wantL, wantC := naiveLines(t, pattern, ignoreCase, buf)
		gotL, gotC := scanned(t, pattern, ignoreCase, buf)
		if d := cmp.Diff(wantL, gotL); d != "" {
			t.Errorf("lines (-naive +scan):\n%s", d)
		}
		if d := cmp.Diff(wantC, gotC); d != "" {
			t.Errorf("counts (-naive +scan):\n%s", d)
		}
	})
}

func TestLiteralFastPathIsChosen(t *testing.T) {
	for _, tt := range []struct {
		pattern    string
		ignoreCase bool
		lit        string
		pure       bool
	}{
		{"hello", false, "hello", true},
		{"Hello", true, "hello", true},
		{`func \w+\(`, false, "func ", false},
		{`(?:ab)+cdef`, false, "cdef", false},
		{`\d+`, false, "", false},
		{"école", true, "", false}, // non-ASCII folding goes to the regexp
	} {
		m, err := compileMatcher(tt.pattern, tt.ignoreCase, false)
		if err != nil {
			t.Fatal(err)
		}
		if got := string(m.lit.needle); got != tt.lit || m.pure != tt.pure {
			t.Errorf("compileMatcher(%q, i=%v): literal %q pure %v; want %q %v", tt.pattern, tt.ignoreCase, got, m.pure, tt.lit, tt.pure)
		}
	}
}

func TestLiteralIndex(t *testing.T) {
	for _, tt := range []struct {
		needle, hay string
		fold        bool
		want        int
	}{
		{"needle", "hay needle hay", false, 4},
		{"needle", "hay neeDLE hay", true, 4},
		{"needle", "hay needl", false, -1},
		{"ab", "aab", false, 1},
		{"zq", "zzq", true, 1},
		{"a", "", true, -1},
		{"eel", "EEEEEL", true, 3},
	} {
		if got := newLiteral(tt.needle, tt.fold).index([]byte(tt.hay)); got != tt.want {
			t.Errorf("index(%q in %q, fold=%v) = %d, want %d", tt.needle, tt.hay, tt.fold, got, tt.want)
		}
	}
}

func TestCompileMatcherRejects(t *testing.T) {
	for _, p := range []string{"(", "a{2,1}", `\p{Nope}`, `a\nb`} {
		_, err := compileMatcher(p, false, false)
		ae, ok := err.(*ArgError)
		if !ok || ae.Arg != "pattern" || ae.Value != p {
			t.Errorf("compileMatcher(%q) = %v, want an *ArgError for the pattern", p, err)
		}
	}
	if _, err := compileMatcher(`a\nb`, false, true); err != nil {
		t.Errorf("multiline allows a literal newline: %v", err)
	}
}
