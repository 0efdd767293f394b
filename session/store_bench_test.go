package session_test

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/kimigo/kimigo/osenv/osenvtest"
	"github.com/kimigo/kimigo/session"
)

// BenchmarkCreateSession creates a session with a new id in a data root
// that already holds n sessions, in memory: what it measures is the work
// that grows with the sessions made before, not the disk.
func BenchmarkCreateSession(b *testing.B) {
	for _, n := range []int{0, 1000, 10000} {
		b.Run(fmt.Sprintf("earlier=%d", n), func(b *testing.B) {
			store := session.NewStore(session.StoreOptions{FS: osenvtest.NewMemFS("/"), Root: "/data"})
			work := "/w/proj"
			for i := range n {
				if _, err := store.Create(fmt.Sprintf("s%d", i), filepath.Join(work, fmt.Sprint(i%50)), nil); err != nil {
					b.Fatal(err)
				}
			}
			b.ResetTimer()
			for b.Loop() {
				if _, err := store.Create("", work, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
