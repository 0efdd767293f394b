package main

// Issue 9 point 5: after Ctrl-C, SIGTERM or kill -9, --continue finds the
// most recent session of the directory from what is on disk, and resuming
// keeps the session id; a session is found by id from any directory, with
// the cross-directory rule of spec 06 §1.4.

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kimigo/kimigo/llm/llmtest"
)

// stopCodes are the exit codes of a print run stopped by each signal
// (spec 06 §1.7); a SIGKILLed process has none.
var stopCodes = map[syscall.Signal]int{syscall.SIGINT: 130, syscall.SIGTERM: 143, syscall.SIGKILL: -1}

// stopDuringRequest runs kimigo with args, stops it with sig while the
// fake model holds its first request, and returns the id of the session
// the run used, read from the disk.
func (c *cli) stopDuringRequest(srv *llmtest.Server, sig syscall.Signal, args ...string) string {
	c.t.Helper()
	before := c.sessionDirs()
	gate := llmtest.NewGate()
	srv.Add(llmtest.Text("never sent").WithFault(llmtest.Fault{Hold: gate}))
	if r := c.interrupt(sig, gate.IsReached, args...); r.code != stopCodes[sig] {
		c.t.Fatalf("kimigo %q stopped by %v: exit code %d; want %d\n%v", args, sig, r.code, stopCodes[sig], r)
	}
	if id, given := sessionArg(args); given {
		return id
	}
	for _, d := range c.sessionDirs() {
		if !slices.Contains(before, d) {
			return filepath.Base(d)
		}
	}
	c.t.Fatalf("kimigo %q created no session", args)
	return ""
}

// sessionArg is the -S/-r value among args.
func sessionArg(args []string) (string, bool) {
	for i, a := range args {
		if (a == "-S" || a == "-r") && i+1 < len(args) {
			return args[i+1], true
		}
	}
	return "", false
}

// lastMessages is the messages of the fake's last request, which the
// strict fake must have accepted.
func lastMessages(t *testing.T, srv *llmtest.Server) string {
	t.Helper()
	reqs := srv.Requests()
	last := reqs[len(reqs)-1]
	if last.Rejected != 0 {
		t.Fatalf("the fake rejected the last request: %d %s", last.Rejected, last.RejectReason)
	}
	return string(body(t, last)["messages"])
}

func TestContinueAfterStopFindsTheSessionOnDisk(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGKILL} {
		t.Run(sig.String(), func(t *testing.T) {
			t.Parallel()
			c := newCLI(t)
			srv := c.fake("openai", llmtest.Text("one"))
			a := resumeHint(t, c.mustRun("-p", "one").stderr)
			age(t, c, a, time.Hour)

			// A new session stopped during its first request is the latest.
			b := c.stopDuringRequest(srv, sig, "-p", "two")
			if b == a {
				t.Fatalf("the stopped run reused session %s", a)
			}
			srv.Add(llmtest.Text("resumed"))
			if got := resumeHint(t, c.mustRun("-c", "-p", "continue b").stderr); got != b {
				t.Errorf("-c resumed %s; want the stopped session %s", got, b)
			}
			if msgs := lastMessages(t, srv); !strings.Contains(msgs, `two`) || !strings.Contains(msgs, "continue b") {
				t.Errorf("the resumed request lacks the stopped prompt:\n%s", msgs)
			}

			// An older session resumed by id and stopped becomes the latest.
			age(t, c, b, time.Hour)
			c.stopDuringRequest(srv, sig, "-S", a, "-p", "three")
			srv.Add(llmtest.Text("resumed"))
			if got := resumeHint(t, c.mustRun("-c", "-p", "continue a").stderr); got != a {
				t.Errorf("-c resumed %s; want %s, stopped last", got, a)
			}
			msgs := lastMessages(t, srv)
			for _, want := range []string{`"one"`, "three", "continue a"} {
				if !strings.Contains(msgs, want) {
					t.Errorf("the resumed request lacks %s:\n%s", want, msgs)
				}
			}
			if n := len(c.sessionDirs()); n != 2 {
				t.Errorf("%d sessions on disk; want 2", n)
			}
		})
	}
}

func TestContinueKilledSessionFromAnotherDirectory(t *testing.T) {
	c := newCLI(t)
	srv := c.fake("openai")
	id := c.stopDuringRequest(srv, syscall.SIGKILL, "-p", "started here")
	sessions := filepath.Join(c.home, "sessions")
	before := tree(t, sessions)

	// Found by id from another directory, and refused there.
	other := filepath.Join(c.root, "other")
	if err := os.Mkdir(other, 0o755); err != nil {
		t.Fatal(err)
	}
	r := c.runIn(other, "", "-p", "go on", "-S", id)
	notice := fmt.Sprintf("Session %q was created under a different directory.\n  cd %q && kimigo -r %s -p 'go on'\n", id, c.dir, id)
	if r.code != 1 || !strings.HasPrefix(r.stderr, notice) {
		t.Errorf("-S %s from another directory: %v\nwant stderr starting %q", id, r, notice)
	}
	if d := diffTrees(before, tree(t, sessions)); d != "" {
		t.Errorf("the refused resume changed session files: %s", d)
	}

	// -c elsewhere does not take it.
	srv.Add(llmtest.Text("fresh"))
	r = c.runIn(other, "", "-c", "-p", "go on")
	if r.code != 0 || !strings.Contains(r.stderr, fmt.Sprintf("No sessions to continue under %q", other)) {
		t.Errorf("-c in another directory: %v", r)
	}
	if got := resumeHint(t, r.stderr); got == id {
		t.Errorf("-c in another directory resumed %s", id)
	}

	// Through a symbolic link to its work dir it is the same directory.
	link := filepath.Join(c.root, "link")
	if err := os.Symlink(c.dir, link); err != nil {
		t.Fatal(err)
	}
	srv.Add(llmtest.Text("resumed"))
	r = c.runIn(link, "", "-r", id, "-p", "continue")
	if r.code != 0 {
		t.Fatalf("-r %s through a link: %v", id, r)
	}
	if got := resumeHint(t, r.stderr); got != id {
		t.Errorf("-r %s resumed %s", id, got)
	}
	if msgs := lastMessages(t, srv); !strings.Contains(msgs, "started here") || !strings.Contains(msgs, "continue") {
		t.Errorf("the resumed request lacks the killed prompt:\n%s", msgs)
	}
}
