package turn_test

import (
	"context"
	"errors"
	"testing"

	"github.com/kimigo/kimigo/agent/history"
	"github.com/kimigo/kimigo/agent/turn"
	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/loop"
	"github.com/kimigo/kimigo/loop/looptest"
)

// TestWaitWithAnEndedContextCancelsTheTurn: a wait whose ctx has already
// ended when it starts still cancels the running turn, as one that ends
// while waiting does. (A print run interrupted just before it began to
// wait used to leave its turn running until the model answered.)
func TestWaitWithAnEndedContextCancelsTheTurn(t *testing.T) {
	rig := &flowRig{mem: history.New(history.Options{})}
	started := make(chan struct{})
	model := looptest.New(looptest.Response{WaitForCancel: true,
		OnCall: func(context.Context, loop.ChatParams) { close(started) }})
	f := turn.New(turn.Options{History: rig, Commit: rig, Events: rig,
		LLM: func() (loop.LLM, error) { return model, nil }})
	t.Cleanup(func() { _ = f.Close(context.WithoutCancel(t.Context())) })
	if _, err := f.Prompt(t.Context(), []llm.ContentPart{llm.TextPart("go")}, nil); err != nil {
		t.Fatal(err)
	}
	<-started
	ended, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := f.WaitForCurrentTurn(ended); !errors.Is(err, context.Canceled) {
		t.Fatalf("wait = %v; want the context's error", err)
	}
	res, err := f.WaitForCurrentTurn(t.Context())
	if err != nil || res.Event.Reason != event.EndCancelled {
		t.Errorf("turn = %+v, %v; want it cancelled", res.Event, err)
	}
}
