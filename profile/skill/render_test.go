package skill_test

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/kimigo/kimigo/profile/skill"
)

func TestScenario84Render(t *testing.T) {
	s := skill.Skill{Name: "review", Dir: "/ws/.kimi-code/skills/review", Body: "Review $0 in $1 mode. Dir ${KIMI_SKILL_DIR}"}
	if got, want := skill.Render(s, "#12 fast", "sess"), "Review #12 in fast mode. Dir /ws/.kimi-code/skills/review"; got != want {
		t.Errorf("Render = %q; want %q", got, want)
	}
	plain := skill.Skill{Body: "Just do it."}
	if got, want := skill.Render(plain, "#12 fast", ""), "Just do it.\n\nARGUMENTS: #12 fast"; got != want {
		t.Errorf("Render without placeholders = %q; want %q", got, want)
	}
}

func TestRender(t *testing.T) {
	for _, tt := range []struct {
		name, body, args, want string
		names                  []string
	}{
		{"whole text", "Do: $ARGUMENTS.", `a "b c"`, `Do: a "b c".`, nil},
		{"indexed", "$ARGUMENTS[1]/$ARGUMENTS[0]/$ARGUMENTS[5]", `x 'y z'`, "y z/x/", nil},
		{"names", "PR $pr, mode $mode, $prx stays, $pr[0] stays", "12 fast", "PR 12, mode fast, $prx stays, $pr[0] stays",
			[]string{"pr", "mode"}},
		{"digits end at a word character", "$1a and $1", "a b", "$1a and b", nil},
		{"tags in values are escaped", "<x>$0</x>", "<script>", "<x>&lt;script&gt;</x>", nil},
		{"appended arguments are escaped", "Body.", "<b>", "Body.\n\nARGUMENTS: &lt;b&gt;", nil},
		{"no arguments, nothing appended", "Body $HOME.", "", "Body $HOME.", nil},
		{"a placeholder with no argument empties", "[$0]", "", "[]", nil},
		{"session id", "id=${KIMI_SESSION_ID}", "", "id=S1", nil},
		{"a lone dollar", "cost $ 5$", "", "cost $ 5$", nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := skill.Render(skill.Skill{Body: tt.body, Arguments: tt.names}, tt.args, "S1")
			if got != tt.want {
				t.Errorf("Render(%q, %q) = %q; want %q", tt.body, tt.args, got, tt.want)
			}
		})
	}
}

func TestTokenize(t *testing.T) {
	for in, want := range map[string][]string{
		"":                  nil,
		"  a  b ":           {"a", "b"},
		`"a b" c`:           {"a b", "c"},
		`x "" y`:            {"x", "", "y"},
		`it's`:              {"its"},
		`'a "b" c'`:         {`a "b" c`},
		"#12 fast":          {"#12", "fast"},
		`pre"fix more"post`: {"prefix morepost"},
	} {
		if d := cmp.Diff(want, skill.Tokenize(in)); d != "" {
			t.Errorf("Tokenize(%q) (-want +got):\n%s", in, d)
		}
	}
}

func FuzzTokenize(f *testing.F) {
	for _, s := range []string{`a "b c" ''`, "x\ty\nz", `'unclosed`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) {
			t.Skip("arguments are text")
		}
		toks := skill.Tokenize(s)
		// Without quotes, tokens are exactly the fields.
		if !strings.ContainsAny(s, `"'`) && !slices.Equal(toks, strings.FieldsFunc(s, func(r rune) bool {
			return r == ' ' || r == '\t' || r == '\n' || r == '\r'
		})) {
			t.Errorf("Tokenize(%q) = %q; want the fields", s, toks)
		}
		// Render never panics and never leaves a raw tag from arguments.
		out := skill.Render(skill.Skill{Body: "$ARGUMENTS $0 $1"}, s, "")
		if strings.ContainsAny(strings.TrimSpace(out), "<>") {
			t.Errorf("Render leaked a tag from %q: %q", s, out)
		}
	})
}

func TestListing(t *testing.T) {
	long := strings.Repeat("d", 300)
	reg := skill.NewRegistry([]skill.Skill{
		{Name: "zeta", Description: "last\nline", Path: "/p/zeta/SKILL.md", Source: skill.SourceProject, WhenToUse: "always"},
		{Name: "alpha", Description: long, Path: "/u/alpha.md", Source: skill.SourceUser},
		{Name: "hidden", Description: "x", Path: "/p/h", Source: skill.SourceProject, DisableModelInvocation: true},
		{Name: "flow", Description: "x", Path: "/p/f", Source: skill.SourceProject, Type: skill.TypeFlow},
		{Name: "alpha.sub", Description: "x", Path: "/u/a/s", Source: skill.SourceUser, SubSkill: true},
	}, nil)
	got := reg.Listing()
	want := "These are the skills available now; if an earlier message listed skills, this list replaces it.\n\n" +
		"### Project\n- zeta: last line\n  When to use: always\n  Path: /p/zeta/SKILL.md\n\n" +
		"### User\n- alpha: " + strings.Repeat("d", 249) + "…\n  Path: /u/alpha.md"
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Listing (-want +got):\n%s", d)
	}
	if l := skill.NewRegistry([]skill.Skill{{Name: "x", Description: "y", DisableModelInvocation: true}}, nil).Listing(); l != "" {
		t.Errorf("a registry without invocable skills lists %q", l)
	}
	if !strings.Contains(skill.NewRegistry(nil, skill.Builtin()).Listing(), "### Built-in") {
		t.Error("the built-in group is missing")
	}
}
