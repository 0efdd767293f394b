package loop_test

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/llm/plainjson"
	"github.com/kimigo/kimigo/loop"
	"github.com/kimigo/kimigo/loop/looptest"
)

// harness wires a turn for a scenario: FakeLLM, a recording transcript and
// live sink, instant recorded sleeps, zero jitter, sequential uuids and
// message builders that count their calls and tag their messages with
// their view.
type harness struct {
	t       *testing.T
	llm     *looptest.FakeLLM
	rec     *looptest.Recorder
	sleeper *looptest.Sleeper
	built   map[string]int
	in      loop.RunTurnInput
}

func newHarness(t *testing.T, script ...looptest.Response) *harness {
	t.Helper()
	h := &harness{t: t, llm: looptest.New(script...), rec: &looptest.Recorder{}, sleeper: &looptest.Sleeper{},
		built: map[string]int{}}
	h.in = loop.RunTurnInput{
		TurnID:        "turn-1",
		LLM:           h.llm,
		BuildMessages: h.builder("normal"),
		Dispatch:      h.rec.Dispatcher(),
		Options: loop.Options{
			Sleep:   h.sleeper.Sleep,
			Jitter:  func() float64 { return 0 },
			NewUUID: looptest.SeqUUIDs(),
		},
	}
	return h
}

// builder returns a message builder for view that counts its calls; its
// single user message names the view, so a request shows where it came
// from.
func (h *harness) builder(view string) loop.MessageBuilder {
	return func(context.Context) ([]llm.Message, error) {
		h.built[view]++
		return []llm.Message{llm.UserMessage(view)}, nil
	}
}

// withFallbacks installs the strict, degraded and stripped builders.
func (h *harness) withFallbacks() *harness {
	h.in.BuildMessagesStrict = h.builder("strict")
	h.in.BuildMessagesMediaDegraded = h.builder("degraded")
	h.in.BuildMessagesMediaStripped = h.builder("stripped")
	return h
}

func (h *harness) tools(tools ...loop.ExecutableTool) *harness {
	h.in.Tools = tools
	return h
}

func (h *harness) run(ctx context.Context) (loop.TurnResult, error) {
	h.t.Helper()
	return loop.RunTurn(ctx, h.in)
}

// mustRun runs the turn and fails the test on an error.
func (h *harness) mustRun(ctx context.Context) loop.TurnResult {
	h.t.Helper()
	res, err := loop.RunTurn(ctx, h.in)
	if err != nil {
		h.t.Fatalf("RunTurn: %v", err)
	}
	return res
}

// views returns the view each request was built from.
func (h *harness) views() []string {
	var out []string
	for _, c := range h.llm.Calls() {
		out = append(out, llm.ExtractText(c.Messages[0], ""))
	}
	return out
}

func (h *harness) interrupts() []loop.TurnInterruptedEvent {
	return looptest.LiveOfType[loop.TurnInterruptedEvent](h.rec)
}

func (h *harness) results() []loop.ToolResultEvent {
	return looptest.RecordedOfType[loop.ToolResultEvent](h.rec)
}

func (h *harness) toolCalls() []loop.ToolCallEvent {
	return looptest.RecordedOfType[loop.ToolCallEvent](h.rec)
}

// wantTypes compares the transcript's event types.
func (h *harness) wantTypes(want ...loop.EventType) {
	h.t.Helper()
	if d := cmp.Diff(want, h.rec.Types()); d != "" {
		h.t.Errorf("transcript types (-want +got):\n%s", d)
	}
}

// wantResults compares the recorded tool results.
func (h *harness) wantResults(want ...loop.ToolResult) {
	h.t.Helper()
	var got []loop.ToolResult
	for _, r := range h.results() {
		got = append(got, r.Result)
	}
	if d := cmp.Diff(want, got); d != "" {
		h.t.Errorf("tool results (-want +got):\n%s", d)
	}
}

// statusErr builds a classified status error as a provider would.
func statusErr(status int, msg string) *llm.Error {
	return llm.NormalizeStatus(&llm.Error{Kind: llm.KindStatus, StatusCode: status, Message: msg})
}

func errResult(s string) loop.ToolResult { return loop.ErrorResult(s) }
func okResult(s string) loop.ToolResult  { return loop.TextResult(s) }

func usage(other, output, read, creation int) llm.TokenUsage {
	return llm.TokenUsage{InputOther: other, Output: output, InputCacheRead: read, InputCacheCreation: creation}
}

func intp(n int) *int { return &n }

// mustJSON encodes v the way the record writer does: without HTML
// escaping (json.Marshal would escape "<" in tool output).
func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := plainjson.Marshal(v)
	if err != nil {
		t.Fatalf("marshal %T: %v", v, err)
	}
	return string(b)
}

var errBoom = errors.New("boom")

// Event type shorthands for transcript comparisons.
const (
	begin  = loop.TypeStepBegin
	part   = loop.TypeContentPart
	call   = loop.TypeToolCall
	result = loop.TypeToolResult
	end    = loop.TypeStepEnd
)
