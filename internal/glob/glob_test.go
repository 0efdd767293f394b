package glob_test

import (
	"errors"
	"testing"

	"github.com/kimigo/kimigo/internal/glob"
)

// TestValueTable is the normative table of spec 04 §3.4.
func TestValueTable(t *testing.T) {
	for _, tt := range []struct {
		value, pattern string
		noCase         bool
		want           bool
	}{
		{"git status", "git *", false, true},
		{"git diff src/a.ts", "git *", false, false},
		{"git diff src/a.ts", "git **", false, false},
		{"git diff src/a.ts", "{git *,git */**}", false, true},
		{"git status && rm -rf x", "git *", false, true},
		{"rm -rf build", "rm -rf*", false, true},
		{"rm -rf /", "rm -rf*", false, false},
		{"cat /etc/passwd", "*", false, false},
		{"cat /etc/passwd", "**", false, true},
		{"printf *", `printf \*`, false, true},
		{"printf hello", `printf \*`, false, false},
		{"mcp__github__list_issues", "mcp__github__*", false, true},
		{"mcp__gh__x", "mcp__github__*", false, false},
		{"bash", "Bash", false, false},
		{"bash", "Bash", true, true},
		{"/etc/passwd", "/etc/**", false, true},
		{"/etc/ssh/sshd_config", "/etc/*", false, false},
		{"/repo/.env", "/repo/**", false, false},
		{"src/a.ts", "./src/**", false, true},
		{"./src/a.ts", "./src/**", false, false},
		{"a.b", "*", false, true},
		{".env", "*", false, false},
		{"review-code", "review-*", false, true},
		{"https://example.com/a/b", "https://example.com/**", false, true},
		{"ab", "{a,b}*", false, true},
		{"y", "!(x)", false, true},
		{"[abc", "[abc", false, true},
	} {
		got, err := glob.Match(tt.pattern, tt.value, glob.Options{NoCase: tt.noCase})
		if err != nil || got != tt.want {
			t.Errorf("Match(%q, %q, nocase=%v) = %v, %v; want %v", tt.pattern, tt.value, tt.noCase, got, err, tt.want)
		}
	}
}

