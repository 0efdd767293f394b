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
	bin := flag.String("kimigo", "", "the kimigo binary to measure (required unless -serve)")
	runs := flag.Int("n", 20, "measured runs per scenario")
	serve := flag.Bool("serve", false, "only serve the fake model and print its base URL")
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
	err = bench(*bin, base, *runs)
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

// bench runs the scenarios in a fresh data root and work dir.
func bench(bin, base string, n int) error {
	tmp, err := os.MkdirTemp("", "kgbench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	home, work := filepath.Join(tmp, "home"), filepath.Join(tmp, "work")
	for _, d := range []string{home, work} {
		if err := os.Mkdir(d, 0o700); err != nil {
			return err
		}
	}
	if err := os.WriteFile(filepath.Join(work, "a.txt"), []byte("hello\n"), 0o600); err != nil {
		return err
	}
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + tmp, "KIMIGO_HOME=" + home,
		"KIMI_MODEL_NAME=bench-model", "KIMI_MODEL_API_KEY=bench-key", "KIMI_MODEL_PROVIDER_TYPE=openai",
		"KIMI_MODEL_BASE_URL=" + base, "KIMI_MODEL_CAPABILITIES=tool_use"}
	scenarios := []scenario{
		{name: "--version", argv: []string{bin, "--version"}},
		{name: "one-shot text prompt", argv: []string{bin, "-p", "hi"}},
		{name: "1 tool round trip", argv: []string{bin, "-p", "read a.txt (tools:1)"}},
		{name: "20 tool round trips", argv: []string{bin, "-p", "read a.txt again and again (tools:20)"}},
		{name: "1 Bash round trip", argv: []string{bin, "-p", "echo (bash:1)"}},
		{name: "20 Bash round trips", argv: []string{bin, "-p", "echo again and again (bash:20)"}},
	}
	results, err := measure(scenarios, n, work, env)
	if err != nil {
		return err
	}
	fmt.Printf("kimigo %s, %d runs per scenario (interleaved), %s/%s, %d CPUs\n\n", bin, n, runtime.GOOS, runtime.GOARCH,
		runtime.NumCPU())
	printTable(os.Stdout, results)
	one, twenty := results[2], results[3]
	fmt.Printf("\nper extra tool round trip (medians, (20 − 1) / 19): wall %.2f ms, cpu %.2f ms\n",
		(twenty.wall.med-one.wall.med)/19, (twenty.cpu.med-one.cpu.med)/19)
	one, twenty = results[4], results[5]
	fmt.Printf("per extra Bash round trip (medians, (20 − 1) / 19): wall %.2f ms, cpu %.2f ms\n",
		(twenty.wall.med-one.wall.med)/19, (twenty.cpu.med-one.cpu.med)/19)
	return nil
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "kgbench:", err)
	os.Exit(1)
}
