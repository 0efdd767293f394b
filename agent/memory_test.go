package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kimigo/kimigo/agent"
	"github.com/kimigo/kimigo/agent/records"
	"github.com/kimigo/kimigo/agent/turn"
	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/llm/llmtest"
	"github.com/kimigo/kimigo/loop"
	"github.com/kimigo/kimigo/loop/looptest"
)

// TestLiveHeapFollowsTheConversation (issue 13 item 8): on every wire, what
// a session keeps alive between turns grows no faster than its
// conversation. A real agent (records in files, no compaction) runs Read
// round trips of 80 KiB each against the strict fake; the live heap after
// a collection is read after step 4 and after step 20, and its growth
// must stay within 1.5 times the growth of the request body (the
// conversation as sent) plus 512 KiB. A healthy session keeps about one copy
// (the history); the Anthropic wire once kept several request-sized
// buffers as well. Memory is counted, never timed, so a loaded machine
// does not make it flaky.
func TestLiveHeapFollowsTheConversation(t *testing.T) {
	if testing.Short() {
		t.Skip("long session; run without -short")
	}
	const (
		warmSteps  = 4
		totalSteps = 20
		outputSize = 80 << 10
	)
	for _, w := range quirkWires {
		if w.name == "kimi" {
			continue // the same wire as openai
		}
		t.Run(w.name, func(t *testing.T) {
			srv, p := w.serve(t)
			srv.DropBodies()
			var (
				mu       sync.Mutex
				target   int // steps the current prompt asks for
				served   int // tool calls answered
				lastBody int // bytes of the latest request
			)
			srv.Respond(func(r *llmtest.Request) llmtest.Reply {
				mu.Lock()
				defer mu.Unlock()
				lastBody = len(r.Body)
				if served < target {
					served++
					return llmtest.ToolCall(fmt.Sprintf("call_%d", served), "Read",
						fmt.Sprintf(`{"path":"f%d.txt"}`, served))
				}
				return llmtest.Text("done")
			})
			read := &looptest.Tool{Name: "Read",
				Schema: `{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`,
				Run: func(_ context.Context, args json.RawMessage, _ loop.ExecCtx) (loop.ToolResult, error) {
					var b strings.Builder
					for b.Len() < outputSize {
						fmt.Fprintf(&b, "%s: a line of the file the model pages through, %06d\n", args, b.Len())
					}
					return loop.TextResult(b.String()), nil
				}}
			persistence, err := records.OpenFile(records.FileOptions{Dir: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			a := agent.New(agent.Options{Tools: []loop.ExecutableTool{read}, Persistence: persistence,
				Model:     agent.ModelBinding{Provider: p, Capability: llm.Capability{ToolUse: true, MaxContextTokens: 100_000_000}},
				Compactor: turn.NoCompaction{}, Config: agent.Config{SystemPrompt: "You page through files."},
				Loop: loop.Options{Sleep: func(context.Context, time.Duration) error { return nil }}})
			t.Cleanup(func() { _ = a.Close(context.WithoutCancel(t.Context())) })

			runTo := func(steps int) (live uint64, conversation int) {
				mu.Lock()
				target = steps
				mu.Unlock()
				if _, err := a.Prompt(t.Context(), []llm.ContentPart{llm.TextPart("read on")}, nil); err != nil {
					t.Fatal(err)
				}
				res, err := a.WaitForCurrentTurn(t.Context())
				if err != nil || res.Event.Reason != event.EndCompleted {
					t.Fatalf("turn ended %v, %v", res.Event.Reason, err)
				}
				acceptedAll(t, srv)
				runtime.GC()
				var ms runtime.MemStats
				runtime.ReadMemStats(&ms)
				mu.Lock()
				defer mu.Unlock()
				return ms.HeapAlloc, lastBody
			}
			live1, conv1 := runTo(warmSteps)
			live2, conv2 := runTo(totalSteps)
			grew, convGrew := int64(live2)-int64(live1), int64(conv2-conv1)
			t.Logf("%s: live heap %.1f → %.1f MiB (+%.1f) while the conversation grew %.1f → %.1f MiB (+%.1f): %.2f×",
				w.name, mib(live1), mib(live2), mib(grew), mib(conv1), mib(conv2), mib(convGrew),
				float64(grew)/float64(convGrew))
			if limit := convGrew*3/2 + 512<<10; grew > limit {
				t.Errorf("live heap grew %.1f MiB over %d steps while the conversation grew %.1f MiB; want at most %.1f MiB",
					mib(grew), totalSteps-warmSteps, mib(convGrew), mib(limit))
			}
		})
	}
}

func mib[T int | int64 | uint64](n T) float64 { return float64(n) / (1 << 20) }
