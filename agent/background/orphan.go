package background

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// ProcessProber finds and stops the processes of tasks that were running
// when a previous kimigo stopped without stopping them (kill -9, a crash):
// a resume reports them instead of leaking them. Both methods are safe for
// concurrent use.
type ProcessProber interface {
	// Running reports whether the process group led by pid still holds
	// the task's processes. start is the leader's recorded start time (0
	// when unknown); a leader with another start time is a recycled pid
	// and is never reported.
	Running(pid int, start uint64) bool
	// Terminate sends sig to the process group led by pid.
	Terminate(pid int, sig syscall.Signal) error
}

// LocalProcesses probes the processes of this machine: the leader's start
// time comes from /proc where there is one. Without it a live leader
// cannot be told from a recycled pid and is left alone; a group whose
// leader is gone is still found (its id cannot be reused while it has
// members).
type LocalProcesses struct{}

// Running implements ProcessProber.
func (LocalProcesses) Running(pid int, start uint64) bool {
	if pid <= 1 {
		return false
	}
	if st, ok := processStartTime(pid); ok {
		return start != 0 && st == start
	}
	return syscall.Kill(-pid, 0) == nil
}

// Terminate implements ProcessProber.
func (LocalProcesses) Terminate(pid int, sig syscall.Signal) error {
	if pid <= 1 {
		return fmt.Errorf("refusing to signal process group %d", pid)
	}
	if err := syscall.Kill(-pid, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("signal process group %d: %w", pid, err)
	}
	return nil
}

// processStartTime is field 22 of /proc/<pid>/stat: when the process
// started, in clock ticks since boot. ok is false where there is no such
// file, and for a zombie (it holds no processes any more).
func processStartTime(pid int) (uint64, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')') // the command name may hold spaces and parentheses
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(s[i+1:])
	// f[0] is field 3 (state); starttime is field 22.
	if len(f) < 20 || f[0] == "Z" || f[0] == "X" {
		return 0, false
	}
	n, err := strconv.ParseUint(f[19], 10, 64)
	return n, err == nil
}
