package print_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/kimigo/kimigo/agent"
	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/internal/print"
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/llm/scripted"
)

// agentHost drives a real agent, as a session does.
type agentHost struct{ a *agent.Agent }

func (h agentHost) Prompt(ctx context.Context, in []llm.ContentPart) error {
	_, err := h.a.Prompt(ctx, in, nil)
	return err
}
func (h agentHost) Subscribe() *event.Subscription { return h.a.Events().Subscribe() }
func (h agentHost) Cancel(ctx context.Context, cause error) error {
	return h.a.Cancel(ctx, nil, cause)
}

func newAgent(t *testing.T, p llm.Provider) *agent.Agent {
	t.Helper()
	a := agent.New(agent.Options{Model: agent.ModelBinding{Provider: p}, Config: agent.Config{SystemPrompt: "You are a test."}})
	t.Cleanup(func() { a.Close(context.WithoutCancel(t.Context())) })
	return a
}

func run(ctx context.Context, a *agent.Agent, f print.Format) (string, string, error) {
	var out, errw bytes.Buffer
	err := print.Run(ctx, print.Options{Host: agentHost{a}, Prompt: "hi", Format: f, Version: "v",
		SessionID: "session_1", ResumeCommand: "kimigo -r session_1", Stdout: &out, Stderr: &errw})
	return out.String(), errw.String(), err
}

func TestRunCompletesWithResumeHint(t *testing.T) {
	a := newAgent(t, scripted.New(scripted.Options{Responses: []scripted.Response{scripted.Think("hmm", "Hello\nworld")}}))
	out, errw, err := run(t.Context(), a, print.FormatText)
	if err != nil {
		t.Fatal(err)
	}
	if out != "Hello\nworld\n" {
		t.Errorf("stdout = %q", out)
	}
	if errw != "To resume this session: kimigo -r session_1\n" {
		t.Errorf("stderr = %q; want the resume hint alone", errw)
	}
}

func TestRunFailureHasNoResumeHint(t *testing.T) {
	e := llm.StatusError(401, nil, []byte(`{"error":{"message":"Invalid API key","type":"invalid_request_error"}}`))
	a := newAgent(t, scripted.New(scripted.Options{Responses: []scripted.Response{{Err: e}}}))
	out, errw, err := run(t.Context(), a, print.FormatStreamJSON)
	var f *print.Failure
	if !errors.As(err, &f) || f.Code != "provider.auth_error" || !strings.Contains(f.Message, "Invalid API key") ||
		f.Details["statusCode"] != 401 {
		t.Fatalf("err = %#v; want the auth failure with its status", err)
	}
	if strings.Contains(out, "resume_hint") || strings.Contains(errw, "To resume") {
		t.Errorf("a failed run wrote a resume hint:\n%s%s", out, errw)
	}
}

// A turn the repeat guard stopped "completes" (spec 03 §1.15), but the
// task is not done: the run fails naming the tool and the count, and
// writes no resume hint (issue 13).
func TestRunStoppedByTheRepeatGuardFails(t *testing.T) {
	for _, f := range []print.Format{print.FormatText, print.FormatStreamJSON} {
		t.Run(string(f), func(t *testing.T) {
			var script []scripted.Response
			for i := range 13 {
				script = append(script, scripted.ToolCalls(scripted.Call{ID: fmt.Sprint("c", i), Name: "Lookup", Arguments: `{"q":"same"}`}))
			}
			a := newAgent(t, scripted.New(scripted.Options{Responses: script}))
			out, errw, err := run(t.Context(), a, f)
			var fail *print.Failure
			if !errors.As(err, &fail) || fail.Code != print.CodeRepeatStopped ||
				!strings.Contains(fail.Message, "called Lookup with the same arguments 12 times in a row") ||
				fail.Details["calls"] != 12 {
				t.Fatalf("err = %#v; want the repeat-guard failure", err)
			}
			if strings.Contains(out, "resume_hint") || strings.Contains(errw, "To resume") {
				t.Errorf("a stopped run wrote a resume hint:\n%s%s", out, errw)
			}
		})
	}
}

func TestRunInterrupted(t *testing.T) {
	m := blockingModel{Provider: scripted.New(scripted.Options{}), started: make(chan struct{}), once: &sync.Once{}}
	a := newAgent(t, m)
	ctx, cancel := context.WithCancel(t.Context())
	go func() {
		<-m.started
		cancel()
	}()
	_, _, err := run(ctx, a, print.FormatText)
	if !errors.Is(err, print.ErrInterrupted) {
		t.Fatalf("err = %v; want ErrInterrupted", err)
	}
	res, err := a.WaitForCurrentTurn(t.Context())
	if err != nil || res.Event.Reason != event.EndCancelled {
		t.Errorf("turn = %+v, %v; want it cancelled", res.Event, err)
	}
}

// blockingModel answers every request only when the request is cancelled.
type blockingModel struct {
	*scripted.Provider
	started chan struct{}
	once    *sync.Once
}

func (b blockingModel) WithThinking(string) llm.Provider { return b }

func (b blockingModel) WithMaxCompletionTokens(int, llm.ContextBudget) llm.Provider { return b }

func (b blockingModel) Generate(ctx context.Context, _ *llm.Request) (llm.Stream, error) {
	b.once.Do(func() { close(b.started) })
	<-ctx.Done()
	return nil, llm.Aborted(ctx)
}

func TestParseFormat(t *testing.T) {
	for in, ok := range map[string]bool{"text": true, "stream-json": true, "json": true, "JSON": false, "": false, "TEXT": false} {
		if _, got := print.ParseFormat(in); got != ok {
			t.Errorf("ParseFormat(%q) ok = %v; want %v", in, got, ok)
		}
	}
}
