package records_test

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kimigo/kimigo/agent/records"
	"github.com/kimigo/kimigo/osenv"
)

func TestLockSameProcess(t *testing.T) {
	dir := t.TempDir()
	o := openLog(t, dir)
	_, err := records.OpenFile(records.FileOptions{Dir: dir})
	lock := filepath.Join(dir, records.LockFileName)
	if !errors.Is(err, osenv.ErrLocked) || !strings.Contains(err.Error(), lock) ||
		!strings.Contains(err.Error(), fmt.Sprintf("pid %d", os.Getpid())) {
		t.Fatalf("second OpenFile = %v, want ErrLocked naming %s and our pid", err, lock)
	}
	o.close(t)
	again, err := records.OpenFile(records.FileOptions{Dir: dir})
	if err != nil {
		t.Fatalf("OpenFile after Close: %v", err)
	}
	if err := again.Close(t.Context()); err != nil {
		t.Fatal(err)
	}
}

func TestLockOtherProcess(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.CommandContext(t.Context(), os.Args[0])
	cmd.Env = childEnv("hold", dir)
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

	_, err = records.OpenFile(records.FileOptions{Dir: dir})
	lock := filepath.Join(dir, records.LockFileName)
	if !errors.Is(err, osenv.ErrLocked) || !strings.Contains(err.Error(), lock) ||
		!strings.Contains(err.Error(), fmt.Sprintf("pid %d", cmd.Process.Pid)) {
		t.Fatalf("OpenFile while a child holds the log = %v, want ErrLocked naming %s and pid %d", err, lock, cmd.Process.Pid)
	}

	if err := stdin.Close(); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("child: %v", err)
	}
	o := openLog(t, dir) // released with the child
	o.close(t)
}
