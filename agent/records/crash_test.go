package records_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/kimigo/kimigo/agent/records"
)

var (
	killCount = flag.Int("records.kills", 200, "SIGKILL iterations of TestCrashSafetyUnderKill")
	killSeed  = flag.Uint64("records.seed", 0, "random seed of TestCrashSafetyUnderKill (0: from the clock)")
)

// TestCrashSafetyUnderKill kills a real child process that appends and
// flushes records in a loop, at random moments, and checks after every
// kill that each record the child acknowledged is in the log, that a torn
// last line is repaired, that replay succeeds and that appending goes on.
// Four lanes run side by side to keep the wall time down; each starts a
// fresh log every ten kills so that replay time stays flat.
func TestCrashSafetyUnderKill(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns hundreds of processes")
	}
	seed := *killSeed
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	const lanes = 4
	per := (*killCount + lanes - 1) / lanes
	start := time.Now()
	var st crashStats
	var wg sync.WaitGroup
	errs := make([]error, lanes)
	for lane := range lanes {
		root := t.TempDir()
		rng := rand.New(rand.NewPCG(seed, uint64(lane)))
		wg.Go(func() { errs[lane] = runLane(t.Context(), root, rng, per, &st) })
	}
	wg.Wait()
	for lane, err := range errs {
		if err != nil {
			t.Errorf("lane %d (-records.seed=%d): %v", lane, seed, err)
		}
	}
	t.Logf("%d kills, %d acknowledged records, %d torn last lines repaired, in %v (seed %d)",
		st.kills.Load(), st.acks.Load(), st.torn.Load(), time.Since(start).Round(time.Millisecond), seed)
	if st.kills.Load() < int64(*killCount) {
		t.Errorf("only %d kills, want %d", st.kills.Load(), *killCount)
	}
}

type crashStats struct{ kills, acks, torn atomic.Int64 }

func runLane(ctx context.Context, root string, rng *rand.Rand, n int, st *crashStats) error {
	var dir string
	var acked [2]int
	for i := range n {
		if i%10 == 0 {
			dir, acked = filepath.Join(root, fmt.Sprint(i)), [2]int{}
		}
		k, err := killChild(dir, rng, &acked)
		if err != nil {
			return fmt.Errorf("kill %d: %w", i, err)
		}
		torn, err := checkAfterKill(ctx, dir, acked)
		if err != nil {
			return fmt.Errorf("after kill %d: %w", i, err)
		}
		st.kills.Add(1)
		st.acks.Add(int64(k))
		if torn {
			st.torn.Add(1)
		}
	}
	return nil
}

// killChild runs one appending child, waits for a random number of
// acknowledgements, SIGKILLs it at once or after a short random pause, and
// raises acked to what it acknowledged.
func killChild(dir string, rng *rand.Rand, acked *[2]int) (int, error) {
	cmd := exec.Command(os.Args[0])
	cmd.Env = childEnv("append", dir)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return 0, err
	}
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	sc := bufio.NewScanner(stdout)
	if !sc.Scan() || sc.Text() != "ready" {
		_ = cmd.Process.Kill() // it failed already; make sure it is gone
		_ = cmd.Wait()         // its stderr is the report
		return 0, fmt.Errorf("child did not start: %q\n%s", sc.Text(), stderr.String())
	}
	n := 0
	var bad error
	ack := func(line string) {
		var w, seq int
		if _, err := fmt.Sscanf(line, "%d %d", &w, &seq); err != nil || w < 0 || w > 1 {
			bad = fmt.Errorf("child printed %q", line)
			return
		}
		acked[w] = max(acked[w], seq)
		n++
	}
	for want := rng.IntN(8); n < want && sc.Scan(); {
		ack(sc.Text())
	}
	if rng.IntN(2) == 0 {
		time.Sleep(time.Duration(rng.IntN(3000)) * time.Microsecond) // land somewhere inside a batch
	}
	if err := cmd.Process.Kill(); err != nil {
		return 0, err
	}
	for sc.Scan() { // acknowledged before the kill
		ack(sc.Text())
	}
	err = cmd.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		return 0, fmt.Errorf("child ended with %v, not by SIGKILL:\n%s", err, stderr.String())
	}
	return n, bad
}

// checkAfterKill reopens the log, checks it, appends to it and reports
// whether the kill had left a torn last line.
func checkAfterKill(ctx context.Context, dir string, acked [2]int) (torn bool, err error) {
	if b, err := os.ReadFile(wirePath(dir)); err == nil {
		torn = len(b) > 0 && b[len(b)-1] != '\n'
	}
	fp, err := records.OpenFile(records.FileOptions{Dir: dir})
	if err != nil {
		return torn, err
	}
	log := records.NewLog(records.LogOptions{Persistence: fp})
	var seen [2]int
	_, err = log.Replay(ctx, func(r records.Record) error {
		if r.Type != seqType {
			return nil
		}
		var f seqFields
		if err := records.Decode(r, &f); err != nil {
			return err
		}
		if f.N != seen[f.W]+1 {
			return fmt.Errorf("writer %d: record %d follows %d", f.W, f.N, seen[f.W])
		}
		seen[f.W] = f.N
		return nil
	})
	if err == nil {
		for w := range seen {
			if seen[w] < acked[w] {
				err = fmt.Errorf("writer %d: acknowledged up to %d, the log has %d", w, acked[w], seen[w])
			}
		}
	}
	if err == nil {
		err = log.Record(records.Record{Type: "test.parent"})
	}
	if cerr := log.Close(ctx); err == nil {
		err = cerr
	}
	if err != nil {
		return torn, err
	}
	b, err := os.ReadFile(wirePath(dir))
	if err != nil {
		return torn, err
	}
	lines := strings.Split(string(b), "\n")
	if last := lines[len(lines)-2]; lines[len(lines)-1] != "" || !strings.HasPrefix(last, `{"type":"test.parent"`) {
		return torn, fmt.Errorf("append after the kill did not land on a line of its own: %q", tail(b))
	}
	return torn, nil
}
