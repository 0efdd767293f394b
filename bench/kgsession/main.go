//go:build unix

// Command kgsession measures kimigo on big and long sessions (issue 9
// points 6 and 7), against a loopback fake model (Chat Completions):
//
//   - -scenario huge writes a synthetic session of -size MiB (large tool
//     outputs and screenshot blobs, written through the real records
//     writer, with a full compaction after every turn but the last) next
//     to small ones, then measures listing the work dir's sessions (the
//     store's Latest, the lookup -c does, in this process; and `kimigo
//     export`, the command that lists and asks, and `kimigo sessions`, each
//     as a whole process) and
//     resuming it (`kimigo -c -p continue`: wall time and peak RSS).
//   - -scenario tui resumes a session of -messages messages in the
//     interactive interface on a pseudo-terminal and measures the first
//     frame, idle CPU over -idle, keystroke to screen, streaming frames per
//     second, typing while a 10,000-line output arrives, and peak RSS.
//   - -scenario soak runs one print-mode prompt of -steps tool round trips
//     and samples the process's RSS and the records' size at fixed steps;
//     -window gives the model a real context window, so the session
//     compacts as it would in use (the default never compacts); -wire
//     anthropic serves the Anthropic Messages wire instead of Chat
//     Completions, and -lines sets how many lines each Read returns.
//
// bench/huge.sh and bench/soak.sh build kimigo and run it; see the
// README's "Benchmark" section.
package main

import (
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "kgsession:", err)
		os.Exit(1)
	}
}

func run() error {
	bin := flag.String("kimigo", "", "the kimigo binary to measure (required)")
	scenario := flag.String("scenario", "", "huge, soak or tui (required)")
	runs := flag.Int("n", 5, "measured runs (huge: resumes and listings; soak: whole soak runs)")
	sizeMiB := flag.Int64("size", 500, "huge: size of the synthetic session in MiB")
	steps := flag.Int("steps", 2000, "soak: tool round trips in the prompt")
	window := flag.Int("window", 100_000_000, "soak: the model's context window in tokens (the default never compacts)")
	wire := flag.String("wire", wireOpenAI, "soak: the fake model's wire, openai or anthropic")
	lines := flag.Int("lines", 5, "soak: lines each Read asks for (1 to 1000; about 50 bytes each)")
	keep := flag.String("keep", "", "keep the data root and work dir in this directory (it must not exist)")
	reuse := flag.String("reuse", "", "huge: measure the session a -keep run left in this directory")
	messages := flag.Int("messages", 5000, "tui: messages in the resumed session")
	idle := flag.Duration("idle", 60*time.Second, "tui: how long the idle CPU is measured")
	flag.Parse()
	if *bin == "" {
		return fmt.Errorf("-kimigo is required")
	}
	abs, err := filepath.Abs(*bin)
	if err != nil {
		return err
	}
	tmp := *keep
	switch {
	case *reuse != "":
		tmp = *reuse
	case tmp == "":
		if tmp, err = os.MkdirTemp("", "kgsession-"); err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
	default:
		if err := os.Mkdir(tmp, 0o700); err != nil {
			return err
		}
	}
	fmt.Printf("kimigo %s, %s/%s, %d CPUs\n", abs, runtime.GOOS, runtime.GOARCH, runtime.NumCPU())
	switch *scenario {
	case "huge":
		return huge(abs, tmp, *sizeMiB<<20, *runs, *reuse != "")
	case "soak":
		if *wire != wireOpenAI && *wire != wireAnthropic {
			return fmt.Errorf("-wire must be %s or %s, not %q", wireOpenAI, wireAnthropic, *wire)
		}
		return soak(abs, tmp, soakOptions{steps: *steps, runs: *runs, window: *window, wire: *wire, lines: *lines})
	case "tui":
		return tuiBench(abs, tmp, tuiOptions{runs: *runs, messages: *messages, idle: *idle, keys: 200})
	}
	return fmt.Errorf("-scenario must be huge, soak or tui, not %q", *scenario)
}

// serve starts the fake model and returns its base URL.
func serve(f *fakeModel) (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	go func() { _ = http.Serve(ln, f) }() // serves until the process exits
	return "http://" + ln.Addr().String() + "/v1", nil
}

// environment is kimigo's environment: a data root, a home and the fake
// model speaking wire; maxContext is the model's context size.
func environment(tmp, home, base, wire string, maxContext int) []string {
	if wire == wireAnthropic {
		// The anthropic wire adds /v1/messages itself, and kimigo refuses
		// a base URL of that wire that ends in /v1.
		base = strings.TrimSuffix(base, "/v1")
	}
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + tmp, "KIMIGO_HOME=" + home,
		"KIMI_MODEL_NAME=bench-model", "KIMI_MODEL_API_KEY=bench-key", "KIMI_MODEL_PROVIDER_TYPE=" + wire,
		"KIMI_MODEL_BASE_URL=" + base, "KIMI_MODEL_CAPABILITIES=tool_use",
		fmt.Sprintf("KIMI_MODEL_MAX_CONTEXT_SIZE=%d", maxContext)}
	// The runtime's knobs pass through, for experiments (GOGC=50 …).
	for _, k := range []string{"GOGC", "GOMEMLIMIT", "GODEBUG"} {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	return env
}
