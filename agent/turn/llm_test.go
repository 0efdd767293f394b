package turn_test

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kimigo/kimigo/agent/turn"
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/llm/scripted"
	"github.com/kimigo/kimigo/loop"
)

// recorder collects everything the adapter reports through ChatParams.
type recorder struct {
	deltas []string
	parts  []llm.ContentPart
	failOn int // fail the n-th part callback (1-based); 0 never
}

func (r *recorder) params(msgs ...llm.Message) loop.ChatParams {
	return loop.ChatParams{
		Messages:     msgs,
		Tools:        []llm.Tool{},
		OnTextDelta:  func(s string) { r.deltas = append(r.deltas, "text:"+s) },
		OnThinkDelta: func(s string) { r.deltas = append(r.deltas, "think:"+s) },
		OnToolCallDelta: func(d loop.ToolCallDelta) {
			r.deltas = append(r.deltas, "call:"+d.ToolCallID+":"+d.Name+":"+d.ArgumentsPart)
		},
		OnTextPart:  r.part,
		OnThinkPart: r.part,
		Trace:       &loop.RequestTrace{},
	}
}

func (r *recorder) part(p llm.ContentPart) error {
	r.parts = append(r.parts, p)
	if r.failOn == len(r.parts) {
		return errors.New("transcript write failed")
	}
	return nil
}

func TestAdapterBridgesDeltasAndReplaysParts(t *testing.T) {
	resp := scripted.Response{
		Parts: []llm.StreamPart{
			llm.ContentStreamPart(llm.ThinkPart("hm", "")),
			llm.ContentStreamPart(llm.ThinkPart("", "sig")),
			llm.ContentStreamPart(llm.TextPart("a")),
			llm.ContentStreamPart(llm.TextPart("b")),
			// A fragment for index 1 before its header: buffered, then flushed.
			{Kind: llm.KindToolCallPart, ArgumentsPart: `{"x"`, Index: 1, Indexed: true},
			{Kind: llm.KindToolCall, ToolCall: llm.ToolCall{ID: "c1", Name: "f", Arguments: ""}, Index: 1, Indexed: true},
			{Kind: llm.KindToolCallPart, ArgumentsPart: `:1}`, Index: 1, Indexed: true},
		},
		ID: "msg-1", TraceID: "tr-1", Usage: &llm.TokenUsage{InputOther: 5, Output: 2},
	}
	p := scripted.New(scripted.Options{Responses: []scripted.Response{resp}})
	a := turn.NewLLM(turn.LLMOptions{Provider: p, SystemPrompt: "sys"})
	var r recorder
	params := r.params(llm.UserMessage("hi"))
	got, err := a.Chat(t.Context(), params)
	if err != nil {
		t.Fatal(err)
	}
	wantDeltas := []string{"think:hm", "think:", "text:a", "text:b", "call:c1:f:", `call:c1:f:{"x"`, "call:c1:f::1}"}
	if d := cmp.Diff(wantDeltas, r.deltas); d != "" {
		t.Errorf("deltas (-want +got):\n%s", d)
	}
	wantParts := []llm.ContentPart{llm.ThinkPart("hm", "sig"), llm.TextPart("ab")}
	if d := cmp.Diff(wantParts, r.parts); d != "" {
		t.Errorf("parts (-want +got):\n%s", d)
	}
	if got.MessageID != "msg-1" || got.TraceID != "tr-1" || params.Trace.TraceID() != "tr-1" ||
		got.Usage.InputOther != 5 || got.Timing == nil || got.FinishReason != llm.FinishToolCalls {
		t.Errorf("response = %+v", got)
	}
	// Generate discards a fragment that came before its header (spec 01
	// §2.2 step 9); only the live bridge shows it. Providers buffer such
	// fragments themselves, so this does not arise on a real wire.
	if d := cmp.Diff([]llm.ToolCall{{ID: "c1", Name: "f", Arguments: `:1}`}}, got.ToolCalls); d != "" {
		t.Errorf("tool calls (-want +got):\n%s", d)
	}
	if req := p.Requests()[0]; req.System != "sys" {
		t.Errorf("system prompt = %q", req.System)
	}
}

