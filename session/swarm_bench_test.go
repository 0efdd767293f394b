package session_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/llm/llmtest"
	"github.com/kimigo/kimigo/session"
)

// BenchmarkSwarm100 runs one AgentSwarm of 100 items per iteration, in a
// new session each time, against the loopback fake (run by hand):
//
//	go test ./session -run '^$' -bench Swarm100 -benchtime 5x
//
// The scheduler runs with this package's test intervals (a ramp of 7 ms,
// swarm_timing_internal_test.go), so 95 launches after the first five
// take 665 ms at the least. It reports the swarm's wall time (the main
// turn, two requests of the parent included), the median and worst
// interval between consecutive children's first requests after the first
// five (the ramp as achieved: 7 ms plus what a launch costs; also the
// 90th percentile), and the
// process's peak RSS (VmHWM: the test binary, the fake and the session).
func BenchmarkSwarm100(b *testing.B) {
	const n = 100
	items := make([]string, n)
	for i := range items {
		items[i] = fmt.Sprintf("item-%03d", i)
	}
	args, err := json.Marshal(map[string]any{"description": "bench", "prompt_template": "Review {{item}}.", "items": items})
	if err != nil {
		b.Fatal(err)
	}
	r := newBenchRig(b)
	var mu sync.Mutex
	arrived := map[string]time.Time{}
	r.srv.Respond(func(req *llmtest.Request) llmtest.Reply {
		c := decodeCall(b, req)
		if c.firstUser() == "go" {
			if len(c.toolTexts) == 0 {
				return llmtest.ToolCall("s", "AgentSwarm", string(args))
			}
			return llmtest.Text("ok")
		}
		mu.Lock()
		if _, ok := arrived[c.firstUser()]; !ok {
			arrived[c.firstUser()] = time.Now()
		}
		mu.Unlock()
		return llmtest.Text("Handoff: " + strings.Repeat("x", 250))
	}).DropBodies()
	var walls, gaps []time.Duration
	for b.Loop() {
		o := r.opts("")
		o.Mode = event.ModeAuto
		s, err := session.Open(b.Context(), o)
		if err != nil {
			b.Fatal(err)
		}
		sub := s.Subscribe()
		mu.Lock()
		clear(arrived)
		mu.Unlock()
		start := time.Now()
		if err := s.Prompt(b.Context(), textParts("go")); err != nil {
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
		walls = append(walls, time.Since(start))
		mu.Lock()
		if len(arrived) != n {
			b.Fatalf("%d children sent a request, want %d", len(arrived), n)
		}
		for i := 6; i < n; i++ {
			gaps = append(gaps, arrived[fmt.Sprintf("Review item-%03d.", i)].Sub(arrived[fmt.Sprintf("Review item-%03d.", i-1)]))
		}
		mu.Unlock()
		sub.Close()
		if err := s.Close(b.Context()); err != nil {
			b.Fatal(err)
		}
	}
	slices.Sort(walls)
	slices.Sort(gaps)
	b.ReportMetric(float64(walls[len(walls)/2].Microseconds())/1000, "ms-swarm-wall-median")
	b.ReportMetric(float64(gaps[len(gaps)/2].Microseconds())/1000, "ms-launch-gap-median")
	b.ReportMetric(float64(gaps[len(gaps)*9/10].Microseconds())/1000, "ms-launch-gap-p90")
	b.ReportMetric(float64(gaps[len(gaps)-1].Microseconds())/1000, "ms-launch-gap-max")
	b.ReportMetric(peakRSSMiB(b), "MiB-peak-RSS")
}
