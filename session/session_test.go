package session_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kimigo/kimigo/llm/llmtest"
	"github.com/kimigo/kimigo/session"
)

// A session resumed by id, and one continued as the latest of its work
// dir, send exactly the request the first run would have sent next, and
// the continued run's first request carries the first run's conversation.
func TestResumeAndContinueKeepTheConversation(t *testing.T) {
	r := newRig(t, "one", "two", "three")
	ctx := t.Context()
	s, err := session.Open(ctx, r.opts(""))
	if err != nil {
		t.Fatal(err)
	}
	if s.Resumed() {
		t.Error("a new session reports Resumed")
	}
	id := s.ID()
	prompt(t, s, "first")
	prompt(t, s, "second")
	want, err := session.NextRequest(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	if len(want.Messages) != 4 {
		t.Fatalf("first run's next request has %d messages, want 4", len(want.Messages))
	}
	closeSession(t, s)

	withCards := r.resumeOpts(id, "")
	withCards.Cards = true
	byID, err := session.Open(ctx, withCards)
	if err != nil {
		t.Fatal(err)
	}
	if !byID.Resumed() || byID.Replay().Records == 0 || byID.Replay().Cards != nil {
		t.Errorf("Resume: resumed %v, replay %+v; want the replayed records, cards only through TakeReplayCards",
			byID.Resumed(), byID.Replay())
	}
	if cards := byID.TakeReplayCards(); len(cards) == 0 {
		t.Error("TakeReplayCards after a resume with Cards returned no card")
	}
	if cards := byID.TakeReplayCards(); cards != nil {
		t.Errorf("TakeReplayCards again = %d cards, want none: the session keeps no card", len(cards))
	}
	got, err := session.NextRequest(ctx, byID)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("next request after Resume (-first run +resumed):\n%s", d)
	}
	closeSession(t, byID)

	cont, err := session.Open(ctx, r.contOpts(""))
	if err != nil {
		t.Fatal(err)
	}
	if cont.ID() != id || !cont.Resumed() {
		t.Fatalf("Continue opened %s (resumed %v), want %s", cont.ID(), cont.Resumed(), id)
	}
	if cards := cont.TakeReplayCards(); cards != nil {
		t.Errorf("a resume without Cards built %d cards", len(cards))
	}
	got, err = session.NextRequest(ctx, cont)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("next request after Continue (-first run +continued):\n%s", d)
	}
	prompt(t, cont, "third")
	// On the wire: the system prompt, the first run's four messages, the
	// new prompt.
	var texts []string
	for _, m := range r.sentMessages(-1) {
		texts = append(texts, fmt.Sprint(m["role"], ":", m["content"]))
	}
	if d := cmp.Diff([]string{"system:" + want.System, "user:first", "assistant:one", "user:second", "assistant:two",
		"user:third"}, texts); d != "" {
		t.Errorf("continued run's first request does not carry the first run (-want +got):\n%s", d)
	}
	closeSession(t, cont)
	st := readState(t, s.Dir())
	if st["title"] != "first" || st["lastPrompt"] != "third" {
		t.Errorf("state.json title %v, lastPrompt %v; want first, third", st["title"], st["lastPrompt"])
	}
}

// S7 (the store's half): an unknown id fails with spec 06's message and
// creates nothing.
func TestS07SessionNotFound(t *testing.T) {
	r := newRig(t)
	_, err := session.Open(t.Context(), r.resumeOpts("abc", ""))
	if !errors.Is(err, session.ErrNotFound) || err.Error() != `Session "abc" not found.` {
		t.Errorf("Resume(abc) = %v, want %q", err, `Session "abc" not found.`)
	}
	if _, err := os.Stat(r.root); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("data root after a failed lookup: %v", err)
	}
}