func TestAdapterFailureDeliversNoParts(t *testing.T) {
	boom := &llm.Error{Kind: llm.KindConnection, Message: "reset"}
	p := scripted.New(scripted.Options{Responses: []scripted.Response{{
		Parts:     []llm.StreamPart{llm.ContentStreamPart(llm.TextPart("par"))},
		StreamErr: boom, ErrAfter: 1,
	}}})
	var r recorder
	_, err := turn.NewLLM(turn.LLMOptions{Provider: p}).Chat(t.Context(), r.params(llm.UserMessage("x")))
	if !errors.Is(err, boom) {
		t.Fatalf("Chat error = %v, want the stream error", err)
	}
	if len(r.parts) != 0 {
		t.Errorf("parts delivered after a failure: %v", r.parts)
	}
	if d := cmp.Diff([]string{"text:par"}, r.deltas); d != "" {
		t.Errorf("live deltas of the failed attempt (-want +got):\n%s", d)
	}
}

func TestAdapterPartCallbackErrorAbortsChat(t *testing.T) {
	p := scripted.New(scripted.Options{Responses: []scripted.Response{scripted.Think("t", "x")}})
	r := recorder{failOn: 1}
	if _, err := turn.NewLLM(turn.LLMOptions{Provider: p}).Chat(t.Context(), r.params(llm.UserMessage("x"))); err == nil ||
		err.Error() != "transcript write failed" {
		t.Fatalf("Chat error = %v, want the callback's error", err)
	}
	if len(r.parts) != 1 {
		t.Errorf("parts after the failing callback were delivered: %v", r.parts)
	}
}

func TestSL37AdapterMediaDowngrade(t *testing.T) {
	user := llm.Message{Role: llm.RoleUser, Content: []llm.ContentPart{llm.TextPart("look"), llm.ImagePart("https://x/a.png")}}
	for _, tt := range []struct {
		name string
		cap  *llm.Capability
		want []llm.ContentPart
	}{
		{"no image input", &llm.Capability{ToolUse: true, MaxContextTokens: 128000},
			[]llm.ContentPart{llm.TextPart("look"), llm.TextPart("[image omitted: current model has no image input]")}},
		{"unknown capability", &llm.Capability{}, user.Content},
		{"absent capability", nil, user.Content},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := scripted.New(scripted.Options{Responses: []scripted.Response{scripted.Text("ok")}})
			var r recorder
			if _, err := turn.NewLLM(turn.LLMOptions{Provider: p, Capability: tt.cap}).Chat(t.Context(), r.params(user)); err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, p.Requests()[0].Messages[0].Content); d != "" {
				t.Errorf("sent content (-want +got):\n%s", d)
			}
			if user.Content[1].Type != llm.PartImageURL {
				t.Error("history message was modified")
			}
		})
	}
}

func TestDowngradeSharesUntouchedMessages(t *testing.T) {
	msgs := []llm.Message{
		llm.UserMessage("plain"),
		{Role: llm.RoleUser, Content: []llm.ContentPart{llm.AudioPart("a"), llm.VideoPart("v", ""), llm.ImagePart("i")}},
	}
	got := turn.DowngradeUnsupportedMedia(msgs, &llm.Capability{ImageIn: true})
	want := []llm.ContentPart{llm.TextPart("[audio omitted: current model has no audio input]"),
		llm.TextPart("[video omitted: current model has no video input]"), llm.ImagePart("i")}
	if d := cmp.Diff(want, got[1].Content); d != "" {
		t.Errorf("downgraded (-want +got):\n%s", d)
	}
	if &got[0].Content[0] != &msgs[0].Content[0] {
		t.Error("untouched message was copied")
	}
	if msgs[1].Content[0].Type != llm.PartAudioURL {
		t.Error("input slice was modified")
	}
}

