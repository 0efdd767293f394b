package search_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kimigo/kimigo/tools/search"
	"github.com/kimigo/kimigo/workspace"
)

// TestParityWithRipgrep generates a tree with nested ignore files of every
// kind, hidden files, VCS directories, a nested repository, sensitive
// files, binary files and symlinks, and checks that Find and Grep yield
// the file sets of `rg --files --hidden` and `rg -l --hidden` given the
// same exclusions (ERRATA 24). Under CI=true a missing rg fails the test.
func TestParityWithRipgrep(t *testing.T) {
	rg := ripgrep(t)
	for seed := range uint64(3) {
		t.Run(fmt.Sprintf("seed %d", seed), func(t *testing.T) { checkParity(t, rg, seed) })
	}
}

func checkParity(t *testing.T, rg string, seed uint64) {
	base := t.TempDir()
	root := filepath.Join(base, "outer", "repo")
	generateTree(t, base, root, seed)
	excludes := workspace.SensitiveExcludeGlobs()
	rgArgs := []string{"--hidden", "--no-config"}
	for _, d := range search.VCSDirs {
		rgArgs = append(rgArgs, "--glob", "!"+d)
	}
	for _, g := range excludes {
		rgArgs = append(rgArgs, "--glob", "!"+g)
	}
	e := search.New(search.Options{})

	t.Run("files", func(t *testing.T) {
		for _, includeIgnored := range []bool{false, true} {
			args := append([]string{"--files"}, rgArgs...)
			if includeIgnored {
				args = append(args, "--no-ignore")
			}
			want := runRipgrep(t, rg, root, args)
			res, err := e.Find(t.Context(), search.FindQuery{Root: root, Filter: search.Filter{IncludeIgnored: includeIgnored, Exclude: excludes}})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, f := range res.Files {
				got = append(got, relTo(t, root, f.Path))
			}
			compareSets(t, fmt.Sprintf("files include_ignored=%v", includeIgnored), want, got)
		}
	})

	for _, q := range []struct {
		name, pattern string
		ignoreCase    bool
	}{
		{"literal", "needle", false},
		{"regex", `ne+dle\d`, false},
		{"case-insensitive", "NEEDLE", true},
		{"case-insensitive Unicode fold", "KELVIN", true},
	} {
		t.Run("grep "+q.name, func(t *testing.T) {
			args := append([]string{"-l"}, rgArgs...)
			if q.ignoreCase {
				args = append(args, "-i")
			}
			want := runRipgrep(t, rg, root, append(args, "--", q.pattern))
			res, err := e.Grep(t.Context(), search.GrepQuery{Root: root, Pattern: q.pattern, IgnoreCase: q.ignoreCase, Filter: search.Filter{Exclude: excludes}})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, f := range res.Files {
				got = append(got, relTo(t, root, f.Path))
			}
			compareSets(t, "grep "+q.pattern, want, got)
		})
	}
}

func ripgrep(t *testing.T) string {
	t.Helper()
	rg, err := exec.LookPath("rg")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("ripgrep (rg) is required for the parity test in CI; install it with apt-get install -y ripgrep")
		}
		t.Skip("ripgrep (rg) is not installed: parity with rg is not checked (apt-get install -y ripgrep)")
	}
	return rg
}

func runRipgrep(t *testing.T, rg, dir string, args []string) []string {
	t.Helper()
	cmd := exec.Command(rg, args...)
	cmd.Dir = dir
	// No user configuration: no global gitignore, no ripgrep config file.
	cmd.Env = []string{"HOME=" + dir, "XDG_CONFIG_HOME=" + dir, "PATH=" + os.Getenv("PATH")}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
			t.Fatalf("rg %v: %v\n%s", args, err, stderr.String())
		}
	}
	var paths []string
	for line := range strings.Lines(string(out)) {
		paths = append(paths, strings.TrimPrefix(strings.TrimSuffix(line, "\n"), "./"))
	}
	return paths
}

// compareSets compares two path sets.
func compareSets(t *testing.T, what string, want, got []string) {
	t.Helper()
	slices.Sort(want)
	slices.Sort(got)
	if len(want) < 20 {
		t.Errorf("%s: rg found only %d files; the generated tree is not exercising anything", what, len(want))
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("%s: kimigo differs from rg (-rg +kimigo):\n%s", what, d)
	}
}

func relTo(t *testing.T, root, p string) string {
	t.Helper()
	rel, err := filepath.Rel(root, p)
	if err != nil {
		t.Fatal(err)
	}
	return filepath.ToSlash(rel)
}

