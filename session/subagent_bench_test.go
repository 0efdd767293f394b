package session_test

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/llm/llmtest"
	"github.com/kimigo/kimigo/session"
)

// Benchmarks of issue 19 (run by hand, not in CI):
//
//	go test ./session -run '^$' -bench Subagent -benchtime 5x
//
// BenchmarkConcurrentSubagents/{1,100} spawns 1 or 100 children at once,
// in a new session each time, against the loopback fake and reports the
// median and worst time from a spawn to the child's first request
// reaching the fake, the time from the first spawn to the last child's
// first request divided by the children (what each child costs when
// they queue for the CPU), and the process's peak RSS (VmHWM: the test binary,
// the fake and the session together).
// BenchmarkSubagentOverhead runs pairs of main turns, each in a new
// session: one whose one tool call is an Agent call (the child answers at
// once, in one model request) and one whose call is a plain Glob. It
// reports the median of each and the median of the pairs' differences:
// a child's spawn-and-handoff overhead, its one model round trip
// included.
// bench/subagents.sh measures the whole kimigo process instead.

func BenchmarkConcurrentSubagents(b *testing.B) {
	for _, children := range []int{1, 100} {
		b.Run(strconv.Itoa(children), func(b *testing.B) { benchSpawn(b, children) })
	}
}

// benchSpawn opens a session per iteration and spawns children at once.
func benchSpawn(b *testing.B, children int) {
	r := newBenchRig(b)
	var mu sync.Mutex
	arrived := map[string]time.Time{}
	r.srv.Respond(func(req *llmtest.Request) llmtest.Reply {
		c := decodeCall(b, req)
		mu.Lock()
		if _, ok := arrived[c.firstUser()]; !ok {
			arrived[c.firstUser()] = time.Now()
		}
		mu.Unlock()
		return llmtest.Text("Handoff: " + strings.Repeat("x", 250))
	}).DropBodies()
	var lat, batch []time.Duration
	for i := 0; b.Loop(); i++ {
		o := r.opts("")
		o.Mode = event.ModeAuto
		s, err := session.Open(b.Context(), o)
		if err != nil {
			b.Fatal(err)
		}
		spawned := make([]time.Time, children)
		handles := make([]*session.SubagentHandle, children)
		var wg sync.WaitGroup
		for j := range children {
			wg.Go(func() {
				spawned[j] = time.Now()
				h, err := session.SpawnSubagent(b.Context(), s, session.SpawnOptions{Profile: "coder",
					Prompt: fmt.Sprintf("task %d/%d", i, j), Description: "bench"})
				if err != nil {
					b.Error(err)
					return
				}
				handles[j] = h
			})
		}
		wg.Wait()
		for _, h := range handles {
			if h == nil {
				continue
			}
			if c, err := h.Wait(b.Context()); err != nil || c.Err != nil {
				b.Fatal(err, c.Err)
			}
		}
		mu.Lock()
		first, last := spawned[0], time.Time{}
		for j := range children {
			at := arrived[fmt.Sprintf("task %d/%d", i, j)]
			lat = append(lat, at.Sub(spawned[j]))
			if spawned[j].Before(first) {
				first = spawned[j]
			}
			if at.After(last) {
				last = at
			}
		}
		mu.Unlock()
		batch = append(batch, last.Sub(first)/time.Duration(children))
		if err := s.Close(b.Context()); err != nil {
			b.Fatal(err)
		}
	}
	slices.Sort(lat)
	slices.Sort(batch)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "ms-spawn-to-request-median")
	b.ReportMetric(float64(batch[len(batch)/2].Microseconds())/1000, "ms-batch-per-child-median")
	b.ReportMetric(float64(lat[len(lat)-1].Microseconds())/1000, "ms-spawn-to-request-max")
	b.ReportMetric(peakRSSMiB(b), "MiB-peak-RSS")
}

func BenchmarkSubagentOverhead(b *testing.B) {
	r := newBenchRig(b)
	r.srv.Respond(func(req *llmtest.Request) llmtest.Reply {
		c := decodeCall(b, req)
		switch {
		case strings.HasPrefix(c.firstUser(), "child"):
			return llmtest.Text("Handoff: " + strings.Repeat("x", 250))
		case len(c.toolTexts) > 0:
			return llmtest.Text("ok")
		case c.firstUser() == "agent": // one call per turn
			return llmtest.ToolCall("a1", "Agent", `{"prompt":"child 1","description":"bench"}`)
		}
		return llmtest.ToolCall("g1", "Glob", `{"pattern":"*.none"}`)
	}).DropBodies()
	// Each turn runs in a new session, so every turn sends the same
	// history and state.json holds at most one child; only the turn is
	// timed.
	turn := func(prompt string) time.Duration {
		b.StopTimer()
		defer b.StartTimer()
		o := r.opts("")
		o.Mode = event.ModeAuto
		s, err := session.Open(b.Context(), o)
		if err != nil {
			b.Fatal(err)
		}
		sub := s.Subscribe()
		start := time.Now()
		b.StartTimer()
		if err := s.Prompt(b.Context(), textParts(prompt)); err != nil {
			b.Fatal(err)
		}
		for {
			ev, err := sub.Next(b.Context())
			if err != nil {
				b.Fatal(err)
			}
			if e, ok := ev.(event.TurnEnded); ok && e.AgentID == session.MainAgentID {
				break
			}
		}
		b.StopTimer()
		took := time.Since(start)
		sub.Close()
		if err := s.Close(b.Context()); err != nil {
			b.Fatal(err)
		}
		return took
	}
	turn("agent") // warm up: the first session's connections and caches
	turn("plain")
	b.ResetTimer()
	var agent, plain, diff []time.Duration
	for i := 0; b.Loop(); i++ {
		// The two kinds take turns, each first in every other pair, so
		// a change of the machine's load skews both alike.
		var a, p time.Duration
		if i%2 == 0 {
			a, p = turn("agent"), turn("plain")
		} else {
			p, a = turn("plain"), turn("agent")
		}
		agent, plain, diff = append(agent, a), append(plain, p), append(diff, a-p)
	}
	med := func(d []time.Duration) float64 {
		slices.Sort(d)
		return float64(d[len(d)/2].Microseconds()) / 1000
	}
	b.ReportMetric(med(agent), "ms-agent-turn-median")
	b.ReportMetric(med(plain), "ms-plain-turn-median")
	b.ReportMetric(med(diff), "ms-overhead-median")
}

// newBenchRig is a rig for a benchmark.
func newBenchRig(b *testing.B) *rig {
	return newRigOn(b, llmtest.FakeChatCompletions(b))
}

// peakRSSMiB is the process's peak resident set (VmHWM), 0 where
// /proc is missing.
func peakRSSMiB(b *testing.B) float64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for l := range strings.SplitSeq(string(data), "\n") {
		if rest, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			kb, err := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")))
			if err == nil {
				return float64(kb) / 1024
			}
		}
	}
	return 0
}
