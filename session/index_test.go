package session_test

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kimigo/kimigo/osenv/osenvtest"
	"github.com/kimigo/kimigo/session"
)

const memRoot = "/data"

// memStore is a store on an in-memory file system whose clock (for
// state.json and modification times) the test moves.
type memStore struct {
	fs    *osenvtest.MemFS
	store *session.Store
	now   time.Time
}

func newMemStore(t *testing.T) *memStore {
	t.Helper()
	m := &memStore{fs: osenvtest.NewMemFS("/"), now: time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)}
	clock := func() time.Time { return m.now }
	m.fs.SetClock(clock)
	m.store = session.NewStore(session.StoreOptions{FS: m.fs, Root: memRoot, Now: clock})
	return m
}

func (m *memStore) tick() { m.now = m.now.Add(time.Minute) }

func (m *memStore) create(t *testing.T, id, workDir string) session.Summary {
	t.Helper()
	sum, err := m.store.Create(id, workDir, nil)
	if err != nil {
		t.Fatalf("Create(%s, %s): %v", id, workDir, err)
	}
	return sum
}

func indexLine(t *testing.T, v map[string]any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b) + "\n"
}

func (m *memStore) appendIndex(t *testing.T, lines ...string) {
	t.Helper()
	name := filepath.Join(memRoot, session.IndexFileName)
	old, _ := m.fs.ReadFile(name) // missing: start empty
	if err := m.fs.WriteFile(name, []byte(string(old)+strings.Join(lines, "")), 0o600); err != nil {
		t.Fatal(err)
	}
}

func ids(list []session.Summary) []string {
	var out []string
	for _, s := range list {
		out = append(out, s.ID)
	}
	return out
}

// S67: index reading and creation against the index.
func TestS67IndexReading(t *testing.T) {
	m := newMemStore(t)
	w := "/w"
	a := m.create(t, "a", w)
	b := m.create(t, "b", w)
	c := m.create(t, "c", w)
	entry := func(s session.Summary) string {
		return indexLine(t, map[string]any{"sessionId": s.ID, "sessionDir": s.Dir, "workDir": w})
	}
	deletion := func(id string) string { return indexLine(t, map[string]any{"sessionId": id, "deleted": true}) }
	// a: entry, deletion, entry again → present; b: entry then deletion →
	// absent; c's later entries point outside the store or at a directory
	// named otherwise → ignored, its first entry stands.
	m.appendIndex(t,
		deletion("a"), entry(a),
		entry(b), deletion("b"),
		indexLine(t, map[string]any{"sessionId": "c", "sessionDir": "/elsewhere/c", "workDir": w}),
		indexLine(t, map[string]any{"sessionId": "c", "sessionDir": filepath.Join(filepath.Dir(c.Dir), "other"), "workDir": w}),
		indexLine(t, map[string]any{"sessionId": "c", "sessionDir": "relative/c", "workDir": w}),
		"not json\n",
		indexLine(t, map[string]any{"sessionId": "d"}), // missing fields
	)
	all, err := m.store.List(session.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"a", "c"}, sortedIDs(all)); d != "" {
		t.Errorf("listed ids (-want +got):\n%s", d)
	}
	if _, err := m.store.Get("b"); !errors.Is(err, session.ErrNotFound) {
		t.Errorf("Get(b) after deletion = %v, want ErrNotFound", err)
	}
	if got, err := m.store.Get("c"); err != nil || got.Dir != c.Dir {
		t.Errorf("Get(c) = %+v, %v; want its own directory %s", got, err, c.Dir)
	}

	// An entry whose directory is gone does not block a new session.
	m.appendIndex(t, indexLine(t, map[string]any{"sessionId": "e",
		"sessionDir": filepath.Join(memRoot, "sessions", "wd_gone_000000000000", "e"), "workDir": "/gone"}))
	if _, err := m.store.Create("e", w, nil); err != nil {
		t.Errorf("Create(e) over a stale entry: %v", err)
	}
	// An existing session cannot be created again, from any work dir.
	for _, wd := range []string{w, "/other"} {
		var se *session.Error
		if _, err := m.store.Create("a", wd, nil); !errors.As(err, &se) || se.Code != session.CodeAlreadyExists {
			t.Errorf("Create(a, %s) again = %v, want %s", wd, err, session.CodeAlreadyExists)
		}
	}
	if _, err := m.store.Create("../x", w, nil); !errors.Is(err, session.ErrIDInvalid) {
		t.Errorf("Create(../x) = %v, want ErrIDInvalid", err)
	}
}

func sortedIDs(list []session.Summary) []string { return slices.Sorted(slices.Values(ids(list))) }

// A torn last line (a crash mid-append) costs only that line: the next
// append starts on a new line, and nothing is truncated.
func TestIndexAppendAfterTornLine(t *testing.T) {
	m := newMemStore(t)
	torn := `{"sessionId":"x","sessionDir":"/data/sess`
	m.appendIndex(t, torn)
	m.create(t, "a", "/w")
	b, err := m.fs.ReadFile(filepath.Join(memRoot, session.IndexFileName))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(b), torn+"\n{") {
		t.Errorf("index = %q, want the torn line kept and the new entry on its own line", b)
	}
	if _, err := m.store.Get("a"); err != nil {
		t.Errorf("Get(a) after a torn line: %v", err)
	}
}
