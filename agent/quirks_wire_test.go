package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/kimigo/kimigo/agent/agenttest"
	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/llm/anthropic"
	"github.com/kimigo/kimigo/llm/llmtest"
	"github.com/kimigo/kimigo/llm/openai"
	"github.com/kimigo/kimigo/llm/scripted"
	"github.com/kimigo/kimigo/loop"
)

// quirkWire is one wire with its strict fake.
type quirkWire struct {
	name  string
	serve func(t *testing.T) (*llmtest.Server, llm.Provider)
}

var quirkWires = []quirkWire{
	{"openai", func(t *testing.T) (*llmtest.Server, llm.Provider) {
		srv := llmtest.FakeChatCompletions(t)
		return srv, openai.New(openai.Options{Flavour: openai.OpenAI, BaseURL: llmtest.ChatBaseURL(srv),
			APIKey: "test-key", Model: "fake-model"})
	}},
	{"kimi", func(t *testing.T) (*llmtest.Server, llm.Provider) {
		srv := llmtest.FakeChatCompletionsWith(t, llmtest.ChatOptions{Flavour: llmtest.ChatKimi})
		return srv, openai.New(openai.Options{Flavour: openai.Kimi, BaseURL: llmtest.ChatBaseURL(srv),
			APIKey: "test-key", Model: "kimi-k2"})
	}},
	{"anthropic", func(t *testing.T) (*llmtest.Server, llm.Provider) {
		srv := llmtest.FakeAnthropic(t)
		return srv, anthropic.New(anthropic.Options{BaseURL: srv.URL, APIKey: "test-key", Model: "claude-sonnet-4-5"})
	}},
}

// quirkHarness is an agent on w's strict fake with a Read tool that
// answers "contents of <path>".
func quirkHarness(t *testing.T, w quirkWire, replies ...llmtest.Reply) (*llmtest.Server, *agenttest.Harness) {
	t.Helper()
	srv, p := w.serve(t)
	srv.Add(replies...)
	read := readTool(func(int) string { return "" })
	read.Run = func(_ context.Context, args json.RawMessage, _ loop.ExecCtx) (loop.ToolResult, error) {
		var a struct{ Path string }
		if err := json.Unmarshal(args, &a); err != nil {
			return loop.ToolResult{}, err
		}
		return loop.TextResult("contents of " + a.Path), nil
	}
	return srv, newHarness(t, agenttest.Provider(p), agenttest.Tools(read))
}

// acceptedAll fails the test unless the strict fake accepted every request.
func acceptedAll(t *testing.T, srv *llmtest.Server) {
	t.Helper()
	for i, r := range srv.Requests() {
		if r.Rejected != 0 {
			t.Fatalf("request %d was rejected: %d %s\n%s", i, r.Rejected, r.RejectReason, r.Body)
		}
	}
}

// TestRepeatedToolCallIDsOnTheWire (issue 13 item 6): two calls of one
// response with one id both run, each result pairs with its own call, the
// next request is accepted by the strict fake, and resume rebuilds the
// same history.
func TestRepeatedToolCallIDsOnTheWire(t *testing.T) {
	for _, w := range quirkWires {
		t.Run(w.name, func(t *testing.T) {
			srv, h := quirkHarness(t, w,
				llmtest.RepeatedToolCallID("call_1", scripted.Call{Name: "Read", Arguments: `{"path":"a"}`},
					scripted.Call{Name: "Read", Arguments: `{"path":"b"}`}),
				llmtest.Text("read both"))
			res := h.Prompt("read a and b")
			if res.Event.Reason != event.EndCompleted {
				t.Fatalf("turn ended %s: %+v", res.Event.Reason, res.Event.Error)
			}
			acceptedAll(t, srv)
			if n := len(srv.Requests()); n != 2 {
				t.Fatalf("%d requests; want 2", n)
			}
			body := string(srv.Request(1).Body)
			for _, want := range []string{"call_1", "call_1_2", "contents of a", "contents of b"} {
				if !strings.Contains(body, want) {
					t.Errorf("second request lacks %q:\n%s", want, body)
				}
			}
			results := map[string]string{}
			for _, m := range agentOf(h).History() {
				if m.Role == llm.RoleTool {
					results[m.ToolCallID] = llm.ExtractText(m.Message, "")
				}
			}
			if results["call_1"] != "contents of a" || results["call_1_2"] != "contents of b" {
				t.Errorf("results by call id = %v", results)
			}
			h.ExpectResumeMatches()
		})
	}
}

