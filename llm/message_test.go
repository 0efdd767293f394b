package llm_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/llm/plainjson"
)

func TestContentPartJSON(t *testing.T) {
	for _, tt := range []struct {
		part llm.ContentPart
		json string
	}{
		{llm.TextPart(""), `{"type":"text","text":""}`},
		{llm.TextPart("a<b>&"), `{"type":"text","text":"a<b>&"}`},
		{llm.ThinkPart("hm", ""), `{"type":"think","think":"hm"}`},
		{llm.ThinkPart("", "sig"), `{"type":"think","think":"","encrypted":"sig"}`},
		{llm.ImagePart("data:image/png;base64,AA"), `{"type":"image_url","imageUrl":{"url":"data:image/png;base64,AA"}}`},
		{llm.AudioPart("https://a/x.mp3"), `{"type":"audio_url","audioUrl":{"url":"https://a/x.mp3"}}`},
		{llm.VideoPart("ms://f1", "f1"), `{"type":"video_url","videoUrl":{"url":"ms://f1","id":"f1"}}`},
	} {
		b, err := marshalNoEscape(tt.part)
		if err != nil || string(b) != tt.json {
			t.Errorf("Marshal(%+v) = %s, %v; want %s", tt.part, b, err, tt.json)
			continue
		}
		var back llm.ContentPart
		if err := json.Unmarshal(b, &back); err != nil {
			t.Errorf("Unmarshal(%s): %v", b, err)
		}
		if d := cmp.Diff(tt.part, back); d != "" {
			t.Errorf("round trip of %s (-want +got):\n%s", b, d)
		}
	}
}

// marshalNoEscape encodes the way the record writer does: without HTML
// escaping, so persisted text stays as written.
func marshalNoEscape(v any) ([]byte, error) { return plainjson.Marshal(v) }

func TestContentPartJSONErrorsNameTheProblem(t *testing.T) {
	for in, want := range map[string]string{
		`{"type":"hologram"}`:  `unknown type "hologram"`,
		`{"type":"image_url"}`: "image_url without imageUrl",
	} {
		var p llm.ContentPart
		err := json.Unmarshal([]byte(in), &p)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Unmarshal(%s) error = %v, want it to mention %q", in, err, want)
		}
	}
}

