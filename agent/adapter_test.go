package agent_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kimigo/kimigo/agent/agenttest"
	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/llm/llmtest"
	"github.com/kimigo/kimigo/llm/openai"
	"github.com/kimigo/kimigo/llm/scripted"
	"github.com/kimigo/kimigo/loop"
	"github.com/kimigo/kimigo/loop/looptest"
)

// Spec 03 §8 scenarios 21–24: the LLM adapter inside a real agent. 20 and
// the adapter's unit tests live in agent/turn.

func TestAdapterS21ReplayAfterDrain(t *testing.T) {
	parts := []llm.StreamPart{llm.ContentStreamPart(llm.ThinkPart("t", "")),
		llm.ContentStreamPart(llm.TextPart("A")), llm.ContentStreamPart(llm.TextPart("B"))}
	t.Run("complete stream", func(t *testing.T) {
		h := newHarness(t)
		h.Model(scripted.Response{Parts: parts})
		h.Prompt("think")
		var deltas []string
		for _, ev := range h.Events() {
			switch e := ev.(type) {
			case event.ThinkingDelta:
				deltas = append(deltas, "thinking:"+e.Delta)
			case event.AssistantDelta:
				deltas = append(deltas, "assistant:"+e.Delta)
			}
		}
		if d := cmp.Diff([]string{"thinking:t", "assistant:A", "assistant:B"}, deltas); d != "" {
			t.Errorf("live deltas (-want +got):\n%s", d)
		}
		want := []string{`"part":{"type":"think","think":"t"}`, `"part":{"type":"text","text":"AB"}`}
		if d := cmp.Diff(want, contentPartRecords(h)); d != "" {
			t.Errorf("content.part records (-want +got):\n%s", d)
		}
		h.ExpectResumeMatches()
	})
	t.Run("stream fails after A", func(t *testing.T) {
		h := newHarness(t)
		h.Model(scripted.Response{Parts: parts, ErrAfter: 2,
			StreamErr: &llm.Error{Kind: llm.KindStatus, StatusCode: 400, Message: "400 stream broke"}})
		if res := h.Prompt("think"); res.Event.Reason != event.EndFailed {
			t.Errorf("turn ended %+v", res.Event)
		}
		if got := contentPartRecords(h); len(got) != 0 {
			t.Errorf("content.part records after a failed stream: %q", got)
		}
		h.ExpectResumeMatches()
	})
}

func TestAdapterS22CompletionCapNumbers(t *testing.T) {
	kimi := func(t *testing.T, replies ...llmtest.Reply) (*llmtest.Server, llm.Provider) {
		srv := llmtest.FakeChatCompletionsWith(t, llmtest.ChatOptions{Flavour: llmtest.ChatKimi}, replies...)
		return srv, openai.New(openai.Options{Flavour: openai.Kimi, BaseURL: llmtest.ChatBaseURL(srv),
			APIKey: "test-key", Model: "kimi-k2"})
	}
	generic := func(t *testing.T, replies ...llmtest.Reply) (*llmtest.Server, llm.Provider) {
		srv := llmtest.FakeChatCompletions(t, replies...)
		return srv, openai.New(openai.Options{Flavour: openai.OpenAI, BaseURL: llmtest.ChatBaseURL(srv),
			APIKey: "test-key", Model: "gpt-4.1"})
	}
	window := func(n int) *llm.Capability { return &llm.Capability{ToolUse: true, MaxContextTokens: n} }
	for _, tt := range []struct {
		name   string
		serve  func(*testing.T, ...llmtest.Reply) (*llmtest.Server, llm.Provider)
		cap    *llm.Capability
		budget llm.BudgetInputs
		want   []any // per request; nil: no cap sent
	}{
		{"window, then window minus the reported size", kimi, window(1_000_000), llm.BudgetInputs{},
			[]any{1_000_000.0, 999_971.0}},
		{"env hard cap", kimi, window(1_000_000), llm.BudgetInputs{MaxCompletionTokensOverride: "8192"},
			[]any{8192.0, 8192.0}},
		{"env 0 sends no cap", kimi, window(1_000_000), llm.BudgetInputs{MaxCompletionTokensOverride: "0"},
			[]any{nil, nil}},
		{"unknown window falls back", kimi, window(0), llm.BudgetInputs{}, []any{32_000.0, 32_000.0}},
		{"reserved size is the fallback", kimi, window(0), llm.BudgetInputs{ReservedContextSize: 50_000},
			[]any{50_000.0, 50_000.0}},
		{"generic OpenAI clamps to 128 Ki", generic, window(1_000_000), llm.BudgetInputs{},
			[]any{131_072.0, 131_072.0}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv, p := tt.serve(t, llmtest.Text("one").WithUsage(llm.TokenUsage{InputOther: 7, Output: 22}),
				llmtest.Text("two"))
			h := newHarness(t, agenttest.Provider(p), agenttest.Capability(tt.cap), agenttest.Budget(tt.budget))
			h.Prompt("first")
			h.Prompt("second")
			var got []any
			for _, r := range srv.Requests() {
				body := r.JSON(t)
				v, ok := body["max_completion_tokens"]
				if !ok {
					v = body["max_tokens"]
				}
				got = append(got, v)
				if r.Rejected != 0 {
					t.Errorf("request rejected: %d %s", r.Rejected, r.RejectReason)
				}
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("completion caps (-want +got):\n%s", d)
			}
			h.ExpectResumeMatches()
		})
	}
}

