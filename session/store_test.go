package session_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kimigo/kimigo/osenv"
	"github.com/kimigo/kimigo/osenv/osenvtest"
	"github.com/kimigo/kimigo/session"
)

func TestCreateWritesStateAndIndex(t *testing.T) {
	m := newMemStore(t)
	sum, err := m.store.Create("s1", "/home/u/proj/", []string{"/home/u/lib"})
	if err != nil {
		t.Fatal(err)
	}
	wantDir := filepath.Join(memRoot, "sessions", session.WorkDirKey("/home/u/proj"), "s1")
	if sum.Dir != wantDir || sum.WorkDir != "/home/u/proj" || sum.Title != "New Session" {
		t.Errorf("summary = %+v, want dir %s, work dir /home/u/proj, title New Session", sum, wantDir)
	}
	b, err := m.fs.ReadFile(filepath.Join(wantDir, "state.json"))
	if err != nil {
		t.Fatal(err)
	}
	want := `{
  "createdAt": "2025-03-01T12:00:00.000Z",
  "updatedAt": "2025-03-01T12:00:00.000Z",
  "title": "New Session",
  "isCustomTitle": false,
  "workDir": "/home/u/proj",
  "additionalDirs": [
    "/home/u/lib"
  ],
  "agents": {
    "main": {
      "homedir": "` + wantDir + `/agents/main",
      "type": "main",
      "parentAgentId": null
    }
  },
  "custom": {}
}
`
	if d := cmp.Diff(want, string(b)); d != "" {
		t.Errorf("state.json (-want +got):\n%s", d)
	}
	for name, perm := range map[string]os.FileMode{wantDir: 0o700, memRoot: 0o700} {
		if fi, err := m.fs.Stat(name); err != nil || fi.Mode().Perm() != perm {
			t.Errorf("mode of %s = %v, %v; want %v", name, fi.Mode().Perm(), err, perm)
		}
	}
	idx, err := m.fs.ReadFile(filepath.Join(memRoot, "session_index.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	wantLine := `{"sessionId":"s1","sessionDir":"` + wantDir + `","workDir":"/home/u/proj"}` + "\n"
	if string(idx) != wantLine {
		t.Errorf("index = %q, want %q", idx, wantLine)
	}
}

// Spec 06 §4.2: updatedAt desc, then createdAt desc, then id; -c takes the
// first of the work dir's list; archived sessions are hidden unless asked.
func TestListOrderAndLatest(t *testing.T) {
	m := newMemStore(t)
	w, other := "/w", "/other"
	s1 := m.create(t, "s1", w)
	m.tick()
	m.create(t, "s2", w)
	m.tick()
	m.create(t, "s3", other)
	m.tick()
	// s1 is written to last: its wire.jsonl makes it the newest of w.
	if err := m.fs.WriteFile(filepath.Join(s1.Dir, "agents", "main", "wire.jsonl"), []byte("{}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// s4, s5 and s6 tie on updatedAt; s5 and s6 were created after s4
	// and tie on createdAt, so the id decides between them.
	later := m.now.Add(time.Hour)
	for _, id := range []string{"s4", "", "s6", "s5"} {
		if id == "" {
			m.tick()
			continue
		}
		s := m.create(t, id, w)
		if err := m.fs.SetModTime(filepath.Join(s.Dir, "state.json"), later); err != nil {
			t.Fatal(err)
		}
	}
	list, err := m.store.List(session.ListOptions{WorkDir: w})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"s5", "s6", "s4", "s1", "s2"}, ids(list)); d != "" {
		t.Errorf("List(w) (-want +got):\n%s", d)
	}
	all, err := m.store.List(session.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"s5", "s6", "s4", "s1", "s3", "s2"}, ids(all)); d != "" {
		t.Errorf("List() (-want +got):\n%s", d)
	}

	for _, id := range []string{"s4", "s5", "s6"} {
		if err := m.store.Archive(id); err != nil {
			t.Fatal(err)
		}
	}
	latest, ok, err := m.store.Latest(w)
	if err != nil || !ok || latest.ID != "s1" {
		t.Errorf("Latest(w) = %s, %v, %v; want s1 (s4, s5, s6 archived)", latest.ID, ok, err)
	}
	withArchived, err := m.store.List(session.ListOptions{WorkDir: w, Archived: true})
	if err != nil || len(withArchived) != 5 || !withArchived[0].Archived {
		t.Errorf("List(w, archived) = %v, %v; want 5 sessions, archived ones included", ids(withArchived), err)
	}
	if _, ok, err := m.store.Latest("/empty"); ok || err != nil {
		t.Errorf("Latest(/empty) = %v, %v; want none", ok, err)
	}
}

// A session directory the index does not know (a crash between mkdir and
// the index append) still lists under its work dir, and Reindex adds it.
func TestReindex(t *testing.T) {
	m := newMemStore(t)
	m.create(t, "a", "/w")
	m.create(t, "b", "/v")
	if err := m.fs.Remove(filepath.Join(memRoot, session.IndexFileName)); err != nil {
		t.Fatal(err)
	}
	if list, _ := m.store.List(session.ListOptions{WorkDir: "/w"}); len(list) != 1 || list[0].WorkDir != "/w" {
		t.Errorf("List(/w) without an index = %+v, want a from its bucket", list)
	}
	if all, _ := m.store.List(session.ListOptions{}); len(all) != 0 {
		t.Errorf("List() without an index = %v, want none", ids(all))
	}
	// A legacy state without workDir but with custom.cwd is recovered; one
	// in the wrong bucket is not.
	legacy := filepath.Join(memRoot, "sessions", session.WorkDirKey("/old"), "c")
	misplaced := filepath.Join(memRoot, "sessions", session.WorkDirKey("/w"), "d")
	for dir, cwd := range map[string]string{legacy: "/old", misplaced: "/elsewhere"} {
		if err := m.fs.WriteFile(filepath.Join(dir, "state.json"),
			[]byte(`{"title":"x","custom":{"cwd":"`+cwd+`"}}`), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	got := m.store.Reindex()
	if want := (session.ReindexResult{Scanned: 4, Added: 3}); got != want {
		t.Errorf("Reindex() = %+v, want %+v", got, want)
	}
	if got := m.store.Reindex(); got.Added != 0 || got.Repaired != 0 {
		t.Errorf("second Reindex() = %+v, want nothing to do", got)
	}
	all, err := m.store.List(session.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"a", "b", "c"}, sortedIDs(all)); d != "" {
		t.Errorf("List() after Reindex (-want +got):\n%s", d)
	}
	if c, err := m.store.Get("c"); err != nil || c.WorkDir != "/old" {
		t.Errorf("Get(c) = %+v, %v; want work dir /old from custom.cwd", c, err)
	}
}

func TestRenameArchiveDelete(t *testing.T) {
	m := newMemStore(t)
	s := m.create(t, "s1", "/w")
	if err := m.store.Rename("s1", "  "+strings.Repeat("é", 250)+" "); err != nil {
		t.Fatal(err)
	}
	st, err := m.store.ReadState(s.Dir)
	if err != nil || st.Title != strings.Repeat("é", 200) || !st.IsCustomTitle {
		t.Errorf("after Rename: title %q (%d runes), custom %v, %v", st.Title, len([]rune(st.Title)), st.IsCustomTitle, err)
	}
	err = m.store.Rename("s1", " \t")
	if !errors.Is(err, session.ErrTitleEmpty) || err.Error() != "Session title cannot be empty" {
		t.Errorf("Rename(blank) = %v", err)
	}
	if err := m.store.Rename("nope", "x"); !errors.Is(err, session.ErrNotFound) || err.Error() != `Session "nope" not found.` {
		t.Errorf("Rename(nope) = %v", err)
	}
	if err := m.store.Delete("s1"); err != nil {
		t.Fatal(err)
	}
	if _, err := m.fs.Stat(s.Dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("session dir after Delete: %v", err)
	}
	if _, err := m.store.Get("s1"); !errors.Is(err, session.ErrNotFound) {
		t.Errorf("Get after Delete = %v", err)
	}
	if _, err := m.store.Create("s1", "/w", nil); err != nil {
		t.Errorf("Create after Delete: %v", err)
	}
}

// Bad input is never rewritten: an invalid state.json is an error naming
// the file and stays byte for byte; unknown fields survive an update.
func TestStateBadInputAndUnknownFields(t *testing.T) {
	m := newMemStore(t)
	s := m.create(t, "s1", "/w")
	name := filepath.Join(s.Dir, "state.json")
	for _, bad := range []string{`{"title": 5`, `null`, `{"title": 5}`, `[]`} {
		if err := m.fs.WriteFile(name, []byte(bad), 0o600); err != nil {
			t.Fatal(err)
		}
		err := m.store.Rename("s1", "x")
		if !errors.Is(err, session.ErrStateInvalid) || !strings.Contains(err.Error(), name) {
			t.Errorf("Rename over %q = %v, want ErrStateInvalid naming %s", bad, err, name)
		}
		if b, _ := m.fs.ReadFile(name); string(b) != bad {
			t.Errorf("state.json rewritten: %q, want %q", b, bad)
		}
		// Listings tolerate it.
		if list, err := m.store.List(session.ListOptions{WorkDir: "/w"}); err != nil || len(list) != 1 {
			t.Errorf("List with state %q = %v, %v", bad, ids(list), err)
		}
	}
	if err := m.fs.Remove(name); err != nil {
		t.Fatal(err)
	}
	if err := m.store.Rename("s1", "x"); !errors.Is(err, session.ErrStateNotFound) || !strings.Contains(err.Error(), name) {
		t.Errorf("Rename without state = %v, want ErrStateNotFound naming %s", err, name)
	}

	future := `{"title":"t","isCustomTitle":false,"agents":{},"custom":{"k":[1,2]},"zeta":{"b":1,"a":2},"alpha":true}`
	if err := m.fs.WriteFile(name, []byte(future), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := m.store.Rename("s1", "named"); err != nil {
		t.Fatal(err)
	}
	b, _ := m.fs.ReadFile(name)
	var got map[string]json.RawMessage
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]string{"zeta": `{"b":1,"a":2}`, "alpha": `true`, "custom": `{"k":[1,2]}`, "title": `"named"`} {
		if c := compact(t, got[k]); c != want {
			t.Errorf("state.json %s = %s, want %s", k, c, want)
		}
	}
}

func compact(t *testing.T, raw json.RawMessage) string {
	t.Helper()
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return "<" + err.Error() + ">"
	}
	return b.String()
}

func TestLegacyCustomTitle(t *testing.T) {
	m := newMemStore(t)
	s := m.create(t, "s1", "/w")
	if err := m.fs.WriteFile(filepath.Join(s.Dir, "state.json"),
		[]byte(`{"title":"New Session","customTitle":"Old name","workDir":"/w"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if got, err := m.store.Get("s1"); err != nil || got.Title != "Old name" {
		t.Errorf("title of a legacy state = %q, %v; want its customTitle", got.Title, err)
	}
}

// With every write denied, Create fails with an error naming the path and
// leaves nothing behind.
func TestCreateDenied(t *testing.T) {
	root := filepath.Join(t.TempDir(), "home")
	deny := osenvtest.DenyOver(osenv.NewLocal(osenv.LocalOptions{}))
	store := session.NewStore(session.StoreOptions{FS: deny, Root: root})
	_, err := store.Create("s1", "/w", nil)
	if err == nil || !strings.Contains(err.Error(), root) || !errors.Is(err, osenvtest.ErrDenied) {
		t.Errorf("Create with writes denied = %v, want ErrDenied naming %s", err, root)
	}
	if _, err := os.Stat(root); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("data root after a denied Create: %v", err)
	}
}

// indexReads counts the reads of the session index.
type indexReads struct {
	osenv.FS
	n int
}

func (f *indexReads) ReadFile(name string) ([]byte, error) {
	if filepath.Base(name) == session.IndexFileName {
		f.n++
	}
	return f.FS.ReadFile(name)
}

// Creating a session with a new random id does not read the index, so a
// start does not cost more for every session made before it; a chosen id
// is still checked against every work dir's sessions.
func TestCreateWithNewIDSkipsTheIndex(t *testing.T) {
	mem := osenvtest.NewMemFS("/")
	fs := &indexReads{FS: mem}
	store := session.NewStore(session.StoreOptions{FS: fs, Root: memRoot})
	for _, id := range []string{"s1", "s2"} {
		if _, err := store.Create(id, "/w/other", nil); err != nil {
			t.Fatal(err)
		}
	}
	fs.n = 0
	sum, err := store.Create("", "/w/proj", nil)
	if err != nil {
		t.Fatal(err)
	}
	if fs.n != 0 {
		t.Errorf("Create with a new id read the index %d times, want 0", fs.n)
	}
	if got, err := store.Get(sum.ID); err != nil || got.WorkDir != "/w/proj" {
		t.Errorf("Get(%s) = %+v, %v; want the new session under /w/proj", sum.ID, got, err)
	}
	_, err = store.Create("s1", "/w/proj", nil) // s1 lives under another work dir
	var se *session.Error
	if !errors.As(err, &se) || se.Code != session.CodeAlreadyExists {
		t.Errorf("Create(s1) under another work dir = %v, want CodeAlreadyExists", err)
	}
}
