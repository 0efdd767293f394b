//go:build unix

package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
)

// generate writes a deterministic tree of n files below dir, unless a
// previous run completed it (a marker file says so). Files are source-like
// text of about 1.5 KB in directories of about 20 files, with a .gitignore
// that prunes build directories, so both engines walk the same ground.
func generate(dir string, n int) error {
	marker := filepath.Join(dir, ".complete")
	if _, err := os.Stat(marker); err == nil {
		return nil
	}
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("clear %s: %w", dir, err)
	}
	rnd := rand.New(rand.NewPCG(42, 7))
	if err := os.MkdirAll(filepath.Join(dir, ".git"), 0o755); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".gitignore"), []byte("build/\n*.tmp\n"), 0o644); err != nil {
		return fmt.Errorf("write .gitignore: %w", err)
	}
	exts := []string{"go", "ts", "py", "md", "txt", "json"}
	for i := range n {
		d := i / 20
		rel := filepath.Join(fmt.Sprintf("m%02d", d%50), fmt.Sprintf("p%03d", (d/50)%100), fmt.Sprintf("d%04d", d))
		if d%97 == 0 {
			rel = filepath.Join(rel, "build")
		}
		p := filepath.Join(dir, rel, fmt.Sprintf("f%06d.%s", i, exts[rnd.IntN(len(exts))]))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return fmt.Errorf("create %s: %w", filepath.Dir(p), err)
		}
		if err := os.WriteFile(p, body(rnd), 0o644); err != nil {
			return fmt.Errorf("write %s: %w", p, err)
		}
	}
	return os.WriteFile(marker, nil, 0o644)
}

var words = strings.Fields(`func return if else for range var const type struct interface map string int
error nil err ctx context Context value result index count buffer reader writer handle request response
client server config options default path file name data item list next prev node tree walk search match
pattern line text bytes len make append copy close open read write sync mutex lock unlock wait group`)

// body returns about 1.5 KB of code-like lines; now and then a line holds
// one of the benchmark's search targets.
func body(rnd *rand.Rand) []byte {
	var b strings.Builder
	for b.Len() < 1500 {
		for range 3 + rnd.IntN(8) {
			b.WriteString(words[rnd.IntN(len(words))])
			b.WriteByte(' ')
		}
		switch rnd.IntN(400) {
		case 0:
			b.WriteString("if errors.Is(err, fs.ErrNotExist) {")
		case 1:
			b.WriteString("func parseError(s string) error {")
		case 2:
			b.WriteString("// released 2024-06")
		}
		b.WriteByte('\n')
	}
	return []byte(b.String())
}
