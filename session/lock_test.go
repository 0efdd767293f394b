package session_test

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kimigo/kimigo/osenv"
	"github.com/kimigo/kimigo/session"
)

// S69: a session held by another process cannot be opened; the refusal
// names the lock file and the holder's pid, and modifies no file. Once the
// holder exits, the session opens.
func TestS69SessionHeldByAnotherProcess(t *testing.T) {
	r := newRig(t, "ok")
	ctx := t.Context()
	s := r.ran(t, "hi")

	cmd := exec.CommandContext(ctx, os.Args[0])
	cmd.Env = childEnv("hold", r, s.ID())
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if line, err := bufio.NewReader(stdout).ReadString('\n'); err != nil || line != "locked\n" {
		t.Fatalf("child said %q, %v", line, err)
	}

	before := snapshot(t, r.root)
	for _, open := range []struct {
		name string
		run  func() (*session.Session, error)
	}{
		{"resume by id", func() (*session.Session, error) { return session.Open(ctx, r.resumeOpts(s.ID(), "")) }},
		{"continue", func() (*session.Session, error) { return session.Open(ctx, r.contOpts("")) }},
	} {
		_, err = open.run()
		lock := filepath.Join(s.Dir(), session.LockFileName)
		if !errors.Is(err, session.ErrInUse) || !errors.Is(err, osenv.ErrLocked) ||
			!strings.Contains(err.Error(), lock) || !strings.Contains(err.Error(), fmt.Sprintf("pid %d", cmd.Process.Pid)) {
			t.Errorf("%s while a child holds the session = %v, want ErrInUse naming %s and pid %d",
				open.name, err, lock, cmd.Process.Pid)
		}
	}
	if d := cmp.Diff(before, snapshot(t, r.root)); d != "" {
		t.Errorf("refused opens changed files (-before +after):\n%s", d)
	}
	if err := r.store.Delete(s.ID()); !errors.Is(err, session.ErrInUse) {
		t.Errorf("Delete of an open session = %v, want ErrInUse", err)
	}

	if err := stdin.Close(); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("child: %v", err)
	}
	again, err := session.Open(ctx, r.resumeOpts(s.ID(), ""))
	if err != nil {
		t.Fatalf("Resume after the holder exited: %v", err)
	}
	closeSession(t, again)
}

// Within one process a session opens once at a time, too.
func TestSessionOpensOnceInProcess(t *testing.T) {
	r := newRig(t)
	ctx := t.Context()
	s, err := session.Open(ctx, r.opts(""))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := session.Open(ctx, r.resumeOpts(s.ID(), "")); !errors.Is(err, session.ErrInUse) {
		t.Errorf("second open in this process = %v, want ErrInUse", err)
	}
	closeSession(t, s)
	if err := s.Close(ctx); err != nil {
		t.Errorf("second Close = %v, want the first's (nil)", err)
	}
	again, err := session.Open(ctx, r.resumeOpts(s.ID(), ""))
	if err != nil {
		t.Fatalf("open after Close: %v", err)
	}
	closeSession(t, again)
}
