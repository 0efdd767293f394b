package agent_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kimigo/kimigo/agent"
	"github.com/kimigo/kimigo/agent/records"
	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/llm/anthropic"
	"github.com/kimigo/kimigo/llm/llmtest"
	"github.com/kimigo/kimigo/llm/openai"
)

// bricked.wire.jsonl is the log of a print run made before ERRATA 28, by
// the binary of that time: two 4,500-token files read on the Anthropic
// wire, then an automatic compaction whose summary request started with
// the assistant's tool call. The service answered 400 "first message must
// use the user role", the compaction was cancelled and the run exited 1;
// every later `kimigo -c` compacted first and failed the same way.
const brickedLog = "testdata/compaction_bricked.wire.jsonl"

// brickedWindow is small enough that the resumed history does not fit a
// summary request whole, as on the day the session was bricked.
const brickedWindow = 8_000

// TestResumeOfALogBrickedByTheSummaryShape: that session resumes and its
// next prompt completes on both wires: the automatic compaction's summary
// request starts with the task prompt, every request passes the strict
// fake, and the history afterwards holds the summary (ERRATA 28).
func TestResumeOfALogBrickedByTheSummaryShape(t *testing.T) {
	for _, kind := range []string{"anthropic", "openai", "kimi"} {
		t.Run(kind, func(t *testing.T) {
			ctx := context.WithoutCancel(t.Context())
			dir := t.TempDir()
			data, err := os.ReadFile(brickedLog)
			if err != nil {
				t.Fatal(err)
			}
			data = []byte(strings.ReplaceAll(string(data), "{{WORK}}", dir))
			if err := os.WriteFile(filepath.Join(dir, records.LogFileName), data, 0o600); err != nil {
				t.Fatal(err)
			}
			srv, p := strictProvider(t, kind, brickedWindow)
			var summaries []*llmtest.Request
			srv.Respond(func(r *llmtest.Request) llmtest.Reply {
				if isSummary(r) {
					summaries = append(summaries, r)
					return llmtest.Text("I read f00.txt and f01.txt; next I read f02.txt.")
				}
				return llmtest.Text("Resumed and done.")
			})
			store, err := records.OpenFile(records.FileOptions{Dir: dir})
			if err != nil {
				t.Fatal(err)
			}
			a := agent.New(agent.Options{Persistence: store, HomeDir: dir, Model: agent.ModelBinding{Provider: p,
				Capability: llm.Capability{ToolUse: true, MaxContextTokens: brickedWindow}}})
			defer a.Close(ctx)
			if _, err := a.Resume(ctx, agent.ResumeOptions{}); err != nil {
				t.Fatal(err)
			}
			if _, err := a.Prompt(ctx, []llm.ContentPart{llm.TextPart("continue")}, nil); err != nil {
				t.Fatal(err)
			}
			res, err := a.WaitForCurrentTurn(ctx)
			if err != nil || res.Event.Reason != event.EndCompleted {
				t.Fatalf("resumed turn ended %s (%+v, %v); want completed", res.Event.Reason, res.Event.Error, err)
			}
			for i, r := range srv.Requests() {
				if r.Rejected != 0 {
					t.Errorf("request %d rejected: %d %s", i, r.Rejected, r.RejectReason)
				}
			}
			if len(summaries) == 0 {
				t.Fatalf("the resumed session never compacted (%d requests)", len(srv.Requests()))
			}
			msgs := wireMessages(t, summaries[0])
			if first := msgs[firstConversational(msgs)]; first.Role != "user" || !strings.HasPrefix(first.Text, "read every file") {
				t.Errorf("the summary request starts %s %.60q; want the task prompt", first.Role, first.Text)
			}
			var body map[string]json.RawMessage
			if err := json.Unmarshal(srv.Requests()[len(srv.Requests())-1].Body, &body); err != nil {
				t.Fatal(err)
			}
			if last := string(body["messages"]); !strings.Contains(last, prefixMarker) || !strings.Contains(last, "continue") {
				t.Errorf("the answer request lacks the summary or the prompt:\n%.600s", last)
			}
		})
	}
}

// firstConversational is the index of the first message that is not a
// system message.
func firstConversational(msgs []wireMessage) int {
	for i, m := range msgs {
		if m.Role != "system" {
			return i
		}
	}
	return len(msgs)
}

// strictProvider is a provider of kind on its strict loopback fake with
// the given window.
func strictProvider(t *testing.T, kind string, window int) (*llmtest.Server, llm.Provider) {
	t.Helper()
	switch kind {
	case "anthropic":
		srv := llmtest.FakeAnthropicWith(t, llmtest.AnthropicOptions{ContextWindow: window})
		return srv, anthropic.New(anthropic.Options{BaseURL: srv.URL, APIKey: "test-key", Model: "fake-model"})
	case "kimi":
		srv := llmtest.FakeChatCompletionsWith(t, llmtest.ChatOptions{Flavour: llmtest.ChatKimi, ContextWindow: window})
		return srv, openai.New(openai.Options{Flavour: openai.Kimi, BaseURL: llmtest.ChatBaseURL(srv), APIKey: "test-key",
			Model: "fake-model"})
	}
	srv := llmtest.FakeChatCompletionsWith(t, llmtest.ChatOptions{ContextWindow: window})
	return srv, openai.New(openai.Options{Flavour: openai.OpenAI, BaseURL: llmtest.ChatBaseURL(srv), APIKey: "test-key",
		Model: "fake-model"})
}
