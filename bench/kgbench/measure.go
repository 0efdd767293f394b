//go:build unix

package main

import (
	"fmt"
	"os"
	"os/exec"
	"slices"
	"syscall"
	"time"
)

// sample is one run of the measured command.
type sample struct {
	wall, cpu time.Duration
	rssKiB    int64
}

// stats are the median, minimum and maximum of one measure.
type stats struct{ med, min, max float64 }

func statsOf(v []float64) stats {
	s := slices.Clone(v)
	slices.Sort(s)
	return stats{med: s[len(s)/2], min: s[0], max: s[len(s)-1]}
}

// result is the summary of one scenario.
type result struct {
	name           string
	wall, cpu, rss stats // milliseconds, milliseconds, MiB
}

// measure runs argv n times in dir with env, after one unmeasured warm-up
// run, and summarises wall time, CPU time (user + system) and peak RSS
// of the child process. A run that fails stops the benchmark.
func measure(name string, n int, dir string, env []string, argv ...string) (result, error) {
	var samples []sample
	for i := -1; i < n; i++ {
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Dir, cmd.Env = dir, env
		start := time.Now()
		out, err := cmd.CombinedOutput()
		wall := time.Since(start)
		if err != nil {
			return result{}, fmt.Errorf("%s: %v\n%s", name, err, out)
		}
		if i < 0 {
			continue // warm-up: page cache, first-run files
		}
		ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
		samples = append(samples, sample{wall: wall, cpu: cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime(),
			rssKiB: maxrssKiB(ru)})
	}
	var wall, cpu, rss []float64
	for _, s := range samples {
		wall = append(wall, ms(s.wall))
		cpu = append(cpu, ms(s.cpu))
		rss = append(rss, float64(s.rssKiB)/1024)
	}
	return result{name: name, wall: statsOf(wall), cpu: statsOf(cpu), rss: statsOf(rss)}, nil
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// printTable writes the results as an aligned table.
func printTable(w *os.File, results []result) {
	fmt.Fprintf(w, "%-26s %26s %26s %20s\n", "scenario", "wall ms (med/min/max)", "cpu ms (med/min/max)", "peak RSS MiB (med/max)")
	for _, r := range results {
		fmt.Fprintf(w, "%-26s %8.2f %8.2f %8.2f %8.2f %8.2f %8.2f %9.1f %9.1f\n", r.name,
			r.wall.med, r.wall.min, r.wall.max, r.cpu.med, r.cpu.min, r.cpu.max, r.rss.med, r.rss.max)
	}
}
