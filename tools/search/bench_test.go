package search

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// goSrc returns $(go env GOROOT)/src, or skips.
func goSrc(b *testing.B) string {
	b.Helper()
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		b.Skipf("go env GOROOT: %v", err)
	}
	return filepath.Join(strings.TrimSpace(string(out)), "src")
}

func BenchmarkGrepGoSrc(b *testing.B) {
	root := goSrc(b)
	e := New(Options{})
	for _, q := range []GrepQuery{
		{Pattern: "ErrNotExist"},
		{Pattern: `func \w+Error\(`},
		{Pattern: "errnotexist", IgnoreCase: true},
		{Pattern: "ErrNotExist", Mode: Content},
	} {
		q.Root = root
		b.Run(q.Pattern, func(b *testing.B) {
			for b.Loop() {
				if _, err := e.Grep(b.Context(), q); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkFindGoSrc(b *testing.B) {
	root := goSrc(b)
	e := New(Options{})
	for b.Loop() {
		if _, err := e.Find(b.Context(), FindQuery{Root: root, Pattern: "**/*.go"}); err != nil {
			b.Fatal(err)
		}
	}
}