func TestAdapterS23MediaDowngrade(t *testing.T) {
	image := llm.ImagePart("data:image/png;base64,iVBORw0KGgo=")
	shot := &looptest.Tool{Name: "Screenshot", Accesses: loop.None(),
		Run: func(context.Context, json.RawMessage, loop.ExecCtx) (loop.ToolResult, error) {
			return loop.ToolResult{Output: loop.PartsOutput(llm.TextPart("screen:"), image)}, nil
		}}
	for _, tt := range []struct {
		name       string
		cap        *llm.Capability
		wantMarker bool
	}{
		{"model without image input", &llm.Capability{ToolUse: true, MaxContextTokens: 100_000}, true},
		{"unknown capability", nil, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, agenttest.Tools(shot), agenttest.Capability(tt.cap))
			h.Model(call("c1", "Screenshot", `{}`), scripted.Text("seen"))
			h.Prompt("look")
			sent := h.Requests()[1].Messages[2] // user, assistant, tool
			marker := "[image omitted: current model has no image input]"
			if got := strings.Contains(llm.ExtractText(sent, ""), marker); got != tt.wantMarker {
				t.Errorf("request has the marker: %v, want %v (%+v)", got, tt.wantMarker, sent.Content)
			}
			hist := agentOf(h).History()
			if !hasPart(hist[2].Content, llm.PartImageURL) {
				t.Errorf("history lost the image: %+v", hist[2].Content)
			}
			h.ExpectResumeMatches()
		})
	}
}

func TestAdapterS24PromptVideo(t *testing.T) {
	h := newHarness(t, agenttest.Capability(&llm.Capability{ToolUse: true, ImageIn: true, MaxContextTokens: 100_000}))
	h.Model(scripted.Text("I will open it."))
	input := []llm.ContentPart{llm.TextPart("watch this"), llm.VideoPart("file:///home/user/clips/a%20b.mp4", "")}
	if _, err := h.Agent().Prompt(t.Context(), input, nil); err != nil {
		t.Fatal(err)
	}
	h.Wait()
	first := agentOf(h).History()[0]
	want := []llm.ContentPart{llm.TextPart("watch this"), llm.TextPart(`<video path="/home/user/clips/a b.mp4"></video>`)}
	if d := cmp.Diff(want, first.Content); d != "" {
		t.Errorf("stored prompt (-want +got):\n%s", d)
	}
	for i, r := range h.Requests() {
		b, _ := json.Marshal(r.Messages)
		if strings.Contains(string(b), "file://") {
			t.Errorf("request %d sent a file:// URL: %s", i, b)
		}
	}
	h.ExpectResumeMatches()
}

// contentPartRecords are the parts of the content.part records, as JSON.
func contentPartRecords(h *agenttest.Harness) []string {
	var out []string
	for _, r := range h.Records() {
		s := r.String()
		if i := strings.Index(s, `"part":`); strings.Contains(s, `"type":"content.part"`) && i >= 0 {
			out = append(out, s[i:strings.Index(s[i:], "}")+i+1])
		}
	}
	return out
}

func hasPart(parts []llm.ContentPart, t llm.PartType) bool {
	for _, p := range parts {
		if p.Type == t {
			return true
		}
	}
	return false
}
