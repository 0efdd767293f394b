package session_test

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/llm/llmtest"
	"github.com/kimigo/kimigo/osenv"
	"github.com/kimigo/kimigo/osenv/osenvtest"
	"github.com/kimigo/kimigo/session"
)

// The first request of a new session leaves while its first group commit
// (the fsync of the records and of the session's directories, state.json
// and index line) is still running: with that commit held, Open and
// Prompt return and the request reaches the model. What a kill -9 at that
// moment leaves (the files as written, nothing synced) resumes with the
// prompt. The turn is acknowledged (its answer and turn.ended) only after
// the held fsyncs completed.
func TestFirstRequestLeavesWhileTheFirstCommitSyncs(t *testing.T) {
	r := newRig(t)
	gate := llmtest.NewGate()
	r.srv.Add(llmtest.Text("answer").WithFault(llmtest.Fault{Hold: gate}), llmtest.Text("resumed"))
	ffs := osenvtest.NewFaultFS(osenv.LocalFS{})
	held, reached := make(chan struct{}), make(chan struct{})
	// The first commit starts with the log's fsync; holding it holds the
	// whole commit (the session's own fsyncs follow it).
	ffs.Inject(osenvtest.Fault{Op: osenvtest.OpSync, PathContains: "wire.jsonl", Hold: held, Reached: reached})
	var released atomic.Bool
	release := func() {
		if released.CompareAndSwap(false, true) {
			close(held)
		}
	}
	t.Cleanup(release)
	r.store = session.NewStore(session.StoreOptions{FS: ffs, Root: r.root})

	s, err := session.Open(t.Context(), r.opts(""))
	if err != nil {
		t.Fatal(err)
	}
	sub := s.Subscribe()
	defer sub.Close()
	if err := s.Prompt(t.Context(), textParts("first task")); err != nil {
		t.Fatal(err)
	}
	<-gate.Reached() // the request is at the model
	<-reached        // and the first commit's fsync is still held

	// What kill -9 leaves now: the data root as written.
	snap := filepath.Join(t.TempDir(), "home")
	copyTree(t, r.root, snap)
	killed, err := os.ReadFile(filepath.Join(snap, "sessions", session.WorkDirKey(r.workDir), s.ID(), "agents",
		session.MainAgentID, "wire.jsonl"))
	if err != nil || !strings.Contains(string(killed), `"first task"`) {
		t.Fatalf("the records a kill leaves lack the prompt (%v):\n%s", err, killed)
	}
	index, err := os.ReadFile(filepath.Join(snap, session.IndexFileName))
	if err != nil || !strings.Contains(string(index), s.ID()) {
		t.Errorf("the index a kill leaves lacks the session (%v):\n%s", err, index)
	}
	var st map[string]any
	if b, err := os.ReadFile(filepath.Join(snap, "sessions", session.WorkDirKey(r.workDir), s.ID(), session.StateFileName)); err != nil ||
		json.Unmarshal(b, &st) != nil {
		t.Errorf("the state.json a kill leaves is not whole: %v\n%s", err, b)
	}

	gate.Release()
	var early []string
	release()
	ended := false
	for !ended {
		ev, err := sub.Next(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		switch ev.(type) {
		case event.AssistantDelta:
		case event.TurnEnded:
			ended = true
		default:
			continue
		}
		if !released.Load() {
			early = append(early, fmt.Sprintf("%T", ev))
		}
	}
	if len(early) > 0 {
		t.Errorf("the turn showed %v before its records were durable", early)
	}
	closeSession(t, s)

	// The killed copy resumes: the prompt is there, the next one follows.
	r.store = session.NewStore(session.StoreOptions{Root: snap})
	o := r.resumeOpts(s.ID(), "")
	o.Home = snap
	resumed, err := session.Open(t.Context(), o)
	if err != nil {
		t.Fatalf("resume what the kill left: %v", err)
	}
	defer closeSession(t, resumed)
	prompt(t, resumed, "continue")
	if d := cmp.Diff([]string{"first task", "continue"}, userTexts(t, resumed)); d != "" {
		t.Errorf("user messages after resuming the killed copy (-want +got):\n%s", d)
	}
}

// copyTree copies the directory tree src to dst, files and modes.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o700)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o600)
	})
	if err != nil {
		t.Fatal(err)
	}
}
