//go:build unix

package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// soakPoints are the steps at which the soak samples the process.
var soakPoints = []int{100, 500, 1000, 1500, 2000}

// soakOptions shape one soak: steps tool round trips per run, runs runs,
// the model's window in tokens, its wire, and the lines each Read asks for.
type soakOptions struct {
	steps, runs, window int
	wire                string
	lines               int
}

// sample is the state of the kimigo process when the request of a step
// arrived: the tool results it holds so far equal the steps done.
type sample struct {
	rssMiB, peakMiB float64
	logBytes        int64
	requestBytes    int // the request body: the conversation as sent
}

// soak runs o.runs print-mode prompts of o.steps tool round trips each and
// reports, per sampled step, the median RSS, peak RSS, request size and
// records size.
func soak(bin, tmp string, o soakOptions) error {
	points := slices.DeleteFunc(slices.Clone(soakPoints), func(p int) bool { return p > o.steps })
	if !slices.Contains(points, o.steps) {
		points = append(points, o.steps)
	}
	var runs []map[int]sample
	var walls []float64
	for i := range o.runs {
		fmt.Println("load average:", loadAverage())
		got, wall, err := soakRun(bin, filepath.Join(tmp, fmt.Sprint(i)), o, points)
		if err != nil {
			return err
		}
		runs, walls = append(runs, got), append(walls, wall.Seconds())
	}
	fmt.Printf("%d runs of one prompt with %d tool round trips (%s wire, %d lines a Read), %d-token window; wall s: %v\n\n",
		o.runs, o.steps, o.wire, o.lines, o.window, statsOf(walls))
	fmt.Printf("%8s %22s %14s %14s %14s %16s\n", "step", "RSS MiB (med/min/max)", "peak RSS MiB", "request MiB",
		"records MiB", "goal: peak under")
	med := map[int]stats{}
	for _, p := range points {
		var rss, peak, size, req []float64
		for _, r := range runs {
			rss, peak = append(rss, r[p].rssMiB), append(peak, r[p].peakMiB)
			size, req = append(size, float64(r[p].logBytes)), append(req, float64(r[p].requestBytes))
		}
		med[p] = statsOf(rss)
		reqMiB := statsOf(req).med / (1 << 20)
		fmt.Printf("%8d %8.1f %6.1f %6.1f %14.1f %14.2f %14.2f %16.1f\n", p, med[p].med, med[p].min, med[p].max,
			statsOf(peak).med, reqMiB, statsOf(size).med/(1<<20), 2*reqMiB+20)
	}
	first, last := points[0], points[len(points)-1]
	growth := 100 * (med[last].med - med[first].med) / med[first].med
	var perStep []float64
	for _, r := range runs {
		perStep = append(perStep, float64(r[last].logBytes-r[first].logBytes)/float64(last-first))
	}
	fmt.Printf("\nRSS growth from step %d to %d (medians): %.1f %% (goal: under 20 %% with a real window)\n", first, last, growth)
	fmt.Printf("records bytes per step (steps %d to %d): %.0f\n", first, last, statsOf(perStep).med)
	return nil
}

// soakRun runs one soak in dir and samples the process at points.
func soakRun(bin, dir string, o soakOptions, points []int) (map[int]sample, time.Duration, error) {
	home, work := filepath.Join(dir, "home"), filepath.Join(dir, "work")
	for _, d := range []string{home, work} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return nil, 0, err
		}
	}
	var file strings.Builder
	for i := 1; i <= 500+o.lines; i++ {
		fmt.Fprintf(&file, "line %d of the file the model pages through\n", i)
	}
	if err := os.WriteFile(filepath.Join(work, "a.txt"), []byte(file.String()), 0o600); err != nil {
		return nil, 0, err
	}
	var (
		mu      sync.Mutex
		pid     int
		samples = map[int]sample{}
		errs    []error
	)
	base, err := serve(newFakeModel(o.wire, o.lines, func(done, bodyBytes int) {
		if !slices.Contains(points, done) {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		rss, err := rssMiB(pid)
		peak := peakRSSMiB(pid, rss)
		logs, _ := filepath.Glob(filepath.Join(home, "sessions", "*", "*", "agents", "main", "wire.jsonl"))
		var size int64
		if len(logs) == 1 {
			if fi, serr := os.Stat(logs[0]); serr == nil {
				size = fi.Size()
			}
		}
		if err != nil || size == 0 {
			errs = append(errs, fmt.Errorf("sample step %d: rss %v, records %v", done, err, logs))
		}
		samples[done] = sample{rssMiB: rss, peakMiB: peak, logBytes: size, requestBytes: bodyBytes}
	}))
	if err != nil {
		return nil, 0, err
	}
	// By default the window is far beyond the soak's history, so no
	// compaction resets it and the soak measures growth of the whole
	// conversation; a real window (-window 262144) measures a session that
	// compacts as it would in use.
	cmd := exec.Command(bin, "-p", fmt.Sprintf("page through a.txt (steps:%d)", o.steps))
	var out, errw bytes.Buffer
	cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = work, environment(dir, home, base, o.wire, o.window), &out, &errw
	start := time.Now()
	mu.Lock()
	err = cmd.Start()
	if err == nil {
		pid = cmd.Process.Pid
	}
	mu.Unlock()
	if err == nil {
		err = cmd.Wait()
	}
	wall := time.Since(start)
	if err != nil {
		return nil, 0, fmt.Errorf("soak: %v\n%s%s", err, out.String(), errw.String())
	}
	mu.Lock()
	defer mu.Unlock()
	if len(errs) > 0 {
		return nil, 0, errs[0]
	}
	for _, p := range points {
		if _, ok := samples[p]; !ok {
			return nil, 0, fmt.Errorf("soak never reached step %d:\n%s%s", p, out.String(), errw.String())
		}
	}
	return samples, wall, nil
}