func TestSemantics(t *testing.T) {
	for _, tt := range []struct {
		name, value, pattern string
		want                 bool
	}{
		{"globstar matches zero segments", "a", "a/**", true},
		{"globstar root", "/etc", "/etc/**", true},
		{"globstar deep", "a/b/c/d", "a/**", true},
		{"globstar trailing slash", "a/", "a/**", true},
		{"globstar prefix zero", "a.ts", "**/*.ts", true},
		{"globstar prefix deep", "x/y/a.ts", "**/*.ts", true},
		{"globstar middle zero", "a/b", "a/**/b", true},
		{"globstar middle deep", "a/x/y/b", "a/**/b", true},
		{"globstar middle wrong end", "a/x/c", "a/**/b", false},
		{"globstar skips dot dirs", "a/.git/b", "a/**/b", false},
		{"globstar all skips dot files", "x/.env", "**", false},
		{"double globstar collapses", "a/b", "a/**/**", true},
		{"star does not match empty segment start", "a/", "a/*", false},
		{"star then literal at segment start", "x", "*x", true},
		{"star before dot literal", ".ts", "*.ts", false},
		{"star inside segment may match dots", "a.b.c", "a*", true},
		{"star matches empty mid-segment", "rm -rf", "rm -rf*", true},
		{"question mark", "ab", "a?", true},
		{"question mark not slash", "a/", "a?", false},
		{"question mark not leading dot", ".a", "?a", false},
		{"class", "b", "[abc]", true},
		{"class range", "m", "[a-z]", true},
		{"negated class", "m", "[!a-c]", true},
		{"negated class caret", "a", "[^a-c]", false},
		{"negated class never slash", "a/b", "a[!x]b", false},
		{"class first bracket", "]", "[]a]", true},
		{"posix class", "7", "[[:digit:]]", true},
		{"posix class miss", "x", "[[:digit:]]", false},
		{"unclosed brace literal", "{a", "{a", true},
		{"single brace item literal", "{a}", "{a}", true},
		{"empty brace alternative", "x", "{,a}x", true},
		{"only empty brace alternatives", "x", "{,}", false},
		{"empty brace alternative alone", "a", "{,a}", true},
		{"nested braces", "ac", "a{b,{c,d}}", true},
		{"numeric range", "f2", "f{1..3}", true},
		{"numeric range miss", "f4", "f{1..3}", false},
		{"padded range", "f02", "f{01..03}", true},
		{"letter range", "c", "{a..e}", true},
		{"stepped range", "4", "{0..8..2}", true},
		{"stepped range miss", "3", "{0..8..2}", false},
		{"extglob at", "b", "@(a|b)", true},
		{"extglob at miss", "c", "@(a|b)", false},
		{"extglob optional absent", "x", "x?(y)", true},
		{"extglob optional present", "xy", "x?(y)", true},
		{"extglob star repeats", "xyyy", "x*(y)", true},
		{"extglob plus needs one", "x", "x+(y)", false},
		{"extglob plus repeats", "xyy", "x+(y)", true},
		{"extglob not excludes", "x", "!(x)", false},
		{"extglob not prefix", "ab", "a!(b)", false},
		{"extglob not other", "ac", "a!(b)", true},
		{"plain parens literal", "echo (a)", "echo (a)", true},
		{"pipe literal", "a|b", "a|b", true},
		{"plus literal", "a+b", "a+b", true},
		{"escape", "a*b", `a\*b`, true},
		{"escape miss", "axb", `a\*b`, false},
		{"trailing backslash literal", `a\`, `a\`, true},
		{"negation", "b", "!a", true},
		{"negation miss", "a", "!a", false},
		{"double negation", "a", "!!a", true},
		{"double negation miss", "b", "!!a", false},
		{"negation then dot slash", "src/a", "!./src/*", false},
		{"empty value never matches", "", "*", false},
		{"empty value never matches negated", "", "!a", false},
		{"unicode question mark", "é", "?", true},
		{"unicode star", "héllo", "h*o", true},
		{"case matters", "A", "a", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := glob.Match(tt.pattern, tt.value, glob.Options{})
			if err != nil || got != tt.want {
				t.Errorf("Match(%q, %q) = %v, %v; want %v", tt.pattern, tt.value, got, err, tt.want)
			}
		})
	}
}

func TestNoCase(t *testing.T) {
	for _, tt := range []struct {
		value, pattern string
		want           bool
	}{
		{"/repo/sub/a.ts", "/REPO/Sub/**", true},
		{"ABC", "[a-c]bc", true},
		{"STRASSE", "stra*", true},
		{"K", "k", true},
		{"x", "y", false},
	} {
		got, err := glob.Match(tt.pattern, tt.value, glob.Options{NoCase: true})
		if err != nil || got != tt.want {
			t.Errorf("Match(%q, %q, nocase) = %v, %v; want %v", tt.pattern, tt.value, got, err, tt.want)
		}
	}
}

func TestCompileErrors(t *testing.T) {
	for _, tt := range []struct {
		pattern string
		pos     int
	}{
		{"", 0},
		{"!", 1},
		{"!!", 2},
		{"./", 2},
		{"a[z-a]", 2},
		{"![z-a]", 2},
		{"x[[:nope:]]", 2},
		{"{1..100000}", 0},
		{"a{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}", 1},
	} {
		_, err := glob.Compile(tt.pattern, glob.Options{})
		var ge *glob.Error
		if !errors.As(err, &ge) {
			t.Errorf("Compile(%q) error = %v; want *glob.Error", tt.pattern, err)
			continue
		}
		if ge.Pos != tt.pos || ge.Pattern != tt.pattern {
			t.Errorf("Compile(%q) fault at %d in %q; want %d (%v)", tt.pattern, ge.Pos, ge.Pattern, tt.pos, err)
		}
	}
}

func TestGlobIsReusable(t *testing.T) {
	g := glob.MustCompile("src/**/*.go", glob.Options{})
	if g.String() != "src/**/*.go" {
		t.Errorf("String() = %q", g.String())
	}
	for range 3 {
		if !g.Match("src/a/b.go") || g.Match("src/a/b.ts") {
			t.Fatal("compiled glob changed its answers between calls")
		}
	}
}

func BenchmarkMatch(b *testing.B) {
	for _, bc := range []struct{ name, pattern, value string }{
		{"prefix_star", "git diff *", "git diff --stat"},
		{"globstar", "/repo/**/*.go", "/repo/internal/glob/match.go"},
		{"braces", "{git *,git */**}", "git diff src/a.ts"},
		{"extglob", "+(ab|cd)x", "abcdabcdx"},
	} {
		g := glob.MustCompile(bc.pattern, glob.Options{})
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				g.Match(bc.value)
			}
		})
	}
}
