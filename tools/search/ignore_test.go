package search

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestWildmatch(t *testing.T) {
	for _, tt := range []struct {
		pattern, text string
		want          bool
	}{
		{"*.go", "a.go", true},
		{"*.go", "dir/a.go", false}, // '*' never crosses '/'
		{"a?c", "abc", true},
		{"a?c", "a/c", false},
		{"a?c", "aéc", true}, // '?' is one rune
		{"[a-c]x", "bx", true},
		{"[!a-c]x", "bx", false},
		{"[^a-c]x", "dx", true},
		{"[]]", "]", true},
		{"[a-]", "-", true},
		{"[[:digit:]]z", "7z", true},
		{"[[:upper:]]", "a", false},
		{"a[/]b", "a/b", false}, // a class never matches '/'
		{"[abc", "[abc", false}, // unclosed class matches nothing
		{`\*`, "*", true},
		{`\*`, "x", false},
		{`a\`, "a", false}, // trailing backslash matches nothing
		{"**/foo", "foo", true},
		{"**/foo", "a/b/foo", true},
		{"foo/**", "foo/a/b", true},
		{"foo/**", "foo", false},
		{"a/**/b", "a/b", true},
		{"a/**/b", "a/x/y/b", true},
		{"a/**/b", "a/xb", false},
		{"a**b", "axxb", true}, // not a whole segment: a plain '*'
		{"a**b", "a/b", false},
		{"**", "a/b/c", true},
		{"*", "", true},
		{"abc", "abcd", false},
		{"*c", "abc", true},
		{"*/b", "a/b", true},
		{"*/b", "a/x/b", false},
	} {
		if got := wildmatch(tt.pattern, tt.text); got != tt.want {
			t.Errorf("wildmatch(%q, %q) = %v, want %v", tt.pattern, tt.text, got, tt.want)
		}
	}
}

func TestParseIgnore(t *testing.T) {
	got := parseIgnore([]byte("# comment\n\n*.log\n!keep.log\r\nbuild/\n/root-only\ndoc/frotz\ntrail   \nesc\\ \n\\#hash\n!\n/\n"))
	want := ignoreRules{
		{pattern: "*.log", kind: ruleSuffix, lit: ".log"},
		{pattern: "keep.log", negate: true, kind: ruleLiteral, lit: "keep.log"},
		{pattern: "build", dirOnly: true, kind: ruleLiteral, lit: "build"},
		{pattern: "root-only", anchored: true, kind: ruleLiteral, lit: "root-only"},
		{pattern: "doc/frotz", anchored: true, kind: ruleLiteral, lit: "doc/frotz"},
		{pattern: "trail", kind: ruleLiteral, lit: "trail"},
		{pattern: `esc\ `},
		{pattern: `\#hash`},
	}
	if d := cmp.Diff(want, got, cmp.AllowUnexported(ignoreRule{})); d != "" {
		t.Errorf("parseIgnore (-want +got):\n%s", d)
	}
}

// ignoreCase is a work tree with ignore files and the files git ignores.
type ignoreCase struct {
	name    string
	ignores map[string]string // path of an ignore file → content
	files   []string          // every other file, slash-separated
	want    []string          // files (including ignore files) excluded
}

var gitIgnoreCases = []ignoreCase{
	{name: "base-name pattern matches at any depth",
		ignores: map[string]string{".gitignore": "*.log\n"},
		files:   []string{"a.log", "d/b.log", "d/c.txt"},
		want:    []string{"a.log", "d/b.log"}},
	{name: "leading slash anchors",
		ignores: map[string]string{".gitignore": "/build\n"},
		files:   []string{"build/x", "src/build/y"},
		want:    []string{"build/x"}},
	{name: "middle slash anchors",
		ignores: map[string]string{".gitignore": "doc/frotz\n"},
		files:   []string{"doc/frotz", "a/doc/frotz"},
		want:    []string{"doc/frotz"}},
	{name: "trailing slash matches directories only",
		ignores: map[string]string{".gitignore": "out/\n"},
		files:   []string{"out/a", "sub/out"},
		want:    []string{"out/a"}},
	{name: "negation re-includes a file",
		ignores: map[string]string{".gitignore": "*.txt\n!keep.txt\n"},
		files:   []string{"a.txt", "keep.txt", "d/keep.txt", "d/b.txt"},
		want:    []string{"a.txt", "d/b.txt"}},
	{name: "negation cannot re-include below an ignored directory",
		ignores: map[string]string{".gitignore": "logs/\n!logs/keep\n"},
		files:   []string{"logs/keep", "logs/x"},
		want:    []string{"logs/keep", "logs/x"}},
	{name: "ignore everything but one directory",
		ignores: map[string]string{".gitignore": "/*\n!/src\n"},
		files:   []string{"a", "src/b", "c/d"},
		want:    []string{".gitignore", "a", "c/d"}},
	{name: "leading double star",
		ignores: map[string]string{".gitignore": "**/foo\n"},
		files:   []string{"foo", "a/foo", "a/b/foo/x", "a/foox"},
		want:    []string{"a/b/foo/x", "a/foo", "foo"}},
	{name: "trailing double star",
		ignores: map[string]string{".gitignore": "abc/**\n"},
		files:   []string{"abc/x", "abc/d/y", "x/abc/z"},
		want:    []string{"abc/d/y", "abc/x"}},
	{name: "middle double star",
		ignores: map[string]string{".gitignore": "a/**/b\n"},
		files:   []string{"a/b", "a/x/b", "a/x/y/b", "a/bb", "z/a/b"},
		want:    []string{"a/b", "a/x/b", "a/x/y/b"}},
	{name: "nested ignore file is scoped to its directory",
		ignores: map[string]string{"sub/.gitignore": "*.tmp\n"},
		files:   []string{"x.tmp", "sub/y.tmp", "sub/deep/z.tmp"},
		want:    []string{"sub/deep/z.tmp", "sub/y.tmp"}},
	{name: "deeper ignore file overrides a shallower one",
		ignores: map[string]string{".gitignore": "*.gen\n", "sub/.gitignore": "!*.gen\n"},
		files:   []string{"a.gen", "sub/b.gen", "sub/deep/c.gen"},
		want:    []string{"a.gen"}},
	{name: "nested anchored pattern is relative to its file",
		ignores: map[string]string{"sub/.gitignore": "/only\n"},
		files:   []string{"only", "sub/only", "sub/x/only"},
		want:    []string{"sub/only"}},
	{name: "classes and question marks",
		ignores: map[string]string{".gitignore": "file[0-9].?\n[[:digit:]]*\n[!a]*.x\n"},
		files:   []string{"file1.c", "filea.c", "file12.c", "1abc", "abc", "b.x", "a.x"},
		want:    []string{"1abc", "b.x", "file1.c"}},
	{name: "escapes, comments and trailing spaces",
		ignores: map[string]string{".gitignore": "\\#notcomment\n#comment\ntrail   \n\\!bang\n"},
		files:   []string{"#notcomment", "comment", "trail", "!bang"},
		want:    []string{"!bang", "#notcomment", "trail"}},
	{name: "star does not cross directories",
		ignores: map[string]string{".gitignore": "a*b\nx/*.c\n"},
		files:   []string{"ab", "axxb", "a/b", "x/a.c", "x/y/a.c"},
		want:    []string{"ab", "axxb", "x/a.c"}},
	{name: "info/exclude applies at the repository root",
		ignores: map[string]string{".git/info/exclude": "*.secret\n"},
		files:   []string{"a.secret", "d/b.secret", "c.txt"},
		want:    []string{"a.secret", "d/b.secret"}},
	{name: "later rule wins within one file",
		ignores: map[string]string{".gitignore": "!a.txt\n*.txt\n"},
		files:   []string{"a.txt", "b.md"},
		want:    []string{"a.txt"}},
}

func TestIgnoreRulesMatchGit(t *testing.T) {
	git, gitErr := exec.LookPath("git")
	for _, tt := range gitIgnoreCases {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			if gitErr == nil {
				if out, err := exec.Command(git, "init", "-q", root).CombinedOutput(); err != nil {
					t.Fatalf("git init: %v\n%s", err, out)
				}
			} else if err := os.MkdirAll(filepath.Join(root, ".git", "info"), 0o755); err != nil {
				t.Fatal(err)
			}
			all := writeIgnoreCase(t, root, tt)
			got := ignoredByWalk(t, root, all)
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("walk ignores (-want +got):\n%s", d)
			}
			if gitErr != nil {
				return // the table still guards the matcher
			}
			if d := cmp.Diff(tt.want, gitCheckIgnore(t, git, root, all)); d != "" {
				t.Errorf("table disagrees with git check-ignore (-table +git):\n%s", d)
			}
		})
	}
}

