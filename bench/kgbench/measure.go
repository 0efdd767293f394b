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
	faults    int64 // minor page faults
}

// stats are the median, minimum and maximum of one measure.
type stats struct{ med, min, max float64 }

// statsOf summarises v; with an even count the median is the mean of the
// two middle values.
func statsOf(v []float64) stats {
	s := slices.Clone(v)
	slices.Sort(s)
	med := s[len(s)/2]
	if len(s)%2 == 0 {
		med = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return stats{med: med, min: s[0], max: s[len(s)-1]}
}

// result is the summary of one scenario.
type result struct {
	name           string
	wall, cpu, rss stats // milliseconds, milliseconds, MiB
	// faults counts minor page faults: where a fault is dear (a virtual
	// machine), they decide a short run's time, and they vary far less
	// than times do from run to run.
	faults stats
}

// scenario is one measured command line.
type scenario struct {
	name string
	argv []string
	// dir, when set, is the work dir instead of measure's.
	dir string
	// before, when set, runs before each run, unmeasured.
	before func() error
}

// measure runs every scenario n times in dir with env, after one
// unmeasured warm-up run each, and summarises wall time, CPU time (user +
// system) and peak RSS of the child processes. The scenarios take turns
// run by run, so a burst of other work on the machine skews them all a
// little instead of one of them a lot. A run that fails stops the
// benchmark.
func measure(scenarios []scenario, n int, dir string, env []string) ([]result, error) {
	samples := make([][]sample, len(scenarios))
	for i := -1; i < n; i++ {
		for k, sc := range scenarios {
			s, err := runOnce(sc, dir, env)
			if err != nil {
				return nil, err
			}
			if i >= 0 { // run -1 is the warm-up: page cache, first-run files
				samples[k] = append(samples[k], s)
			}
		}
	}
	results := make([]result, len(scenarios))
	for k, sc := range scenarios {
		var wall, cpu, rss, faults []float64
		for _, s := range samples[k] {
			wall = append(wall, ms(s.wall))
			cpu = append(cpu, ms(s.cpu))
			rss = append(rss, float64(s.rssKiB)/1024)
			faults = append(faults, float64(s.faults))
		}
		results[k] = result{name: sc.name, wall: statsOf(wall), cpu: statsOf(cpu), rss: statsOf(rss), faults: statsOf(faults)}
	}
	return results, nil
}

// runOnce runs one scenario and measures it.
func runOnce(sc scenario, dir string, env []string) (sample, error) {
	if sc.dir != "" {
		dir = sc.dir
	}
	if sc.before != nil {
		if err := sc.before(); err != nil {
			return sample{}, fmt.Errorf("%s: %w", sc.name, err)
		}
	}
	cmd := exec.Command(sc.argv[0], sc.argv[1:]...)
	cmd.Dir, cmd.Env = dir, env
	start := time.Now()
	out, err := cmd.CombinedOutput()
	wall := time.Since(start)
	if err != nil {
		return sample{}, fmt.Errorf("%s: %v\n%s", sc.name, err, out)
	}
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	return sample{wall: wall, cpu: cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime(), rssKiB: maxrssKiB(ru),
		faults: int64(ru.Minflt)}, nil
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// printTable writes the results as an aligned table.
func printTable(w *os.File, results []result) {
	fmt.Fprintf(w, "%-34s %26s %26s %26s %8s\n", "scenario", "wall ms (med/min/max)", "cpu ms (med/min/max)",
		"peak RSS MiB (med/min/max)", "faults")
	for _, r := range results {
		fmt.Fprintf(w, "%-34s %8.2f %8.2f %8.2f %8.2f %8.2f %8.2f %8.1f %8.1f %8.1f %8.0f\n", r.name,
			r.wall.med, r.wall.min, r.wall.max, r.cpu.med, r.cpu.min, r.cpu.max, r.rss.med, r.rss.min, r.rss.max, r.faults.med)
	}
}
