//go:build unix

package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"time"
)

// stats are the median, minimum and maximum of one measure.
type stats struct{ med, min, max float64 }

func statsOf(v []float64) stats {
	s := slices.Clone(v)
	slices.Sort(s)
	return stats{med: s[len(s)/2], min: s[0], max: s[len(s)-1]}
}

func (s stats) String() string { return fmt.Sprintf("%.1f (min %.1f, max %.1f)", s.med, s.min, s.max) }

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// child is one finished kimigo process.
type child struct {
	wall, cpu      time.Duration // cpu: user + system
	rssMiB         float64       // peak
	stdout, stderr string
}

// runChild runs argv in dir with env and stdin, and fails unless it exits 0.
func runChild(dir string, env []string, stdin string, argv ...string) (child, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	var out, errw bytes.Buffer
	cmd.Dir, cmd.Env, cmd.Stdin, cmd.Stdout, cmd.Stderr = dir, env, strings.NewReader(stdin), &out, &errw
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	if err != nil {
		return child{}, fmt.Errorf("%q: %v\n%s%s", argv, err, out.String(), errw.String())
	}
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	return child{wall: wall, cpu: cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime(), rssMiB: float64(maxrssKiB(ru)) / 1024, stdout: out.String(), stderr: errw.String()}, nil
}

// rssMiB is the resident set size of a running process, from ps (Linux
// and macOS report KiB).
func rssMiB(pid int) (float64, error) {
	out, err := exec.Command("ps", "-o", "rss=", "-p", fmt.Sprint(pid)).Output()
	if err != nil {
		return 0, fmt.Errorf("ps -p %d: %w", pid, err)
	}
	var kib float64
	if _, err := fmt.Sscan(string(out), &kib); err != nil {
		return 0, fmt.Errorf("ps -p %d: %q: %w", pid, out, err)
	}
	return kib / 1024, nil
}

// peakRSSMiB is the peak resident set size of a running process so far
// (VmHWM, Linux); elsewhere it is current, the RSS ps reported.
func peakRSSMiB(pid int, current float64) float64 {
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return current
	}
	for _, line := range strings.Split(string(status), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			var kib float64
			if _, err := fmt.Sscan(rest, &kib); err == nil {
				return kib / 1024
			}
		}
	}
	return current
}
