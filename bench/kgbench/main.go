//go:build unix

// Command kgbench measures whole kimigo processes: it serves a loopback
// fake model (Chat Completions), runs a kimigo binary against it, and
// reports the median, minimum and maximum of wall time, CPU time and peak
// RSS per scenario. bench/run.sh builds kimigo and runs it; see the
// README's "Benchmark" section.
//
// With -serve it only serves the fake model and prints its base URL, for
// trying kimigo by hand.
package main

import (
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
)

func main() {
	bin := flag.String("kimigo", "", "the kimigo binary to measure (required unless -serve)")
	runs := flag.Int("n", 20, "measured runs per scenario")
	serve := flag.Bool("serve", false, "only serve the fake model and print its base URL")
	flag.Parse()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fatal(err)
	}
	base := "http://" + ln.Addr().String() + "/v1"
	go func() { _ = http.Serve(ln, newFakeModel()) }() // serves until the process exits
	if *serve {
		fmt.Println(base)
		select {}
	}
	if *bin == "" {
		fatal(fmt.Errorf("-kimigo is required"))
	}
	if err := bench(*bin, base, *runs); err != nil {
		fatal(err)
	}
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
	scenarios := []struct {
		name string
		argv []string
	}{
		{"--version", []string{bin, "--version"}},
		{"one-shot text prompt", []string{bin, "-p", "hi"}},
		{"1 tool round trip", []string{bin, "-p", "read a.txt (tools:1)"}},
		{"20 tool round trips", []string{bin, "-p", "read a.txt again and again (tools:20)"}},
	}
	var results []result
	for _, s := range scenarios {
		r, err := measure(s.name, n, work, env, s.argv...)
		if err != nil {
			return err
		}
		results = append(results, r)
	}
	fmt.Printf("kimigo %s, %d runs per scenario, %s/%s, %d CPUs\n\n", bin, n, runtime.GOOS, runtime.GOARCH, runtime.NumCPU())
	printTable(os.Stdout, results)
	one, twenty := results[2], results[3]
	fmt.Printf("\nper extra tool round trip (medians, (20 − 1) / 19): wall %.2f ms, cpu %.2f ms\n",
		(twenty.wall.med-one.wall.med)/19, (twenty.cpu.med-one.cpu.med)/19)
	return nil
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "kgbench:", err)
	os.Exit(1)
}
