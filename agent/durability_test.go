package agent_test

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/kimigo/kimigo/agent"
	"github.com/kimigo/kimigo/agent/agenttest"
	"github.com/kimigo/kimigo/agent/records"
	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/llm/scripted"
)

// ERRATA 6: records are flushed when a prompt is accepted, before every
// model request and at turn end; a failed flush fails what needed it with
// an error naming the file and the errno, and the next flush retries.

func diskFull(failOnCall int) (func() error, *atomic.Int64, *atomic.Bool) {
	var calls atomic.Int64
	var healed atomic.Bool
	return func() error {
		n := calls.Add(1)
		if !healed.Load() && int(n) >= failOnCall {
			return fmt.Errorf("write records /home/user/.kimigo/agents/main/wire.jsonl: %w", syscall.ENOSPC)
		}
		return nil
	}, &calls, &healed
}

func checkWriteError(t *testing.T, p event.ErrorPayload) {
	t.Helper()
	if p.Code != event.CodeRecordsWriteFailed || !strings.Contains(p.Message, "wire.jsonl") ||
		!strings.Contains(p.Message, syscall.ENOSPC.Error()) {
		t.Errorf("error = %+v, want records.write_failed naming the file and the errno", p)
	}
}

func TestRecordsFlushFailureRefusesThePrompt(t *testing.T) {
	fault, _, healed := diskFull(1)
	h := newHarness(t, agenttest.FlushFault(fault))
	if _, err := h.Agent().Prompt(t.Context(), text("hi"), nil); err == nil {
		t.Fatal("Prompt succeeded although its record could not be made durable")
	}
	if errs := eventsOf[event.Error](h); len(errs) != 1 {
		t.Fatalf("error events = %+v", errs)
	} else {
		checkWriteError(t, errs[0].ErrorPayload)
	}
	if n := len(eventsOf[event.TurnStarted](h)); n != 0 || h.Agent().HasActiveTurn() {
		t.Errorf("a turn started (%d turn.started)", n)
	}
	healed.Store(true)
	h.Model(scripted.Text("hello"))
	if res := h.Prompt("hi again"); res.Event.Reason != event.EndCompleted {
		t.Errorf("turn after the disk recovered ended %+v", res.Event)
	}
	h.ExpectResumeMatches()
}

func TestRecordsFlushFailureFailsTheTurnBeforeTheRequest(t *testing.T) {
	fault, _, healed := diskFull(2) // the prompt's flush works, the request's does not
	h := newHarness(t, agenttest.FlushFault(fault))
	h.Model(scripted.Text("hello"))
	res := h.Prompt("hi")
	if res.Event.Reason != event.EndFailed || res.Event.Error == nil {
		t.Fatalf("turn ended %+v", res.Event)
	}
	checkWriteError(t, *res.Event.Error)
	if n := len(h.Requests()); n != 0 {
		t.Errorf("%d requests sent with records not durable", n)
	}
	types := h.EventTypes()
	if d := cmp.Diff([]event.Type{event.TypeTurnEnded, event.TypeError}, types[len(types)-2:]); d != "" {
		t.Errorf("last events (-want +got):\n%s", d)
	}
	healed.Store(true)
	if res := h.Prompt("hi again"); res.Event.Reason != event.EndCompleted {
		t.Errorf("turn after the disk recovered ended %+v", res.Event)
	}
	h.ExpectResumeMatches()
}

func TestResumeFromFileLog(t *testing.T) {
	ctx := context.WithoutCancel(t.Context())
	dir := t.TempDir()
	open := func() *records.FilePersistence {
		p, err := records.OpenFile(records.FileOptions{Dir: dir})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	model := scripted.New(scripted.Options{Responses: []scripted.Response{scripted.Text("one"), scripted.Text("two")}})
	a := agent.New(agent.Options{Model: agent.ModelBinding{Provider: model}, Persistence: open(), HomeDir: dir,
		Config: agent.Config{SystemPrompt: "You are kimigo."}})
	for _, p := range []string{"first", "second"} {
		if _, err := a.Prompt(ctx, []llm.ContentPart{llm.TextPart(p)}, nil); err != nil {
			t.Fatal(err)
		}
		if _, err := a.WaitForCurrentTurn(ctx); err != nil {
			t.Fatal(err)
		}
	}
	want := a.State(ctx)
	wantReq, err := a.NextRequest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Close(ctx); err != nil {
		t.Fatal(err)
	}

	b := agent.New(agent.Options{Model: agent.ModelBinding{Provider: model}, Persistence: open(), HomeDir: dir})
	defer b.Close(ctx)
	if _, err := b.Resume(ctx, agent.ResumeOptions{}); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, b.State(ctx), cmpopts.EquateEmpty()); d != "" {
		t.Errorf("resumed from file (-before +after):\n%s", d)
	}
	gotReq, err := b.NextRequest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(wantReq, gotReq); d != "" {
		t.Errorf("next request (-before +after):\n%s", d)
	}
}
