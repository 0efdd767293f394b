package config_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kimigo/kimigo/config"
)

// project makes a project root with .kimi-code/local.toml holding content
// ("" writes none).
func project(t *testing.T, content string) (root, path string) {
	t.Helper()
	root = t.TempDir()
	path = filepath.Join(root, ".kimi-code", "local.toml")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if content != "" {
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return root, path
}

func TestLocalDirsResolution(t *testing.T) {
	user := t.TempDir()
	if err := os.Mkdir(filepath.Join(user, "shared"), 0o755); err != nil {
		t.Fatal(err)
	}
	root, _ := project(t, "")
	abs := t.TempDir()
	content := "[workspace]\nadditional_dir = [\" ~/shared \", \"" + abs + "\", \".kimi-code\", \"\", \"" + abs + "/\"]\n"
	if err := os.WriteFile(filepath.Join(root, ".kimi-code", "local.toml"), []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	l, _, err := config.LoadLocal(config.LocalOptions{ProjectRoot: root, UserHome: user})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(user, "shared"), abs, filepath.Join(root, ".kimi-code")}
	if d := cmp.Diff(want, l.AdditionalDirs); d != "" {
		t.Errorf("dirs (-want +got):\n%s", d)
	}
}

func TestLocalMissingAndErrors(t *testing.T) {
	root, _ := project(t, "")
	if l, w, err := config.LoadLocal(config.LocalOptions{ProjectRoot: root}); err != nil || len(w) != 0 || len(l.AdditionalDirs) != 0 {
		t.Errorf("missing file: %+v %v %v", l, w, err)
	}
	for content, want := range map[string]string{
		"workspace = 3\n":                                  "workspace must be a table",
		"[workspace]\nadditional_dir = \"/tmp\"\n":         "workspace.additional_dir must be an array of strings",
		"[workspace]\nadditional_dir = [1]\n":              "workspace.additional_dir must be an array of strings",
		"[workspace]\nadditional_dir = [\"local.toml\"]\n": "workspace.additional_dir must exist and be a directory",
		"[workspace\n":                                     "Invalid TOML in ",
	} {
		root, path := project(t, content)
		_, _, err := config.LoadLocal(config.LocalOptions{ProjectRoot: filepath.Join(root)})
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), path) {
			t.Errorf("%q: %v; want %q naming %s", content, err, want, path)
		}
	}
}

// TestLocalRules: a project file may tighten, never loosen (ERRATA 11).
func TestLocalRules(t *testing.T) {
	content := "[[permission.rules]]\ndecision = \"deny\"\npattern = \"Bash(curl*)\"\n\n" +
		"[[permission.rules]]\ndecision = \"allow\"\npattern = \"Bash\"\n"
	root, path := project(t, content)
	l, w, err := config.LoadLocal(config.LocalOptions{ProjectRoot: root})
	if err != nil {
		t.Fatal(err)
	}
	want := []config.PermissionRule{{Decision: config.DecisionDeny, Pattern: "Bash(curl*)", Origin: config.OriginProject, Source: path, Line: 1}}
	if d := cmp.Diff(want, l.Rules); d != "" {
		t.Errorf("rules (-want +got):\n%s", d)
	}
	if len(w) != 1 || !strings.Contains(w[0].Message, path) || !strings.Contains(w[0].Message, "may only deny or ask") {
		t.Errorf("warnings = %q; want one naming %s", messages(w), path)
	}
}

func TestRememberAdditionalDir(t *testing.T) {
	root, path := project(t, "[workspace]\nadditional_dir = [\"/a\"]\nnote = \"kept\"\n\n[other]\nx = 1\n")
	for range 2 {
		if err := config.RememberAdditionalDir(config.LocalOptions{ProjectRoot: root}, "/b"); err != nil {
			t.Fatal(err)
		}
	}
	text := readFile(t, path)
	for _, want := range []string{`additional_dir = ["/a", "/b"]`, `note = "kept"`, "[other]\nx = 1"} {
		if !strings.Contains(text, want) {
			t.Errorf("file lacks %q:\n%s", want, text)
		}
	}
	fresh := t.TempDir()
	if err := config.RememberAdditionalDir(config.LocalOptions{ProjectRoot: fresh}, "/c"); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, filepath.Join(fresh, ".kimi-code", "local.toml")); !strings.Contains(got, `additional_dir = ["/c"]`) {
		t.Errorf("new local.toml = %q", got)
	}
	bad, badPath := project(t, "[workspace\n")
	if err := config.RememberAdditionalDir(config.LocalOptions{ProjectRoot: bad}, "/d"); err == nil ||
		readFile(t, badPath) != "[workspace\n" {
		t.Errorf("a broken local.toml was rewritten (err %v)", err)
	}
}