// S10: a session created in A and resumed from B is refused with the cd
// hint, and its files are unchanged; through a symbolic link to A it is
// the same directory.
func TestS10CrossDirectorySession(t *testing.T) {
	r := newRig(t, "ok")
	ctx := t.Context()
	s := r.ran(t, "hi")
	before := snapshot(t, r.root)

	b := filepath.Join(filepath.Dir(r.workDir), "b")
	if err := os.Mkdir(b, 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := session.Open(ctx, r.resumeOpts(s.ID(), b))
	var se *session.Error
	if !errors.As(err, &se) || se.Code != session.CodeWorkDirMismatch {
		t.Fatalf("Resume from B = %v, want %s", err, session.CodeWorkDirMismatch)
	}
	if want := `Session "` + s.ID() + `" was created under a different directory.`; err.Error() != want {
		t.Errorf("message = %q, want %q", err.Error(), want)
	}
	if want := `cd "` + r.workDir + `" && kimigo -r ` + s.ID(); se.Hint() != want {
		t.Errorf("hint = %q, want %q", se.Hint(), want)
	}
	if d := cmp.Diff(before, snapshot(t, r.root)); d != "" {
		t.Errorf("a refused resume changed files (-before +after):\n%s", d)
	}

	link := filepath.Join(filepath.Dir(r.workDir), "link")
	if err := os.Symlink(r.workDir, link); err != nil {
		t.Fatal(err)
	}
	viaLink, err := session.Open(ctx, r.resumeOpts(s.ID(), link))
	if err != nil {
		t.Fatalf("Resume through a link to A: %v", err)
	}
	closeSession(t, viaLink)
}

// S33: -c resumes the most recently updated session of the work dir; in a
// work dir without sessions it starts a fresh one.
func TestS33ContinuePicksTheLatest(t *testing.T) {
	r := newRig(t, "a", "b", "c")
	ctx := t.Context()
	other := filepath.Join(filepath.Dir(r.workDir), "other")
	if err := os.Mkdir(other, 0o755); err != nil {
		t.Fatal(err)
	}
	var made []*session.Session
	for _, w := range []string{"", "", other} {
		s, err := session.Open(ctx, r.opts(w))
		if err != nil {
			t.Fatal(err)
		}
		prompt(t, s, "hello")
		closeSession(t, s)
		made = append(made, s)
	}
	s1, s2 := made[0], made[1]
	// S1 is older by every file's mtime, S2 newer; the other dir's is the
	// newest of all but is not W's.
	old := time.Now().Add(-time.Hour)
	for _, p := range []string{s1.Dir(), filepath.Join(s1.Dir(), "state.json"),
		filepath.Join(s1.Dir(), "agents", "main", "wire.jsonl")} {
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
	}
	cont, err := session.Open(ctx, r.contOpts(""))
	if err != nil {
		t.Fatal(err)
	}
	if cont.ID() != s2.ID() || !cont.Resumed() {
		t.Errorf("Continue resumed %s (resumed %v), want S2 %s", cont.ID(), cont.Resumed(), s2.ID())
	}
	closeSession(t, cont)

	// Through a symbolic link to W, W's sessions are the directory's.
	link := filepath.Join(filepath.Dir(r.workDir), "link-to-w")
	if err := os.Symlink(r.workDir, link); err != nil {
		t.Fatal(err)
	}
	viaLink, err := session.Open(ctx, r.contOpts(link))
	if err != nil {
		t.Fatal(err)
	}
	if !viaLink.Resumed() || viaLink.ID() != s2.ID() {
		t.Errorf("Continue through a link resumed %s (resumed %v), want S2 %s", viaLink.ID(), viaLink.Resumed(), s2.ID())
	}
	closeSession(t, viaLink)

	empty := filepath.Join(filepath.Dir(r.workDir), "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	fresh, err := session.Open(ctx, r.contOpts(empty))
	if err != nil {
		t.Fatal(err)
	}
	defer closeSession(t, fresh)
	if fresh.Resumed() || fresh.WorkDir() != empty {
		t.Errorf("Continue in an empty dir: resumed %v, work dir %s; want a fresh session in %s", fresh.Resumed(), fresh.WorkDir(), empty)
	}
	if want := `No sessions to continue under "` + empty + `"; starting a fresh session.`; session.NoSessionsNotice(empty) != want {
		t.Errorf("notice = %q, want %q", session.NoSessionsNotice(empty), want)
	}
	list, err := r.store.List(session.ListOptions{WorkDir: empty})
	if err != nil || len(list) != 1 || list[0].ID != fresh.ID() {
		t.Errorf("List(empty) = %v, %v; want the fresh session", ids(list), err)
	}
}

// S34: the first prompt names the session, with secrets redacted; later
// prompts only move lastPrompt; /title sets a custom title.
func TestS34TitleAndLastPrompt(t *testing.T) {
	r := newRig(t, "ok", "ok")
	s, err := session.Open(t.Context(), r.opts(""))
	if err != nil {
		t.Fatal(err)
	}
	defer closeSession(t, s)
	st := readState(t, s.Dir())
	if st["title"] != "New Session" || st["isCustomTitle"] != false || st["lastPrompt"] != nil {
		t.Errorf("new state: %v", st)
	}
	prompt(t, s, "deploy with api_key=sk-abcdefghijklmnop please")
	st = readState(t, s.Dir())
	want := "deploy with api_key=[redacted] please"
	if st["title"] != want || st["lastPrompt"] != want || st["isCustomTitle"] != false {
		t.Errorf("after the first prompt: title %v, lastPrompt %v, custom %v; want %q twice", st["title"], st["lastPrompt"], st["isCustomTitle"], want)
	}
	prompt(t, s, "now   run\tthe tests")
	st = readState(t, s.Dir())
	if st["title"] != want || st["lastPrompt"] != "now run the tests" {
		t.Errorf("after the second prompt: title %v, lastPrompt %v", st["title"], st["lastPrompt"])
	}
	if err := s.Rename("  My run "); err != nil {
		t.Fatal(err)
	}
	st = readState(t, s.Dir())
	if st["title"] != "My run" || st["isCustomTitle"] != true {
		t.Errorf("after /title: title %v, custom %v", st["title"], st["isCustomTitle"])
	}
	if err := s.RecordPrompt("another"); err != nil {
		t.Fatal(err)
	}
	if st = readState(t, s.Dir()); st["title"] != "My run" {
		t.Errorf("a prompt replaced a custom title: %v", st["title"])
	}
	if err := s.Rename(" "); !errors.Is(err, session.ErrTitleEmpty) {
		t.Errorf("Rename(blank) = %v, want ErrTitleEmpty", err)
	}
}

// Interrupting a run (what SIGINT's cleanup does: Close with a turn in
// flight) leaves a session that resumes, with the interrupted prompt in
// its history, and takes new prompts.
func TestCloseMidTurnResumes(t *testing.T) {
	r := newRig(t)
	held := llmtest.NewGate() // the first answer never comes: the run is interrupted while it waits
	r.srv.Add(llmtest.Reply{Fault: llmtest.Fault{Hold: held}}, llmtest.Text("after"))
	ctx := t.Context()
	s, err := session.Open(ctx, r.opts(""))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Prompt(ctx, textParts("long task")); err != nil {
		t.Fatal(err)
	}
	<-held.Reached()
	closeSession(t, s)

	again, err := session.Open(ctx, r.resumeOpts(s.ID(), ""))
	if err != nil {
		t.Fatalf("Resume after an interrupted run: %v", err)
	}
	defer closeSession(t, again)
	if texts := userTexts(t, again); len(texts) == 0 || !strings.Contains(texts[0], "long task") {
		t.Fatalf("resumed conversation = %q, want the interrupted prompt first", texts)
	}
	prompt(t, again, "go on")
	if got := r.sentMessages(-1); len(got) < 2 || !strings.Contains(fmt.Sprint(got[1]["content"]), "long task") {
		t.Errorf("request after resume = %v, want the interrupted prompt after the system prompt", got)
	}
	if st := readState(t, s.Dir()); st["title"] != "long task" || st["lastPrompt"] != "go on" {
		t.Errorf("state: title %v, lastPrompt %v", st["title"], st["lastPrompt"])
	}
}

// Resume refuses a session whose state.json is invalid, naming the file,
// and rewrites nothing of the store.
func TestResumeRefusesInvalidState(t *testing.T) {
	r := newRig(t, "ok")
	ctx := t.Context()
	s := r.ran(t, "hi")
	name := filepath.Join(s.Dir(), "state.json")
	if err := os.WriteFile(name, []byte(`{"title": tru`), 0o600); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, r.root)
	_, err := session.Open(ctx, r.resumeOpts(s.ID(), ""))
	if !errors.Is(err, session.ErrStateInvalid) || !strings.Contains(err.Error(), name) {
		t.Fatalf("Resume over an invalid state.json = %v, want ErrStateInvalid naming %s", err, name)
	}
	after := snapshot(t, r.root)
	lock := filepath.Join(s.Dir(), session.LockFileName)
	delete(before, lock) // the lock file holds the last opener's pid
	delete(after, lock)
	if d := cmp.Diff(before, after); d != "" {
		t.Errorf("a refused resume changed the store (-before +after):\n%s", d)
	}
	// The lock was released: a repaired session opens.
	if err := os.WriteFile(name, []byte(`{"title":"fixed","workDir":"`+r.workDir+`"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	fixed, err := session.Open(ctx, r.resumeOpts(s.ID(), ""))
	if err != nil {
		t.Fatalf("Resume after the repair: %v", err)
	}
	closeSession(t, fixed)
}

// A new session records its --add-dir directories; a resumed one adds
// this run's for the run only; a directory that does not exist is refused
// before anything is created.
func TestAdditionalDirs(t *testing.T) {
	r := newRig(t)
	ctx := t.Context()
	base := filepath.Dir(r.workDir)
	for _, d := range []string{"x", "y", "z"} {
		if err := os.Mkdir(filepath.Join(base, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	x, y, z := filepath.Join(base, "x"), filepath.Join(base, "y"), filepath.Join(base, "z")
	opts := r.opts("")
	opts.AddDirs = []string{x, "../y"}
	s, err := session.Open(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{x, y}, s.AdditionalDirs()); d != "" {
		t.Errorf("new session's dirs (-want +got):\n%s", d)
	}
	closeSession(t, s)
	opts = r.resumeOpts(s.ID(), "")
	opts.AddDirs = []string{y, z}
	again, err := session.Open(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{x, y, z}, again.AdditionalDirs()); d != "" {
		t.Errorf("resumed session's dirs (-want +got):\n%s", d)
	}
	closeSession(t, again)
	if d := cmp.Diff([]any{x, y}, readState(t, s.Dir())["additionalDirs"]); d != "" {
		t.Errorf("saved additionalDirs (-want +got):\n%s", d)
	}

	before := snapshot(t, r.root)
	opts = r.opts("")
	opts.AddDirs = []string{"missing"}
	if _, err := session.Open(ctx, opts); err == nil || !strings.Contains(err.Error(), "--add-dir missing") {
		t.Errorf("Open with a missing --add-dir = %v, want an error naming it", err)
	}
	if d := cmp.Diff(before, snapshot(t, r.root)); d != "" {
		t.Errorf("a refused open changed files (-before +after):\n%s", d)
	}
}

// AddDir saves a directory in state.json (relative to the work dir, no
// repeats), or with remember in the project's local.toml; the session
// opened again has it. A missing directory or a file is refused.
func TestAddDir(t *testing.T) {
	r := newRig(t)
	ctx := t.Context()
	base := filepath.Dir(r.workDir)
	x, y := filepath.Join(base, "x"), filepath.Join(base, "y")
	for _, d := range []string{x, y} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	file := filepath.Join(base, "f.txt")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := session.Open(ctx, r.opts(""))
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		got, err := s.AddDir("../x", false)
		if err != nil || got != x {
			t.Fatalf("AddDir(../x) = %q, %v; want %q", got, err, x)
		}
	}
	if _, err := s.AddDir("missing", false); err == nil {
		t.Error("AddDir(missing) succeeded")
	}
	if _, err := s.AddDir(file, false); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("AddDir(file) = %v; want not a directory", err)
	}
	if got, err := s.AddDir(y, true); err != nil || got != y {
		t.Fatalf("AddDir(y, remember) = %q, %v", got, err)
	}
	closeSession(t, s)
	if d := cmp.Diff([]any{x}, readState(t, s.Dir())["additionalDirs"]); d != "" {
		t.Errorf("saved additionalDirs (-want +got):\n%s", d)
	}
	local, err := os.ReadFile(filepath.Join(r.workDir, ".kimi-code", "local.toml"))
	if err != nil || !strings.Contains(string(local), y) {
		t.Errorf("local.toml = %q, %v; want it to list %s", local, err, y)
	}
	again, err := session.Open(ctx, r.resumeOpts(s.ID(), ""))
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{x}, again.AdditionalDirs()); d != "" {
		t.Errorf("reopened session's dirs (-want +got):\n%s", d)
	}
	closeSession(t, again)
}