func TestMessageJSON(t *testing.T) {
	m := llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{
		{ID: "c1", Name: "Read", Arguments: `{"path":"a.go"}`},
		{ID: "c2", Name: "Glob", Extras: json.RawMessage(`{"k":1}`)},
	}}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"role":"assistant","content":[],"toolCalls":[` +
		`{"type":"function","id":"c1","name":"Read","arguments":"{\"path\":\"a.go\"}"},` +
		`{"type":"function","id":"c2","name":"Glob","arguments":null,"extras":{"k":1}}]}`
	if string(b) != want {
		t.Errorf("Marshal = %s\nwant      %s", b, want)
	}
	var back llm.Message
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	m.Content = []llm.ContentPart{}
	if d := cmp.Diff(m, back); d != "" {
		t.Errorf("round trip (-want +got):\n%s", d)
	}
}

func TestMessageCloneSharesNothing(t *testing.T) {
	m := llm.Message{Role: llm.RoleUser, Content: []llm.ContentPart{llm.ImagePart("u")},
		ToolCalls: []llm.ToolCall{{ID: "c", Extras: json.RawMessage(`{}`)}}}
	c := m.Clone()
	c.Content[0].Media.URL = "changed"
	c.ToolCalls[0].Extras[0] = '['
	if m.Content[0].Media.URL != "u" || string(m.ToolCalls[0].Extras) != "{}" {
		t.Error("Clone shares memory with the original")
	}
}

func TestToolDeclarationOnly(t *testing.T) {
	decl := llm.Message{Role: llm.RoleSystem, Tools: []llm.Tool{{Name: "x"}}}
	if !decl.IsToolDeclarationOnly() {
		t.Error("declaration-only message not recognised")
	}
	decl.Content = []llm.ContentPart{llm.TextPart("t")}
	if decl.IsToolDeclarationOnly() {
		t.Error("message with content taken for declaration-only")
	}
	if got := llm.ExtractText(llm.Message{Content: []llm.ContentPart{llm.TextPart("a"), llm.ThinkPart("t", ""), llm.TextPart("b")}}, "-"); got != "a-b" {
		t.Errorf("ExtractText = %q", got)
	}
}

func TestNormalizeToolCalls(t *testing.T) {
	call := func(id string) llm.Message {
		return llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: id, Name: "f"}}}
	}
	calls := func(ids ...string) llm.Message {
		m := llm.Message{Role: llm.RoleAssistant}
		for _, id := range ids {
			m.ToolCalls = append(m.ToolCalls, llm.ToolCall{ID: id, Name: "f"})
		}
		return m
	}
	result := func(id string) llm.Message { return llm.ToolMessage(id, llm.TextPart("r")) }
	ids := func(ms []llm.Message) []string {
		var out []string
		for _, m := range ms {
			for _, c := range m.ToolCalls {
				out = append(out, c.ID)
			}
			if m.ToolCallID != "" {
				out = append(out, m.ToolCallID)
			}
		}
		return out
	}
	long := strings.Repeat("x", 70)
	for _, tt := range []struct {
		name string
		in   []llm.Message
		want []string
	}{
		{"colon replaced in call and result", []llm.Message{call("Read:9"), result("Read:9")}, []string{"Read_9", "Read_9"}},
		{"legal id keeps itself, clash gets suffix", []llm.Message{call("a:b"), result("a:b"), call("a_b"), result("a_b")},
			[]string{"a_b_2", "a_b_2", "a_b", "a_b"}},
		{"long id cut to 64", []llm.Message{call(long), result(long)}, []string{long[:64], long[:64]}},
		{"empty id named tool_call", []llm.Message{call("")}, []string{"tool_call"}},
		{"unchanged history untouched", []llm.Message{call("ok-1"), result("ok-1")}, []string{"ok-1", "ok-1"}},
		{"repeat within a message gets a fresh id, results pair in order",
			[]llm.Message{calls("x", "x"), result("x"), result("x")}, []string{"x", "x_2", "x", "x_2"}},
		{"repeat in a later message gets a fresh id", []llm.Message{call("x"), result("x"), call("x"), result("x")},
			[]string{"x", "x", "x_2", "x_2"}},
		{"fresh id skips taken ones", []llm.Message{calls("a:b", "a_b", "a:b"), result("a:b"), result("a_b"), result("a:b")},
			[]string{"a_b_2", "a_b", "a_b_3", "a_b_2", "a_b", "a_b_3"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			orig := ids(tt.in)
			got := llm.NormalizeToolCalls(tt.in)
			if d := cmp.Diff(tt.want, ids(got)); d != "" {
				t.Errorf("ids (-want +got):\n%s", d)
			}
			if d := cmp.Diff(orig, ids(tt.in)); d != "" {
				t.Errorf("input modified:\n%s", d)
			}
		})
	}
	t.Run("a call without a name is sent as unnamed_tool", func(t *testing.T) {
		in := []llm.Message{{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "c", Name: ""}, {ID: "d", Name: "f"}}}}
		got := llm.NormalizeToolCalls(in)
		if got[0].ToolCalls[0].Name != llm.UnnamedTool || got[0].ToolCalls[1].Name != "f" || in[0].ToolCalls[0].Name != "" {
			t.Errorf("names = %q, %q (input %q)", got[0].ToolCalls[0].Name, got[0].ToolCalls[1].Name, in[0].ToolCalls[0].Name)
		}
	})
}

func TestUsage(t *testing.T) {
	u := llm.TokenUsage{InputOther: 70, Output: 50, InputCacheRead: 10, InputCacheCreation: 20}
	v := u.Add(llm.TokenUsage{InputOther: 4, Output: 3, InputCacheRead: 1, InputCacheCreation: 2})
	if v.InputTotal() != 107 || v.Output != 53 || v.GrandTotal() != 160 {
		t.Errorf("Add/InputTotal = %+v", v)
	}
	var back llm.TokenUsage
	if err := json.Unmarshal([]byte(`{"inputOther":5,"output":1}`), &back); err != nil || back != (llm.TokenUsage{InputOther: 5, Output: 1}) {
		t.Errorf("missing cache fields must read as zero: %+v %v", back, err)
	}
	if got := llm.ChatCompletionsUsage(12, 6, 2); got != (llm.TokenUsage{InputOther: 10, Output: 6, InputCacheRead: 2}) {
		t.Errorf("ChatCompletionsUsage = %+v", got)
	}
}

func TestFinishReasons(t *testing.T) {
	cc := map[string]llm.FinishReason{"stop": llm.FinishCompleted, "tool_calls": llm.FinishToolCalls,
		"function_call": llm.FinishToolCalls, "length": llm.FinishTruncated, "content_filter": llm.FinishFiltered,
		"weird": llm.FinishOther, "": llm.FinishNone}
	for raw, want := range cc {
		if got := llm.ChatCompletionsFinish(raw); got != want {
			t.Errorf("ChatCompletionsFinish(%q) = %q, want %q", raw, got, want)
		}
	}
	an := map[string]llm.FinishReason{"end_turn": llm.FinishCompleted, "stop_sequence": llm.FinishCompleted,
		"tool_use": llm.FinishToolCalls, "max_tokens": llm.FinishTruncated, "pause_turn": llm.FinishPaused,
		"refusal": llm.FinishFiltered, "new_reason": llm.FinishOther}
	for raw, want := range an {
		if got := llm.AnthropicFinish(raw); got != want {
			t.Errorf("AnthropicFinish(%q) = %q, want %q", raw, got, want)
		}
	}
}

func TestModelCapabilityRegistry(t *testing.T) {
	for _, tt := range []struct {
		wire, model string
		want        llm.Capability
	}{
		{llm.WireOpenAI, "o3-mini", llm.Capability{Thinking: true, ToolUse: true}},
		{llm.WireOpenAI, "GPT-4o-mini", llm.Capability{ImageIn: true, ToolUse: true}},
		{llm.WireOpenAI, "gpt-3.5-turbo", llm.Capability{ToolUse: true}},
		{llm.WireOpenAIResponses, "gpt-3.5-turbo", llm.Capability{}},
		{llm.WireAnthropic, "claude-3-5-sonnet", llm.Capability{ImageIn: true, ToolUse: true}},
		{llm.WireAnthropic, "claude-sonnet-4-5", llm.Capability{ImageIn: true, Thinking: true, ToolUse: true}},
		{llm.WireGoogleGenAI, "gemini-2.5-pro", llm.Capability{ImageIn: true, VideoIn: true, AudioIn: true, ToolUse: true, Thinking: true}},
		{llm.WireGoogleGenAI, "gemini-2.0-flash", llm.Capability{ImageIn: true, VideoIn: true, AudioIn: true, ToolUse: true}},
		{llm.WireKimi, "kimi-k2", llm.Capability{}},
	} {
		got := llm.ModelCapability(tt.wire, tt.model)
		if got != tt.want {
			t.Errorf("ModelCapability(%s, %s) = %+v, want %+v", tt.wire, tt.model, got, tt.want)
		}
	}
	if !(llm.Capability{}).IsUnknown() || (llm.Capability{MaxContextTokens: 1}).IsUnknown() {
		t.Error("IsUnknown wrong")
	}
}
