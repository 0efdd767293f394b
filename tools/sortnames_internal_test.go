package tools

import (
	"cmp"
	"strings"
	"testing"
)

// compareLower orders as comparing the lowered strings does, for any
// bytes: upper and lower case, non-ASCII letters, invalid UTF-8.
func FuzzCompareLower(f *testing.F) {
	for _, p := range [][2]string{{"Bash", "bash"}, {"Read", "ReadMediaFile"}, {"mcp__A__x", "mcp__a__Y"}, {"Ärger", "ärger"},
		{"\xff", "\uFFFD"}, {"", "a"}, {"İ", "i"}, {"K", "k"}} {
		f.Add(p[0], p[1])
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		want := strings.Compare(strings.ToLower(a), strings.ToLower(b))
		if got := compareLower(a, b); cmp.Compare(got, 0) != want {
			t.Fatalf("compareLower(%q, %q) = %d, want %d", a, b, got, want)
		}
	})
}
