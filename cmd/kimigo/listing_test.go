package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Listing sessions reads the index and metadata, never a record log
// (issue 9 point 6). Every session's wire.jsonl is replaced by a named
// pipe with no writer, which blocks whoever opens it for reading: `kimigo
// export`, which lists the work dir's sessions and asks about the latest,
// must answer all the same.
func TestListingNeverOpensTheLogs(t *testing.T) {
	c := newCLI(t)
	first := resumeHint(t, c.mustRun("-p", "one").stderr)
	age(t, c, first, time.Hour)
	latest := resumeHint(t, c.mustRun("-p", "two").stderr)
	for _, id := range []string{first, latest} {
		log := filepath.Join(sessionDir(t, c, id), "agents", "main", "wire.jsonl")
		if err := os.Remove(log); err != nil {
			t.Fatal(err)
		}
		if err := syscall.Mkfifo(log, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// export lists to find the latest; sessions lists them all; neither
	// may open a log (a FIFO blocks whoever opens it).
	for _, tt := range []struct {
		args  []string
		stdin string
		ok    func(stdout string) bool
	}{
		{[]string{"export"}, "n\n", func(out string) bool { return out == "Export cancelled.\n" }},
		{[]string{"sessions"}, "", func(out string) bool {
			return strings.HasPrefix(out, latest+"  ") && strings.Contains(out, "\n"+first+"  ")
		}},
	} {
		cmd := c.command(c.dir, tt.args...)
		var out, errw bytes.Buffer
		cmd.Stdin, cmd.Stdout, cmd.Stderr = strings.NewReader(tt.stdin), &out, &errw
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil || !tt.ok(out.String()) {
				t.Errorf("kimigo %q: %v\n--- stdout\n%s--- stderr\n%s", tt.args, err, out.String(), errw.String())
			}
		case <-time.After(30 * time.Second):
			cmd.Process.Kill()
			<-done
			t.Fatalf("kimigo %q still runs after 30 s: listing opened a record log\n%s", tt.args, errw.String())
		}
	}
}
