package workspace_test

import (
	"testing"

	"github.com/kimigo/kimigo/osenv/osenvtest"
	"github.com/kimigo/kimigo/workspace"
)

// The rule matchers run on internal/glob, the picomatch matcher of the
// permission rules; these cases pin what the tools add around it.

func TestStringRuleMatcher(t *testing.T) {
	for _, tt := range []struct {
		name, subject, rule string
		want                bool
	}{
		{"empty argument matches everything", "anything", "", true},
		{"star within a segment", "git status", "git *", true},
		{"star does not cross a slash", "cat a/b", "cat *", false},
		{"globstar segment crosses slashes", "src/a/b.go", "src/**", true},
		{"star skips a leading dot", ".env", "*", false},
		{"braces", "hg status", "{git,hg} status", true},
		{"extglob", "go vet", "go @(vet|test)", true},
		{"negation inverts", "rm -rf x", "!git *", true},
		{"negation of a match", "git log", "!git *", false},
		{"escaped approval rule is literal", "printf *", workspace.EscapeRule("printf *"), true},
		{"escaped approval rule is not a glob", "printf hello", workspace.EscapeRule("printf *"), false},
		{"dot-slash on the subject is retried", "./run.sh", "run.sh", true},
		{"dot-slash on the pattern is ignored", "run.sh", "./run.sh", true},
		{"dot-slash on both", "./run.sh", "./run.sh", true},
		{"broken glob matches nothing", "a", "[z-a]", false},
		{"broken negated glob matches nothing", "a", "![z-a]", false},
		{"bare negation matches nothing", "a", "!", false},
		{"case matters", "Git status", "git *", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := workspace.StringRuleMatcher(tt.subject)(tt.rule); got != tt.want {
				t.Errorf("StringRuleMatcher(%q)(%q) = %v; want %v", tt.subject, tt.rule, got, tt.want)
			}
		})
	}
}

func TestPathRuleMatcher(t *testing.T) {
	env := osenvtest.New(osenvtest.Options{})
	ws := workspace.Dirs{Dir: "/ws"}
	for _, tt := range []struct {
		name, raw, rule string
		want            bool
	}{
		{"relative pattern resolves against the work dir", "src/a.go", "src/*.go", true},
		{"case is folded", "src/A.go", "/ws/src/a.GO", true},
		{"globstar below a dir", "src/deep/a.go", "/ws/**", true},
		{"globstar skips dot dirs", ".cfg/a.toml", "/ws/**", false},
		{"dot dirs named explicitly", ".cfg/a.toml", "/ws/.cfg/*", true},
		{"home pattern", "~/notes.md", "~/*.md", true},
		{"other dir", "src/a.go", "/other/**", false},
		{"negated other dir", "src/a.go", "!/other/**", true},
		{"broken pattern matches nothing", "src/a.go", "/ws/[z-a]", false},
		{"broken negated pattern matches nothing", "src/a.go", "!/ws/[z-a]", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p, err := workspace.ResolvePath(env, ws, tt.raw, workspace.IntentRead)
			if err != nil {
				t.Fatal(err)
			}
			if got := workspace.PathRuleMatcher(env, ws, p)(tt.rule); got != tt.want {
				t.Errorf("PathRuleMatcher(%q)(%q) = %v; want %v", tt.raw, tt.rule, got, tt.want)
			}
		})
	}
}

func TestNameMatches(t *testing.T) {
	for _, tt := range []struct {
		pattern, name string
		want          bool
	}{
		{"mcp__github__*", "mcp__github__create_issue", true},
		{"mcp__github__*", "mcp__gitlab__create_issue", false},
		{"mcp__*__read", "mcp__fs__read", true},
		{"Read", "read", false}, // names are case-sensitive
		{"mcp__*", "Bash", false},
	} {
		if got := workspace.NameMatches(tt.pattern, tt.name); got != tt.want {
			t.Errorf("NameMatches(%q, %q) = %v; want %v", tt.pattern, tt.name, got, tt.want)
		}
	}
}
