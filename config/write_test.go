package config_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kimigo/kimigo/config"
	"github.com/kimigo/kimigo/osenv"
)

func TestAddAllowRuleKeepsTheFile(t *testing.T) {
	content := "# my settings\ndefault_model = \"fake\" # chosen by hand\n" + goodProvider + "\n[[permission.rules]]\ndecision = \"deny\"\npattern = \"Bash(rm*)\"" // no final newline
	dir, path := home(t, content)
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := config.AddUserAllowRule(dir, `Bash(echo "a\b")`); err != nil {
		t.Fatal(err)
	}
	got := readFile(t, path)
	if !strings.HasPrefix(got, content+"\n") {
		t.Errorf("the original text is not kept as written:\n%s", got)
	}
	fi, _ := os.Stat(path)
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("mode = %v; want 0600", fi.Mode().Perm())
	}
	cfg, w := mustLoad(t, dir, nil)
	want := []config.PermissionRule{
		{Decision: config.DecisionDeny, Pattern: "Bash(rm*)", Origin: config.OriginUser, Source: path, Line: 14},
		{Decision: config.DecisionAllow, Scope: "user", Pattern: `Bash(echo "a\b")`, Origin: config.OriginUser, Source: path, Line: 18},
	}
	if d := cmp.Diff(want, cfg.Permission); d != "" || len(w) != 0 {
		t.Errorf("warnings %q, rules (-want +got):\n%s", messages(w), d)
	}
	if err := config.AddUserAllowRule(dir, `Bash(echo "a\b")`); err != nil || readFile(t, path) != got {
		t.Errorf("adding the same rule again changed the file (err %v)", err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("data root holds %d entries; want only config.toml", len(entries))
	}
}

func TestAddAllowRuleCreatesTheFile(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "fresh")
	if err := config.AddUserAllowRule(dir, "Read"); err != nil {
		t.Fatal(err)
	}
	di, _ := os.Stat(dir)
	fi, _ := os.Stat(config.ConfigFile(dir))
	if di.Mode().Perm() != 0o700 || fi.Mode().Perm() != 0o600 {
		t.Errorf("modes: dir %v file %v", di.Mode().Perm(), fi.Mode().Perm())
	}
	cfg, _ := mustLoad(t, dir, nil)
	if len(cfg.Permission) != 1 || cfg.Permission[0].Pattern != "Read" {
		t.Errorf("rules = %+v", cfg.Permission)
	}
}

func TestAddAllowRuleInlineRulesFallBack(t *testing.T) {
	dir, path := home(t, "[permission]\nrules = [{ decision = \"deny\", pattern = \"Write\" }]\n")
	if err := config.AddUserAllowRule(dir, "Read"); err != nil {
		t.Fatal(err)
	}
	cfg, _ := mustLoad(t, dir, nil)
	var got []string
	for _, r := range cfg.Permission {
		got = append(got, string(r.Decision)+" "+r.Pattern)
	}
	if d := cmp.Diff([]string{"deny Write", "allow Read"}, got); d != "" {
		t.Errorf("rules (-want +got):\n%s\nfile:\n%s", d, readFile(t, path))
	}
}

func TestAddAllowRuleRejectsBadPatterns(t *testing.T) {
	dir, path := home(t, goodProvider)
	for _, p := range []string{"", "  ", "Bash(\xff)"} {
		if err := config.AddUserAllowRule(dir, p); err == nil {
			t.Errorf("AddUserAllowRule(%q) succeeded", p)
		}
	}
	if readFile(t, path) != goodProvider {
		t.Error("a refused rule changed the file")
	}
}

func TestPatchSemantics(t *testing.T) {
	content := `default_yolo = true

[thinking]
mode = "off"

[providers.p]
type = "kimi"
api_key = "k"

[models.a]
provider = "p"
model = "a"
max_context_size = 10

[models.b]
provider = "p"
model = "b"
max_context_size = 10

[[permission.deny]]
tool = "Bash"
match = "rm*"
`
	dir, path := home(t, content)
	err := config.Patch(osenv.LocalFS{}, path, map[string]any{
		"models":        map[string]any{"a": map[string]any{"max_context_size": 20}, "b": nil},
		"hooks":         []map[string]any{{"event": "Stop", "command": "notify"}},
		"default_model": "a",
	})
	if err != nil {
		t.Fatal(err)
	}
	cfg, w := mustLoad(t, dir, nil)
	if len(w) != 0 {
		t.Errorf("warnings after a patch: %q\n%s", messages(w), readFile(t, path))
	}
	if _, ok := cfg.Models["b"]; ok || cfg.Models["a"].MaxContextSize != 20 || cfg.Models["a"].Model != "a" {
		t.Errorf("models after patch: %+v", cfg.Models)
	}
	wantRules := []config.PermissionRule{{Decision: config.DecisionDeny, Pattern: "Bash(rm*)", Origin: config.OriginUser, Source: path, Line: 0}}
	for i := range cfg.Permission {
		cfg.Permission[i].Line = 0
	}
	if d := cmp.Diff(wantRules, cfg.Permission); d != "" {
		t.Errorf("shorthand not normalised (-want +got):\n%s", d)
	}
	text := readFile(t, path)
	for _, gone := range []string{"default_yolo", "mode =", "[[permission.deny]]", "tool ="} {
		if strings.Contains(text, gone) {
			t.Errorf("rewrite kept %q:\n%s", gone, text)
		}
	}
	if cfg.Thinking.Enabled == nil || *cfg.Thinking.Enabled || len(cfg.Hooks) != 1 {
		t.Errorf("thinking %v hooks %v", cfg.Thinking.Enabled, cfg.Hooks)
	}
	for _, bad := range []map[string]any{
		{"colour": "blue"},
		{"providers": map[string]any{"p": map[string]any{"colour": "blue"}}},
		{"loop_control": map[string]any{"max_steps_per_turn": -1}},
	} {
		before := readFile(t, path)
		err := config.Patch(osenv.LocalFS{}, path, bad)
		if err == nil || !strings.HasPrefix(err.Error(), "Invalid configuration patch: ") || readFile(t, path) != before {
			t.Errorf("Patch(%v) = %v; want an invalid-patch error and no change", bad, err)
		}
	}
}

func TestWriteThroughSymlink(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "dotfiles.toml")
	if err := os.WriteFile(real, []byte(goodProvider), 0o600); err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(dir, "home")
	if err := os.Mkdir(home, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, config.ConfigFile(home)); err != nil {
		t.Fatal(err)
	}
	if err := config.AddUserAllowRule(home, "Read"); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(config.ConfigFile(home)); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Error("the symlink was replaced by a file")
	}
	if !strings.Contains(readFile(t, real), `pattern = "Read"`) {
		t.Error("the link target did not get the rule")
	}
}
