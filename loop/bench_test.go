package loop_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/loop"
	"github.com/kimigo/kimigo/loop/looptest"
)

// benchEcho is Echo without the execution log, so iterations do not grow
// memory.
type benchEcho struct{}

func (benchEcho) Definition() llm.Tool {
	return llm.Tool{Name: "echo", Parameters: json.RawMessage(looptest.EchoSchema)}
}

func (benchEcho) ResolveExecution(args json.RawMessage) (loop.Execution, *loop.ToolResult, error) {
	return loop.Execution{Execute: func(context.Context, loop.ExecCtx) (loop.ToolResult, error) {
		var a struct {
			Text string `json:"text"`
		}
		err := json.Unmarshal(args, &a)
		return loop.TextResult(a.Text), err
	}}, nil, nil
}

// BenchmarkLoopStep measures the loop's own overhead: one turn of two steps
// (a step calling echo, then a text step) against FakeLLM, with a
// transcript sink that discards. ns/step is half of ns/op.
func BenchmarkLoopStep(b *testing.B) {
	msgs := []llm.Message{llm.UserMessage("hi")}
	in := loop.RunTurnInput{
		TurnID:        "turn-1",
		BuildMessages: func(context.Context) ([]llm.Message, error) { return msgs, nil },
		Dispatch:      loop.NewDispatcher(func(context.Context, loop.RecordedEvent) error { return nil }, nil),
		Tools:         []loop.ExecutableTool{benchEcho{}},
	}
	ctx := b.Context()
	b.ReportAllocs()
	for b.Loop() {
		in.LLM = looptest.New(
			looptest.Calls(looptest.Call("c1", "echo", `{"text":"hi"}`)),
			looptest.Text("done"),
		)
		if _, err := loop.RunTurn(ctx, in); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/2, "ns/step")
}
