//go:build unix

// Command kgbench measures whole kimigo processes: it serves a loopback
// fake model (Chat Completions), runs a kimigo binary against it, and
// reports the median, minimum and maximum of wall time, CPU time and peak
// RSS per scenario. bench/run.sh builds kimigo and runs it; see the
// README's "Benchmark" section.
//
// With -serve it only serves the fake model and prints its base URL, for
// trying kimigo by hand; the benchmark itself runs the fake model that way
// too (see startServer).
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

func main() {
	bin := flag.String("kimigo", "", "the kimigo binary to measure (required unless -serve); "+
		"comma-separated binaries take turns in the same runs")
	floor := flag.String("floor", "", "the floor program (bench/floor) to run beside kimigo and compare it with")
	runs := flag.Int("n", 20, "measured runs per scenario")
	serve := flag.Bool("serve", false, "only serve the fake model and print its base URL")
	startup := flag.String("startup", "", "comma-separated work dirs: measure only a one-shot prompt in each, "+
		"with a warm and a cold git cache, for each of the comma-separated -kimigo binaries")
	subagents := flag.Int("subagents", 0, "measure only a prompt whose model reply starts this many background subagents")
	flag.Parse()
	if *serve {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			fatal(err)
		}
		fmt.Println("http://" + ln.Addr().String() + "/v1")
		fatal(http.Serve(ln, newFakeModel()))
	}
	if *bin == "" {
		fatal(fmt.Errorf("-kimigo is required"))
	}
	base, stop, err := startServer()
	if err != nil {
		fatal(err)
	}
	if *subagents > 0 {
		err = benchSubagents(*bin, base, *subagents, *runs)
	} else if *startup != "" {
		err = benchStartup(strings.Split(*bin, ","), strings.Split(*startup, ","), base, *runs)
	} else {
		err = bench(*bin, *floor, base, *runs)
	}
	stop()
	if err != nil {
		fatal(err)
	}
}

// startServer runs the fake model in a child process (kgbench -serve) and
// returns its base URL and a function that stops it. Serving in this
// process would grow it, and Linux reports a child's peak RSS as at least
// the peak RSS of the process that started it (the child shares its
// memory until exec), so a large measuring process would inflate the
// figures of small kimigo runs.
func startServer() (base string, stop func(), err error) {
	self, err := os.Executable()
	if err != nil {
		return "", nil, err
	}
	cmd := exec.Command(self, "-serve")
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return "", nil, err
	}
	if err := cmd.Start(); err != nil {
		return "", nil, err
	}
	stop = func() {
		_ = cmd.Process.Kill() // already gone is fine
		_ = cmd.Wait()         // killed: the exit status says so
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		stop()
		return "", nil, fmt.Errorf("start the fake model: %w", err)
	}
	return strings.TrimSpace(line), stop, nil
}

// bench runs the scenarios in a fresh data root and work dir; with a
// floor program, its scenarios take turns with kimigo's and the ratios
// follow the table. bins may name several kimigo binaries (a build before
// and after a change): all of them take turns in the same runs.
func bench(bins, floor, base string, n int) error {
	tmp, err := os.MkdirTemp("", "kgbench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	work := filepath.Join(tmp, "work")
	if err := os.Mkdir(work, 0o700); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(work, "a.txt"), []byte("hello\n"), 0o600); err != nil {
		return err
	}
	env, _, err := benchEnv(tmp, base)
	if err != nil {
		return err
	}
	list := strings.Split(bins, ",")
	var scenarios []scenario
	for _, bin := range list {
		name := func(s string) string {
			if len(list) == 1 {
				return s
			}
			return filepath.Base(bin) + " " + s
		}
		scenarios = append(scenarios,
			scenario{name: name("--version"), argv: []string{bin, "--version"}},
			scenario{name: name("one-shot text prompt"), argv: []string{bin, "-p", "hi"}},
			scenario{name: name("1 tool round trip"), argv: []string{bin, "-p", "read a.txt (tools:1)"}},
			scenario{name: name("20 tool round trips"), argv: []string{bin, "-p", "read a.txt again and again (tools:20)"}},
			// A shell command per step, as the floor runs, in the sandbox
			// where kimigo has one.
			scenario{name: name("1 Bash round trip"), argv: []string{bin, "-p", "show a.txt (bash:1)"}},
			scenario{name: name("20 Bash round trips"), argv: []string{bin, "-p", "show a.txt again and again (bash:20)"}})
	}
	f := len(scenarios)
	if floor != "" {
		scenarios = append(scenarios,
			scenario{name: "floor one-shot", argv: []string{floor, "-p", "hi"}},
			scenario{name: "floor 1 Bash round trip", argv: []string{floor, "-p", "show a.txt (bash:1)"}},
			scenario{name: "floor 20 Bash round trips", argv: []string{floor, "-p", "show a.txt again and again (bash:20)"}})
	}
	results, err := measure(scenarios, n, work, env)
	if err != nil {
		return err
	}
	fmt.Printf("kimigo %s, %d runs per scenario (interleaved), %s/%s, %d CPUs\n\n", bins, n, runtime.GOOS, runtime.GOARCH,
		runtime.NumCPU())
	printTable(os.Stdout, results)
	for i, bin := range list {
		r := results[6*i : 6*i+6]
		fmt.Printf("\n%s:\n", bin)
		wall, cpu := perTrip(r[2], r[3])
		fmt.Printf("per extra tool round trip (medians, (20 − 1) / 19): wall %.2f ms, cpu %.2f ms\n", wall, cpu)
		wall, cpu = perTrip(r[4], r[5])
		fmt.Printf("per extra Bash round trip (medians, (20 − 1) / 19): wall %.2f ms, cpu %.2f ms\n", wall, cpu)
		if floor != "" {
			printRatios(r[1], r[4], r[5], results[f], results[f+1], results[f+2])
		}
	}
	return nil
}