func writeIgnoreCase(t *testing.T, root string, tt ignoreCase) []string {
	t.Helper()
	var all []string
	write := func(rel, content string) {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for rel, content := range tt.ignores {
		write(rel, content)
		if !strings.HasPrefix(rel, ".git/") {
			all = append(all, rel)
		}
	}
	for _, rel := range tt.files {
		write(rel, "x\n")
		all = append(all, rel)
	}
	slices.Sort(all)
	return all
}

// ignoredByWalk lists the tree and returns the files of all it did not
// yield.
func ignoredByWalk(t *testing.T, root string, all []string) []string {
	t.Helper()
	res, err := New(Options{}).Find(t.Context(), FindQuery{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	for _, f := range res.Files {
		rel, _ := filepath.Rel(root, f.Path)
		listed[filepath.ToSlash(rel)] = true
	}
	var out []string
	for _, rel := range all {
		if !listed[rel] {
			out = append(out, rel)
		}
	}
	return out
}

// gitCheckIgnore asks git which of the paths it ignores, isolated from the
// user's and the system's git configuration.
func gitCheckIgnore(t *testing.T, git, root string, paths []string) []string {
	t.Helper()
	cmd := exec.Command(git, "-c", "core.excludesFile=", "check-ignore", "--stdin")
	cmd.Dir = root
	cmd.Env = []string{"HOME=" + root, "GIT_CONFIG_NOSYSTEM=1", "GIT_DIR=" + filepath.Join(root, ".git"), "GIT_WORK_TREE=" + root}
	cmd.Stdin = strings.NewReader(strings.Join(paths, "\n") + "\n")
	out, err := cmd.Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 { // 1: nothing ignored
			t.Fatalf("git check-ignore: %v", err)
		}
	}
	var got []string
	for line := range strings.Lines(string(out)) {
		got = append(got, strings.TrimSuffix(line, "\n"))
	}
	slices.Sort(got)
	return got
}
