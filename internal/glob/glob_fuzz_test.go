package glob_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/kimigo/kimigo/internal/glob"
)

// FuzzMatch: any pattern and value compile or fail cleanly, match without
// panicking, answer the same way twice, and agree with naiveMatch on
// patterns made only of literals, "*" and "?" within one segment.
func FuzzMatch(f *testing.F) {
	for _, seed := range [][2]string{
		{"git *", "git status"}, {"{git *,git */**}", "git diff src/a.ts"}, {"/repo/**", "/repo/.env"},
		{"!(x)", "y"}, {"[abc", "[abc"}, {"a{1..3}b", "a2b"}, {"+(a|b)*(c)", "abcc"}, {"*.ts", ".ts"},
		{"[[:alpha:]]?", "a."}, {`\*\?`, "*?"}, {"!!a", "a"}, {"**/x/**", "a/x/b"}, {"?*", "é"}, {"\xe1", "\xe8"}, {"**", "0/0"}, {"{,}", "x"},
	} {
		f.Add(seed[0], seed[1], false)
	}
	f.Fuzz(func(t *testing.T, pattern, value string, noCase bool) {
		opts := glob.Options{NoCase: noCase}
		g, err := glob.Compile(pattern, opts)
		if err != nil {
			if _, again := glob.Compile(pattern, opts); again == nil || again.Error() != err.Error() {
				t.Fatalf("Compile(%q) is not deterministic: %v then %v", pattern, err, again)
			}
			return
		}
		got := g.Match(value)
		if again := g.Match(value); again != got {
			t.Fatalf("Match(%q, %q) flipped from %v to %v", pattern, value, got, again)
		}
		if simple(pattern) && !noCase && utf8.ValidString(pattern) && utf8.ValidString(value) {
			if want := naiveMatch(pattern, value); got != want {
				t.Fatalf("Match(%q, %q) = %v; the reference says %v", pattern, value, got, want)
			}
		}
	})
}

// simple reports a pattern of literals, "*" and "?" only, one segment, no
// leading "!" or "./", and not the globstar "**".
func simple(p string) bool {
	if p == "" || p == "**" || p[0] == '!' || strings.HasPrefix(p, "./") {
		return false
	}
	return !strings.ContainsAny(p, `/\[]{}()!@+|`)
}

// naiveMatch is an independent backtracking matcher for simple patterns:
// "?" one character, "*" any run, neither matching "/"; a wildcard at the
// start of the pattern must not see a "." first, and a leading "*" needs a
// character to look at.
func naiveMatch(p, v string) bool {
	if v == "" {
		return false
	}
	if (p[0] == '*' || p[0] == '?') && v[0] == '.' {
		return false
	}
	var rec func(pr, vr []rune) bool
	rec = func(pr, vr []rune) bool {
		if len(pr) == 0 {
			return len(vr) == 0
		}
		switch pr[0] {
		case '*':
			for i := 0; i <= len(vr); i++ {
				if rec(pr[1:], vr[i:]) {
					return true
				}
				if i < len(vr) && vr[i] == '/' {
					return false
				}
			}
			return false
		case '?':
			return len(vr) > 0 && vr[0] != '/' && rec(pr[1:], vr[1:])
		}
		return len(vr) > 0 && vr[0] == pr[0] && rec(pr[1:], vr[1:])
	}
	if strings.Count(p, "*") > 6 || len(v) > 64 {
		return naiveLinear(p, v)
	}
	return rec([]rune(p), []rune(v))
}

// naiveLinear is the classic two-pointer wildcard match with "/" excluded,
// used where the recursive one would be slow.
func naiveLinear(p, v string) bool {
	pr, vr := []rune(p), []rune(v)
	pi, vi, star, mark := 0, 0, -1, 0
	for vi < len(vr) {
		switch {
		case pi < len(pr) && pr[pi] == '*':
			star, mark = pi, vi
			pi++
		case pi < len(pr) && vr[vi] != '/' && (pr[pi] == '?' || pr[pi] == vr[vi]):
			pi++
			vi++
		case star >= 0 && vr[mark] != '/':
			mark++
			vi = mark
			pi = star + 1
		default:
			return false
		}
	}
	for pi < len(pr) && pr[pi] == '*' {
		pi++
	}
	return pi == len(pr)
}
