package session_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/kimigo/kimigo/osenv"
	"github.com/kimigo/kimigo/session"
)

// readLog is an osenv.FS that records the name of every file opened or
// read whole.
type readLog struct {
	osenv.FS
	mu    sync.Mutex
	names []string // guarded by mu
}

func (r *readLog) note(name string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.names = append(r.names, name)
}

func (r *readLog) OpenFile(name string, flag int, perm fs.FileMode) (osenv.File, error) {
	r.note(name)
	return r.FS.OpenFile(name, flag, perm)
}

func (r *readLog) ReadFile(name string) ([]byte, error) {
	r.note(name)
	return r.FS.ReadFile(name)
}

func (r *readLog) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.names
	r.names = nil
	return out
}

// Listing reads the index and each session's state.json, nothing else:
// never a record log, however large (issue 9 point 6). Their modification
// times are all it needs from them.
func TestListingNeverReadsLogs(t *testing.T) {
	root, work := t.TempDir(), t.TempDir()
	fsys := &readLog{FS: osenv.LocalFS{}}
	store := session.NewStore(session.StoreOptions{FS: fsys, Root: root})
	var ids []string
	for range 3 {
		sum, err := store.Create("", work, nil)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, sum.ID)
		for _, log := range []string{"wire.jsonl", "agents/main/wire.jsonl", "agents/agent-0/wire.jsonl"} {
			p := filepath.Join(sum.Dir, log)
			if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(strings.Repeat(`{"type":"metadata"}`+"\n", 1000)), 0o600); err != nil {
				t.Fatal(err)
			}
		}
	}
	fsys.take()

	latest, ok, err := store.Latest(work)
	if err != nil || !ok {
		t.Fatalf("Latest = %v, %v", ok, err)
	}
	byDir, err := store.List(session.ListOptions{WorkDir: work})
	if err != nil {
		t.Fatal(err)
	}
	all, err := store.List(session.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(byDir) != 3 || len(all) != 3 || !slices.Contains(ids, latest.ID) {
		t.Fatalf("listed %d by work dir, %d in all, latest %s; want the 3 sessions %v", len(byDir), len(all), latest.ID, ids)
	}
	read := fsys.take()
	for _, name := range read {
		if base := filepath.Base(name); base != session.StateFileName && name != filepath.Join(root, session.IndexFileName) {
			t.Errorf("listing read %s", name)
		}
	}
	if len(read) == 0 {
		t.Error("listing read nothing: not even the index and state files")
	}
}
