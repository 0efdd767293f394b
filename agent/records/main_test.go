package records_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kimigo/kimigo/agent/records"
	"github.com/kimigo/kimigo/osenv"
)

// The crash and lock tests re-run this test binary as a child process; the
// environment variable helperEnv selects what the child does instead of
// running tests.
const (
	helperEnv    = "KIMIGO_RECORDS_TEST_HELPER"
	helperDirEnv = "KIMIGO_RECORDS_TEST_DIR"
)

// childEnv is the environment of a helper child in dir. The race
// detector's exit delay is turned off so that children end promptly.
func childEnv(mode, dir string) []string {
	env := append(os.Environ(), helperEnv+"="+mode, helperDirEnv+"="+dir)
	return append(env, "GORACE="+strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
}

func TestMain(m *testing.M) {
	switch os.Getenv(helperEnv) {
	case "":
		os.Exit(m.Run())
	case "append":
		os.Exit(helperAppend(os.Getenv(helperDirEnv)))
	case "hold":
		os.Exit(helperHold(os.Getenv(helperDirEnv)))
	default:
		fmt.Fprintf(os.Stderr, "unknown %s=%q\n", helperEnv, os.Getenv(helperEnv))
		os.Exit(2)
	}
}

// helperHold opens the log, says "locked" and keeps it open until stdin
// closes.
func helperHold(dir string) int {
	fp, err := records.OpenFile(records.FileOptions{Dir: dir})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Println("locked")
	_, _ = bufio.NewReader(os.Stdin).ReadString('\n') // returns at EOF
	if err := fp.Close(context.Background()); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// openRetrying opens the log in dir, waiting out a lock that is still
// held for a moment after its owner released it: the parent test process
// forks children for other lanes, and until such a fork has exec'd it
// shares the parent's open lock file, and with it the flock.
func openRetrying(dir string) (*records.FilePersistence, error) {
	deadline := time.Now().Add(5 * time.Second)
	for {
		fp, err := records.OpenFile(records.FileOptions{Dir: dir})
		if !errors.Is(err, osenv.ErrLocked) || time.Now().After(deadline) {
			return fp, err
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// seqFields is the payload of the crash test's records: writer w's n-th
// record, padded to a realistic size.
type seqFields struct {
	W   int    `json:"w"`
	N   int    `json:"n"`
	Pad string `json:"pad"`
}

const seqType records.Type = "test.seq"

// helperAppend resumes the log, then has two writers append numbered
// records, each printing "w n" once Flush returned for its record n (the
// record is acknowledged durable). It runs until killed.
func helperAppend(dir string) int {
	ctx := context.Background()
	fp, err := openRetrying(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	log := records.NewLog(records.LogOptions{Persistence: fp})
	next := map[int]int{0: 1, 1: 1}
	_, err = log.Replay(ctx, func(r records.Record) error {
		if r.Type != seqType {
			return nil
		}
		var f seqFields
		if err := records.Decode(r, &f); err != nil {
			return err
		}
		next[f.W] = f.N + 1
		return nil
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	var out sync.Mutex
	print := func(s string) {
		out.Lock()
		defer out.Unlock()
		_, _ = os.Stdout.WriteString(s) // one write per line: a pipe write this small is atomic
	}
	print("ready\n")
	var wg sync.WaitGroup
	for w := range 2 {
		wg.Go(func() {
			for n := next[w]; ; n++ {
				pad := strings.Repeat("x", 450)
				if w == 1 && n%3 == 0 {
					pad = strings.Repeat("y", 32<<10)
				}
				rec, err := records.New(seqType, seqFields{W: w, N: n, Pad: pad})
				if err == nil {
					err = log.Record(rec)
				}
				if err == nil {
					err = log.Flush(ctx)
				}
				if err != nil {
					fmt.Fprintln(os.Stderr, err)
					os.Exit(1)
				}
				print(fmt.Sprintf("%d %d\n", w, n))
			}
		})
	}
	wg.Wait()
	return 0
}