// TestRepeatedToolCallIDsInARecordedHistory: a history recorded before
// the ids were made unique on receipt (one id twice in one response, or
// again in a later response) still builds requests the strict fakes
// accept, with every result after its own call.
func TestRepeatedToolCallIDsInARecordedHistory(t *testing.T) {
	hist := []llm.Message{
		llm.UserMessage("read a and b"),
		llm.AssistantMessage("", llm.ToolCall{ID: "dup", Name: "Read", Arguments: `{"path":"a"}`},
			llm.ToolCall{ID: "dup", Name: "Read", Arguments: `{"path":"b"}`}),
		llm.ToolMessage("dup", llm.TextPart("contents of a")),
		llm.ToolMessage("dup", llm.TextPart("contents of b")),
		llm.AssistantMessage("", llm.ToolCall{ID: "dup", Name: "Read", Arguments: `{"path":"c"}`}),
		llm.ToolMessage("dup", llm.TextPart("contents of c")),
	}
	for _, w := range quirkWires {
		t.Run(w.name, func(t *testing.T) {
			srv, p := w.serve(t)
			srv.Add(llmtest.Text("done"))
			if _, err := llm.Generate(t.Context(), p, llm.Request{Messages: hist}, llm.Callbacks{}); err != nil {
				t.Fatalf("Generate: %v", err)
			}
			acceptedAll(t, srv)
		})
	}
}

// TestNamelessToolCallOnTheWire (issue 13 item 6): a call without a tool
// name is answered with an error result instead of making the response
// look empty and retrying it; the next request names it unnamed_tool and
// is accepted.
func TestNamelessToolCallOnTheWire(t *testing.T) {
	for _, w := range quirkWires {
		t.Run(w.name, func(t *testing.T) {
			srv, h := quirkHarness(t, w, llmtest.NamelessToolCall("call_x", `{"path":"a"}`), llmtest.Text("sorry"))
			res := h.Prompt("read a")
			if res.Event.Reason != event.EndCompleted {
				t.Fatalf("turn ended %s: %+v", res.Event.Reason, res.Event.Error)
			}
			acceptedAll(t, srv)
			if n := len(srv.Requests()); n != 2 {
				t.Fatalf("%d requests; want 2 (no retry)", n)
			}
			body := string(srv.Request(1).Body)
			for _, want := range []string{llm.UnnamedTool, "had no tool name"} {
				if !strings.Contains(body, want) {
					t.Errorf("second request lacks %q:\n%s", want, body)
				}
			}
			h.ExpectResumeMatches()
		})
	}
}

// TestInvalidToolArgumentsOnTheWire (issue 13 item 6, ERRATA 4): arguments
// that do not parse reach the model as the parse problem, the record keeps
// them as given, and the tool does not run.
func TestInvalidToolArgumentsOnTheWire(t *testing.T) {
	for _, w := range quirkWires {
		t.Run(w.name, func(t *testing.T) {
			raw := `{"path":"a",}`
			srv, h := quirkHarness(t, w, llmtest.ToolCall("call_1", "Read", raw), llmtest.Text("oops"))
			res := h.Prompt("read a")
			if res.Event.Reason != event.EndCompleted {
				t.Fatalf("turn ended %s: %+v", res.Event.Reason, res.Event.Error)
			}
			acceptedAll(t, srv)
			body := string(srv.Request(1).Body)
			if !strings.Contains(body, "not valid JSON") || strings.Contains(body, "required property") ||
				strings.Contains(body, "contents of") {
				t.Errorf("second request does not carry the parse problem alone:\n%s", body)
			}
			var recorded bool
			for _, r := range h.Records() {
				if strings.Contains(r.String(), fmt.Sprintf(`"rawArgs":%q`, raw)) {
					recorded = true
				}
			}
			if !recorded {
				t.Error("no record keeps the arguments as given")
			}
		})
	}
}
