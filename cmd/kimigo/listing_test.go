package main

import (
	"bytes"
	"fmt"
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
	cmd := c.command(c.dir, "export")
	var out, errw bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = strings.NewReader("n\n"), &out, &errw
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil || out.String() != "Export cancelled.\n" ||
			!strings.Contains(errw.String(), fmt.Sprintf("Export previous session %q?", "two ("+latest+")")) {
			t.Errorf("kimigo export: %v\n--- stdout\n%s--- stderr\n%s", err, out.String(), errw.String())
		}
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		<-done
		t.Fatalf("kimigo export still runs after 30 s: listing opened a record log\n%s", errw.String())
	}
}