func TestAdapterAppliesCompletionBudgetToACopy(t *testing.T) {
	p := scripted.New(scripted.Options{Responses: []scripted.Response{scripted.Text("ok")}})
	var seen int
	a := turn.NewLLM(turn.LLMOptions{
		Provider:          p,
		Capability:        &llm.Capability{MaxContextTokens: 262144},
		Budget:            llm.ResolveCompletionBudget(llm.BudgetInputs{}),
		UsedContextTokens: func() int { return 100000 },
		Generate: func(ctx context.Context, pr llm.Provider, req llm.Request, cb llm.Callbacks, f loop.RequestLogFields) (*llm.Result, error) {
			seen = pr.MaxCompletionTokens()
			return llm.Generate(ctx, pr, req, cb)
		},
	})
	var r recorder
	if _, err := a.Chat(t.Context(), r.params(llm.UserMessage("x"))); err != nil {
		t.Fatal(err)
	}
	if seen != 162144 || p.MaxCompletionTokens() != 0 {
		t.Errorf("request cap %d (want 162144), long-lived provider cap %d (want 0)", seen, p.MaxCompletionTokens())
	}
}

func TestAdapterS20IndexedDeltasBeforeHeader(t *testing.T) {
	for _, tt := range []struct {
		name  string
		parts []llm.StreamPart
		want  []string
	}{
		{"indexed fragment before its header", []llm.StreamPart{
			{Kind: llm.KindToolCallPart, ArgumentsPart: `{"a"`, Index: 0, Indexed: true},
			{Kind: llm.KindToolCall, ToolCall: llm.ToolCall{ID: "c1", Name: "Read"}, Index: 0, Indexed: true},
			{Kind: llm.KindToolCallPart, ArgumentsPart: `:1}`, Index: 0, Indexed: true},
		}, []string{"call:c1:Read:", `call:c1:Read:{"a"`, "call:c1:Read::1}"}},
		{"unindexed fragments follow the last header", []llm.StreamPart{
			{Kind: llm.KindToolCallPart, ArgumentsPart: `lost`},
			{Kind: llm.KindToolCall, ToolCall: llm.ToolCall{ID: "c1", Name: "Read"}},
			{Kind: llm.KindToolCallPart, ArgumentsPart: `{}`},
			{Kind: llm.KindToolCall, ToolCall: llm.ToolCall{ID: "c2", Name: "Glob", Arguments: `{"p"`}},
			{Kind: llm.KindToolCallPart, ArgumentsPart: `:1}`},
		}, []string{"call:c1:Read:", "call:c1:Read:{}", `call:c2:Glob:{"p"`, "call:c2:Glob::1}"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := scripted.New(scripted.Options{Responses: []scripted.Response{{Parts: tt.parts}}})
			var r recorder
			if _, err := turn.NewLLM(turn.LLMOptions{Provider: p}).Chat(t.Context(), r.params(llm.UserMessage("x"))); err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, r.deltas); d != "" {
				t.Errorf("tool-call deltas (-want +got):\n%s", d)
			}
		})
	}
}

func TestAdapterSnapshotIsReadPerRequest(t *testing.T) {
	p := scripted.New(scripted.Options{Responses: []scripted.Response{scripted.Text("a"), scripted.Text("b")}})
	snap := turn.Snapshot{Provider: p, SystemPrompt: "first"}
	a := turn.NewLLM(turn.LLMOptions{Snapshot: func() (turn.Snapshot, error) { return snap, nil }})
	var r recorder
	if _, err := a.Chat(t.Context(), r.params(llm.UserMessage("x"))); err != nil {
		t.Fatal(err)
	}
	snap.SystemPrompt = "refreshed"
	if a.SystemPrompt() != "refreshed" {
		t.Errorf("SystemPrompt() = %q, want the snapshot's", a.SystemPrompt())
	}
	if _, err := a.Chat(t.Context(), r.params(llm.UserMessage("x"))); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, req := range p.Requests() {
		got = append(got, req.System)
	}
	if d := cmp.Diff([]string{"first", "refreshed"}, got); d != "" {
		t.Errorf("system prompts sent (-want +got):\n%s", d)
	}
	none := turn.NewLLM(turn.LLMOptions{Snapshot: func() (turn.Snapshot, error) { return turn.Snapshot{}, nil }})
	if _, err := none.Chat(t.Context(), r.params(llm.UserMessage("x"))); !errors.Is(err, turn.ErrModelNotConfigured) {
		t.Errorf("Chat without a provider = %v, want ErrModelNotConfigured", err)
	}
	if none.ModelName() != "" {
		t.Errorf("ModelName() without a provider = %q", none.ModelName())
	}
}