// generateTree writes a deterministic pseudo-random work tree at root
// (below base/outer, which holds ignore files of its own).
func generateTree(t *testing.T, base, root string, seed uint64) {
	t.Helper()
	rnd := rand.New(rand.NewPCG(seed, seed+1))
	write := func(rel string, data []byte) {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Enclosing directories: .ignore applies below, .gitignore above the
	// repository root does not.
	writeFile(t, filepath.Join(base, "outer", ".ignore"), "*.outerignored\n")
	writeFile(t, filepath.Join(base, "outer", ".gitignore"), "*.go\n")
	write(".git/HEAD", []byte("ref: refs/heads/main\n"))
	write(".git/info/exclude", []byte("*.excluded\n"))
	write(".svn/entries", []byte("needle\n"))
	write("sub/.hg/store", []byte("needle\n"))
	write(".gitignore", []byte("*.log\n!important.log\nbuild/\n/out\n**/tmp\n*.gen\n!keep.gen\ndocs/**/*.md\n[a-c]*.txt\n?x.go\n"))
	write(".ignore", []byte("*.bin\n!keep.bin\n"))
	write("lib/.rgignore", []byte("secret*\n!secret.keep\n"))
	write("lib/.gitignore", []byte("!*.log\n/local\n"))
	write("nested/.git/HEAD", []byte("x\n"))
	write("nested/.gitignore", []byte("only-nested\n"))
	write("deep/a/.gitignore", []byte("!b.gen\n*.md\n"))

	dirs := []string{"", "src", "src/pkg", "lib", "lib/local", "lib/sub", "build", "out", "docs", "docs/x",
		"node_modules", "tmp", "src/tmp", ".config", ".hidden/inner", "nested", "nested/lib", "deep/a", "deep/a/b",
		"sub", ".aws", ".gcp/credentials", "cfg"}
	names := []string{"main.go", "ax.go", "util.ts", "notes.txt", "atlas.txt", "zeta.txt", "run.log", "important.log",
		"data.bin", "keep.bin", "code.gen", "keep.gen", "b.gen", "README.md", ".hidden.cfg", "secret.key",
		"secret.keep", "only-nested", "x.excluded", "y.outerignored", ".env", ".env.local", ".env.example",
		"id_rsa", "id_rsa.pub", "id_rsa_backup", "id_ed25519.old", "credentials", "credentials.json",
		"credentials-prod", "plain"}
	for _, d := range dirs {
		for _, n := range names {
			if rnd.IntN(3) == 0 {
				continue
			}
			rel := strings.TrimPrefix(d+"/"+n, "/")
			write(rel, fileBody(rnd))
		}
	}
	for i := range 200 {
		d := dirs[rnd.IntN(len(dirs))]
		rel := strings.TrimPrefix(fmt.Sprintf("%s/gen%03d.%s", d, i, []string{"go", "txt", "md", "log", "dat"}[rnd.IntN(5)]), "/")
		write(rel, fileBody(rnd))
	}
	write(".aws/credentials", []byte("needle\n"))
	// Binary files: a NUL in the first 64 KiB hides the file from a
	// recursive search even when the match comes first; a later NUL does
	// not hide a match before it.
	write("bin/early.dat", []byte("needle\n\x00rest\n"))
	write("bin/lead.dat", append([]byte{0}, []byte("needle\n")...))
	write("bin/late.dat", append(append([]byte("needle\n"), bytes.Repeat([]byte("a\n"), 40<<10)...), 0))
	write("bin/mid.dat", append(append([]byte("needle\n"), bytes.Repeat([]byte("a\n"), 20<<10)...), 0))
	// Symlinks are not followed, to files or to directories.
	for name, target := range map[string]string{"link.txt": "src/util.ts", "linkdir": "src", "dangling": "nope", "loop": "loop"} {
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
}

// fileBody returns text that holds the grep patterns' matches now and
// then, in assorted cases.
func fileBody(rnd *rand.Rand) []byte {
	switch rnd.IntN(6) {
	case 0:
		return []byte("alpha\nneedle here\nomega\n")
	case 1:
		return []byte("NeEdLe in caps\n")
	case 2:
		return []byte("neeedle7 and more\n")
	case 3:
		return []byte("no match\n")
	case 4:
		return []byte("\u212aelvin: a Kelvin sign folds to k; so does nEEDLE to needle\n")
	}
	return []byte("")
}

func writeFile(t *testing.T, p, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}
