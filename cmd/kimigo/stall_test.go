package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/kimigo/kimigo/llm/llmtest"
)

// TestPrintStallEndsWithinTheBound: a service that sends its headers and
// then nothing, every time, ends a print run with a clear error, exit 1,
// once loop_control.step_stall_timeout_ms is up, on every wire. The bounds
// are configured small so the test is quick; the defaults are covered in
// fake time by agent/turn's TestWireNeverHangs.
var gaveUp = regexp.MustCompile(`error: failed to run prompt: provider\.connection_error: gave up after [12] attempts: `)

func TestPrintStallEndsWithinTheBound(t *testing.T) {
	const stall, idle = 1500 * time.Millisecond, 400 * time.Millisecond
	for _, kind := range providerKinds() {
		t.Run(kind, func(t *testing.T) {
			c := newCLI(t)
			var replies []llmtest.Reply
			for range 10 {
				replies = append(replies, llmtest.HeadersThenSilence())
			}
			srv := c.fake(kind, replies...)
			if err := os.MkdirAll(c.home, 0o700); err != nil {
				t.Fatal(err)
			}
			cfg := fmt.Sprintf("[loop_control]\nstream_idle_timeout_ms = %d\nstep_stall_timeout_ms = %d\n",
				idle.Milliseconds(), stall.Milliseconds())
			if err := os.WriteFile(filepath.Join(c.home, "config.toml"), []byte(cfg), 0o600); err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			r := c.run("-p", "hi")
			took := time.Since(start)
			// 400 ms of silence, a wait of 500–625 ms, 400 ms of silence
			// again: the next wait would pass 1.5 s without an answer (or,
			// had the second attempt started later, it is cut at 1.5 s).
			// On a loaded machine the first silence may end late enough
			// that even the first wait would pass the bound.
			if r.code != 1 || !gaveUp.MatchString(r.stderr) ||
				!strings.Contains(r.stderr, "1.5s") || !strings.Contains(r.stderr, "(loop_control.step_stall_timeout_ms)") ||
				!strings.Contains(r.stderr, "the model service sent nothing for 400ms (loop_control.stream_idle_timeout_ms)") {
				t.Fatalf("want exit 1 and an error naming the bound, the key and the silence, got %v", r)
			}
			// The client made two attempts (the message says so); on a busy
			// machine the second may be cut before the fake recorded it.
			if n := len(srv.Requests()); n < 1 || n > 2 {
				t.Errorf("%d requests, want 1 or 2", n)
			}
			// Two silences long, and never much past the bound: starting
			// and stopping the process (race-enabled in CI) is the slack.
			if took < 2*idle || took > stall+15*time.Second {
				t.Errorf("the run took %v; want between %v and just over %v", took, 2*idle, stall)
			}
		})
	}
}