// benchEnv makes a data root under tmp and returns the environment kimigo
// runs in against the fake model at base, and the data root.
func benchEnv(tmp, base string) (env []string, home string, err error) {
	home = filepath.Join(tmp, "home")
	if err := os.Mkdir(home, 0o700); err != nil {
		return nil, "", err
	}
	return []string{"PATH=" + os.Getenv("PATH"), "HOME=" + tmp, "KIMIGO_HOME=" + home,
		"KIMI_MODEL_NAME=bench-model", "KIMI_MODEL_API_KEY=bench-key", "KIMI_MODEL_PROVIDER_TYPE=openai",
		"KIMI_MODEL_BASE_URL=" + base, "KIMI_MODEL_CAPABILITIES=tool_use"}, home, nil
}

// benchStartup measures a one-shot prompt of each binary in each work
// dir, all taking turns. "warm" runs find the git cache the earlier runs
// left; "cold" runs start without it. A binary without the cache runs the
// same in both.
func benchStartup(bins, dirs []string, base string, n int) error {
	tmp, err := os.MkdirTemp("", "kgbench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	env, home, err := benchEnv(tmp, base)
	if err != nil {
		return err
	}
	noCache := func() error { return os.RemoveAll(filepath.Join(home, "cache")) }
	var scenarios []scenario
	for _, d := range dirs {
		for _, b := range bins {
			name := filepath.Base(b) + " " + filepath.Base(d)
			scenarios = append(scenarios,
				// cold first: its run leaves the cache the warm run reads
				scenario{name: name + " cold", argv: []string{b, "-p", "hi"}, dir: d, before: noCache},
				scenario{name: name + " warm", argv: []string{b, "-p", "hi"}, dir: d})
		}
	}
	results, err := measure(scenarios, n, "", env)
	if err != nil {
		return err
	}
	fmt.Printf("one-shot prompt by work dir, %d runs per scenario (interleaved), %s/%s, %d CPUs\n\n", n,
		runtime.GOOS, runtime.GOARCH, runtime.NumCPU())
	printTable(os.Stdout, results)
	return nil
}

// benchSubagents measures a print run whose first model reply makes n
// background Agent calls; each child answers at once with its handoff and
// the run ends once the parent has answered their notifications. Besides
// the table it reports, from the fake model's clock, the delay from the
// end of the reply with the calls to each child's first request (all
// children of all runs, the warm-up run included).
func benchSubagents(bin, base string, children, n int) error {
	tmp, err := os.MkdirTemp("", "kgbench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	work := filepath.Join(tmp, "work")
	if err := os.Mkdir(work, 0o700); err != nil {
		return err
	}
	env, _, err := benchEnv(tmp, base)
	if err != nil {
		return err
	}
	name := fmt.Sprintf("%d background subagents", children)
	results, err := measure([]scenario{{name: name,
		argv: []string{bin, "-p", fmt.Sprintf("split the work (agents:%d)", children)}}}, n, work, env)
	if err != nil {
		return err
	}
	resp, err := http.Get(base + "/stats")
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	var delays []float64
	if err := json.NewDecoder(resp.Body).Decode(&delays); err != nil {
		return fmt.Errorf("the fake model's stats: %w", err)
	}
	if len(delays) == 0 {
		return fmt.Errorf("no child reached the fake model")
	}
	fmt.Printf("kimigo %s, %d runs (after a warm-up), %s/%s, %d CPUs\n\n", bin, n, runtime.GOOS, runtime.GOARCH, runtime.NumCPU())
	printTable(os.Stdout, results)
	d := statsOf(delays)
	fmt.Printf("\nAgent calls sent → a child's first request, over %d children: median %.2f ms, min %.2f ms, max %.2f ms\n",
		len(delays), d.med, d.min, d.max)
	fmt.Printf("batch: the last child's first request %.2f ms after the calls, %.2f ms per child\n", d.max, d.max/float64(children))
	return nil
}

// perTrip is the cost of one extra tool round trip, from the medians of
// one and twenty round trips.
func perTrip(one, twenty result) (wall, cpu float64) {
	return (twenty.wall.med - one.wall.med) / 19, (twenty.cpu.med - one.cpu.med) / 19
}

// printRatios compares kimigo with the floor program, median to median.
func printRatios(shot, one, twenty, fShot, fOne, fTwenty result) {
	wall, cpu := perTrip(one, twenty)
	fWall, fCPU := perTrip(fOne, fTwenty)
	fmt.Printf("per extra Bash round trip: kimigo wall %.2f ms, cpu %.2f ms; floor wall %.2f ms, cpu %.2f ms\n\n",
		wall, cpu, fWall, fCPU)
	fmt.Printf("%-28s %10s %10s %8s\n", "kimigo / floor (medians)", "kimigo", "floor", "ratio")
	for _, r := range []struct {
		name        string
		kimigo, flr float64
		unit        string
	}{
		{"one-shot wall", shot.wall.med, fShot.wall.med, "ms"},
		{"per Bash round trip wall", wall, fWall, "ms"},
		{"per Bash round trip cpu", cpu, fCPU, "ms"},
		{"one-shot peak RSS", shot.rss.med, fShot.rss.med, "MiB"},
	} {
		fmt.Printf("%-28s %7.2f %-3s %6.2f %-3s %7.2f×\n", r.name, r.kimigo, r.unit, r.flr, r.unit, r.kimigo/r.flr)
	}
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "kgbench:", err)
	os.Exit(1)
}
