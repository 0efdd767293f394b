//go:build unix

// Command benchcmp compares the native search engine with ripgrep: wall
// time of the same queries (same exclusions as the Grep and Glob tools
// apply) on the Go distribution's source tree and on a generated tree of
// 100k files, as medians over several runs, and the ratio kimigo / rg.
//
//	go run ./tools/search/internal/benchcmp [-runs 7] [-files 100000] [-dir /tmp/kimigo-bench]
//
// kimigo runs in process (as the tools do); rg runs as a child process,
// so its times include its start-up (a few milliseconds). Each query runs
// once untimed first so both read from a warm page cache, then the two
// engines alternate. Wall time is what the goal is stated in; CPU time
// (user + system) is printed beside it because it is steadier on a busy
// machine. The results column is the count of files (or lines) found,
// which must agree.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/kimigo/kimigo/tools/search"
	"github.com/kimigo/kimigo/workspace"
)

type query struct {
	name       string
	pattern    string // regex for grep; glob for files
	ignoreCase bool
	files      bool // a Glob-style listing instead of a content search
	content    bool // content mode (rg -n) instead of files with matches
}

var queries = []query{
	{name: "literal", pattern: "ErrNotExist"},
	{name: "regex", pattern: `func \w+Error\(`},
	{name: "case-insensitive", pattern: "errnotexist", ignoreCase: true},
	{name: "regex, 1-byte literal", pattern: `[0-9]{4}-[0-9]{2}`},
	{name: "literal, content mode", pattern: "ErrNotExist", content: true},
	{name: "glob **/*.go", pattern: "**/*.go", files: true},
}

func main() {
	runs := flag.Int("runs", 7, "timed runs per query and engine")
	nfiles := flag.Int("files", 100_000, "files in the generated tree")
	dir := flag.String("dir", filepath.Join(os.TempDir(), "kimigo-bench"), "where the generated tree lives (reused)")
	flag.Parse()
	rg, err := exec.LookPath("rg")
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchcmp: ripgrep (rg) is not on PATH")
		os.Exit(1)
	}
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchcmp: go env GOROOT:", err)
		os.Exit(1)
	}
	gen := filepath.Join(*dir, fmt.Sprintf("tree-%d", *nfiles))
	if err := generate(gen, *nfiles); err != nil {
		fmt.Fprintln(os.Stderr, "benchcmp:", err)
		os.Exit(1)
	}
	fmt.Printf("GOMAXPROCS=%d  runs=%d  load: %s\n", runtime.GOMAXPROCS(0), *runs, loadAverage())
	fmt.Printf("medians of %d paired runs; cpu = user+system time\n", *runs)
	fmt.Printf("%-16s %-22s %9s %9s %6s  %9s %9s %6s  %s\n", "tree", "query", "kimigo", "rg", "wall", "kimigo", "rg", "cpu", "results")
	for _, tree := range []struct{ name, root string }{
		{"GOROOT/src", filepath.Join(strings.TrimSpace(string(goroot)), "src")},
		{fmt.Sprintf("generated %dk", *nfiles/1000), gen},
	} {
		for _, q := range queries {
			k, r := measure(*runs, func() int { return runKimigo(tree.root, q) }, func() int { return runRipgrep(rg, tree.root, q) })
			note := fmt.Sprint(k.n)
			if k.n != r.n {
				note = fmt.Sprintf("%d, rg %d", k.n, r.n)
			}
			fmt.Printf("%-16s %-22s %9s %9s %5.2fx  %9s %9s %5.2fx  %s\n", tree.name, q.name,
				round(k.wall), round(r.wall), ratio(k.wall, r.wall), round(k.cpu), round(r.cpu), ratio(k.cpu, r.cpu), note)
		}
	}
	fmt.Printf("load after: %s\n", loadAverage())
}

// sample is the median wall and CPU time of one engine on one query, and
// its result count.
type sample struct {
	wall, cpu time.Duration
	n         int
}

// measure runs each engine once to warm the page cache, then alternates
// them runs times, so load changes hit both alike.
func measure(runs int, kimigo, rg func() int) (sample, sample) {
	kimigo()
	rg()
	var kw, kc, rw, rc []time.Duration
	var k, r sample
	for range runs {
		w, c := timed(func() { k.n = kimigo() })
		kw, kc = append(kw, w), append(kc, c)
		w, c = timed(func() { r.n = rg() })
		rw, rc = append(rw, w), append(rc, c)
	}
	k.wall, k.cpu, r.wall, r.cpu = median(kw), median(kc), median(rw), median(rc)
	return k, r
}

// timed returns f's wall time and the CPU time this process and its
// waited-for children spent meanwhile.
func timed(f func()) (wall, cpu time.Duration) {
	before := cpuTime()
	start := time.Now()
	f()
	return time.Since(start), cpuTime() - before
}

func cpuTime() time.Duration {
	var self, children syscall.Rusage
	check(syscall.Getrusage(syscall.RUSAGE_SELF, &self))
	check(syscall.Getrusage(syscall.RUSAGE_CHILDREN, &children))
	tv := func(t syscall.Timeval) time.Duration { return time.Duration(t.Nano()) }
	return tv(self.Utime) + tv(self.Stime) + tv(children.Utime) + tv(children.Stime)
}

func median(ds []time.Duration) time.Duration {
	slices.Sort(ds)
	return ds[len(ds)/2]
}

func ratio(a, b time.Duration) float64 { return float64(a) / float64(b) }

var engine = search.New(search.Options{})

func runKimigo(root string, q query) int {
	ctx := context.Background()
	filter := search.Filter{Exclude: workspace.SensitiveExcludeGlobs()}
	if q.files {
		res, err := engine.Find(ctx, search.FindQuery{Root: root, Pattern: q.pattern, Filter: filter})
		check(err)
		return len(res.Files)
	}
	mode := search.FilesWithMatches
	if q.content {
		mode = search.Content
	}
	res, err := engine.Grep(ctx, search.GrepQuery{Root: root, Pattern: q.pattern, IgnoreCase: q.ignoreCase, Mode: mode, Filter: filter})
	check(err)
	if q.content {
		n := 0
		for _, f := range res.Files {
			for _, b := range f.Blocks {
				n += len(b)
			}
		}
		return n
	}
	return len(res.Files)
}

func runRipgrep(rg, root string, q query) int {
	args := []string{"--hidden", "--no-config"}
	for _, d := range search.VCSDirs {
		args = append(args, "--glob", "!"+d)
	}
	for _, g := range workspace.SensitiveExcludeGlobs() {
		args = append(args, "--glob", "!"+g)
	}
	switch {
	case q.files:
		args = append(args, "--files", "--glob", q.pattern)
	case q.content:
		args = append(args, "-n", "--no-heading", "--with-filename", "--", q.pattern)
	default:
		args = append(args, "-l", "--", q.pattern)
	}
	if q.ignoreCase {
		args = append([]string{"-i"}, args...)
	}
	cmd := exec.Command(rg, args...)
	cmd.Dir = root
	out, err := cmd.Output()
	if ee, ok := err.(*exec.ExitError); err != nil && (!ok || ee.ExitCode() != 1) {
		check(fmt.Errorf("rg %v: %w", args, err))
	}
	return strings.Count(string(out), "\n")
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchcmp:", err)
		os.Exit(1)
	}
}

func round(d time.Duration) string { return d.Round(100 * time.Microsecond).String() }

func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	return strings.Join(f[:min(3, len(f))], " ")
}
