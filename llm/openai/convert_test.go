package openai

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/llm/internal/wire"
)

// encodedMessages builds a request body with p and returns its messages.
func encodedMessages(t *testing.T, p *Provider, msgs ...llm.Message) any {
	t.Helper()
	b, err := p.encodeRequest(&llm.Request{Messages: msgs})
	if err != nil {
		t.Fatal(err)
	}
	var v struct{ Messages any }
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("body is not JSON: %v\n%s", err, b)
	}
	return v.Messages
}

func TestKimiMessageConversion(t *testing.T) {
	kimi := New(Options{})
	preserved := New(Options{ThinkingKeep: "all"})
	img := llm.ContentPart{Type: llm.PartImageURL, Media: &llm.MediaURL{URL: "https://x/i.png", ID: "img-1"}}
	for _, tt := range []struct {
		name string
		p    *Provider
		msg  llm.Message
		want string
	}{
		{"one text is a string", kimi, llm.UserMessage("hi"), `{"role":"user","content":"hi"}`},
		{"several parts are an array with media ids", kimi,
			llm.Message{Role: llm.RoleUser, Content: []llm.ContentPart{llm.TextPart("see"), img,
				llm.AudioPart("data:audio/wav;base64,AA=="), llm.VideoPart("ms://f1", "f1")}},
			`{"role":"user","content":[{"type":"text","text":"see"},{"type":"image_url","image_url":{"url":"https://x/i.png","id":"img-1"}},
			  {"type":"audio_url","audio_url":{"url":"data:audio/wav;base64,AA=="}},{"type":"video_url","video_url":{"url":"ms://f1","id":"f1"}}]}`},
		{"a lone image is an array", kimi, llm.Message{Role: llm.RoleUser, Content: []llm.ContentPart{img}},
			`{"role":"user","content":[{"type":"image_url","image_url":{"url":"https://x/i.png","id":"img-1"}}]}`},
		{"no parts: no content key", kimi, llm.Message{Role: llm.RoleUser}, `{"role":"user"}`},
		{"think parts join into reasoning", kimi,
			llm.Message{Role: llm.RoleAssistant, Content: []llm.ContentPart{think("a"), llm.TextPart("x"), think("b")}},
			`{"role":"assistant","content":"x","reasoning_content":"ab"}`},
		{"an empty think part still sets reasoning", kimi,
			llm.Message{Role: llm.RoleAssistant, Content: []llm.ContentPart{think(""), llm.TextPart("x")}},
			`{"role":"assistant","content":"x","reasoning_content":""}`},
		{"blank text beside tool calls is dropped", kimi,
			llm.Message{Role: llm.RoleAssistant, Content: []llm.ContentPart{llm.TextPart("  \n")},
				ToolCalls: []llm.ToolCall{call("c1", "f", "")}},
			`{"role":"assistant","tool_calls":[{"type":"function","id":"c1","function":{"name":"f","arguments":"{}"}}]}`},
		{"tool call extras are echoed", kimi,
			llm.Message{Role: llm.RoleAssistant, Content: []llm.ContentPart{llm.TextPart("ok")},
				ToolCalls: []llm.ToolCall{{ID: "c1", Name: "f", Arguments: `{"a":1}`, Extras: json.RawMessage(`{"k":"v"}`)}}},
			`{"role":"assistant","content":"ok","tool_calls":[{"type":"function","id":"c1","function":{"name":"f","arguments":"{\"a\":1}"},"extras":{"k":"v"}}]}`},
		{"name is sent", kimi, llm.Message{Role: llm.RoleUser, Name: "alice", Content: []llm.ContentPart{llm.TextPart("hi")}},
			`{"role":"user","content":"hi","name":"alice"}`},
		{"tool results may carry media", kimi, llm.ToolMessage("c1", llm.TextPart("shot"), img),
			`{"role":"tool","content":[{"type":"text","text":"shot"},{"type":"image_url","image_url":{"url":"https://x/i.png","id":"img-1"}}],"tool_call_id":"c1"}`},
		{"system messages in history stay system", kimi, llm.SystemMessage("note"), `{"role":"system","content":"note"}`},
		{"preserved thinking does not touch users", preserved, llm.UserMessage("hi"), `{"role":"user","content":"hi"}`},
		{"preserved thinking keeps real reasoning", preserved,
			llm.Message{Role: llm.RoleAssistant, Content: []llm.ContentPart{think("r"), llm.TextPart("x")}},
			`{"role":"assistant","content":"x","reasoning_content":"r"}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := encodedMessages(t, tt.p, tt.msg)
			if d := cmp.Diff([]any{decodeJSON(t, tt.want)}, got); d != "" {
				t.Errorf("message (-want +got):\n%s", d)
			}
		})
	}
}

func TestOpenAIMessageConversion(t *testing.T) {
	openai := New(Options{Flavour: OpenAI})
	extract := New(Options{Flavour: OpenAI, ToolMessageConversion: ToolMessageExtractText})
	img := llm.ContentPart{Type: llm.PartImageURL, Media: &llm.MediaURL{URL: "https://x/i.png", ID: "img-1"}}
	for _, tt := range []struct {
		name string
		p    *Provider
		msgs []llm.Message
		want string
	}{
		{"blank text beside tool calls is kept", openai,
			[]llm.Message{{Role: llm.RoleAssistant, Content: []llm.ContentPart{llm.TextPart(" ")}, ToolCalls: []llm.ToolCall{call("c", "f", "{}")}},
				llm.ToolMessage("c", llm.TextPart("r"))},
			`[{"role":"assistant","content":" ","tool_calls":[{"type":"function","id":"c","function":{"name":"f","arguments":"{}"}}]},
			  {"role":"tool","content":"r","tool_call_id":"c"}]`},
		{"no extras, no media ids", openai,
			[]llm.Message{{Role: llm.RoleUser, Content: []llm.ContentPart{img}},
				{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "c", Name: "f", Arguments: "{}", Extras: json.RawMessage(`{"k":1}`)}}},
				llm.ToolMessage("c", llm.TextPart("r"))},
			`[{"role":"user","content":[{"type":"image_url","image_url":{"url":"https://x/i.png"}}]},
			  {"role":"assistant","tool_calls":[{"type":"function","id":"c","function":{"name":"f","arguments":"{}"}}]},
			  {"role":"tool","content":"r","tool_call_id":"c"}]`},
		{"no preserved-thinking backfill", New(Options{Flavour: OpenAI, ThinkingKeep: "all"}),
			[]llm.Message{llm.AssistantMessage("a")}, `[{"role":"assistant","content":"a"}]`},
		{"several tool texts are parts", openai,
			[]llm.Message{llm.ToolMessage("c", llm.TextPart("a"), llm.TextPart("b"))},
			`[{"role":"tool","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}],"tool_call_id":"c"}]`},
		{"extract_text joins tool texts", extract,
			[]llm.Message{llm.ToolMessage("c", llm.TextPart("a"), llm.TextPart("b"))},
			`[{"role":"tool","content":"ab","tool_call_id":"c"}]`},
		{"audio and video are replaced by notes", openai,
			[]llm.Message{llm.ToolMessage("c", llm.TextPart("out"), llm.AudioPart("a.wav"), llm.VideoPart("v.mp4", ""))},
			`[{"role":"tool","content":"out\n(audio omitted: not supported by this provider)\n(video omitted: not supported by this provider)","tool_call_id":"c"}]`},
		{"trailing tool images are attached at the end", openai,
			[]llm.Message{llm.ToolMessage("c", img)},
			`[{"role":"tool","content":"(see attached media)","tool_call_id":"c"},
			  {"role":"user","content":[{"type":"text","text":"Attached media from tool result:"},{"type":"image_url","image_url":{"url":"https://x/i.png"}}]}]`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if d := cmp.Diff(decodeJSON(t, tt.want), encodedMessages(t, tt.p, tt.msgs...)); d != "" {
				t.Errorf("messages (-want +got):\n%s", d)
			}
		})
	}
}

func TestConversionDoesNotMutateHistory(t *testing.T) {
	history := []llm.Message{
		llm.UserMessage("go"),
		llm.AssistantMessage("", call("Read:1", "Read", "")),
		llm.ToolMessage("Read:1", llm.TextPart("x"), llm.ImagePart("https://x/i.png")),
	}
	before := make([]llm.Message, len(history))
	for i, m := range history {
		before[i] = m.Clone()
	}
	for _, p := range []*Provider{New(Options{ThinkingKeep: "all"}), New(Options{Flavour: OpenAI})} {
		encodedMessages(t, p, history...)
	}
	if d := cmp.Diff(before, history); d != "" {
		t.Errorf("history changed (-before +after):\n%s", d)
	}
}

func TestSystemPromptComesFirst(t *testing.T) {
	b, err := New(Options{}).encodeRequest(&llm.Request{System: "sys", Messages: []llm.Message{llm.UserMessage("u")}})
	if err != nil {
		t.Fatal(err)
	}
	var v struct{ Messages any }
	_ = json.Unmarshal(b, &v)
	if d := cmp.Diff(decodeJSON(t, `[{"role":"system","content":"sys"},{"role":"user","content":"u"}]`), v.Messages); d != "" {
		t.Errorf("messages (-want +got):\n%s", d)
	}
}

func TestRequestBytesAreStable(t *testing.T) {
	temp, topP := 0.3, 0.9
	p := New(Options{PromptCacheKey: "s", GenerationKwargs: GenerationKwargs{Temperature: &temp, TopP: &topP},
		ExtraBody: map[string]json.RawMessage{"b": json.RawMessage(`1`), "a": json.RawMessage(`2`), "c": json.RawMessage(`3`)}}).
		WithThinking("high").(*Provider)
	req := &llm.Request{System: "s", Tools: []llm.Tool{weatherTool}, Messages: weatherHistory()}
	first, err := p.encodeRequest(req)
	if err != nil {
		t.Fatal(err)
	}
	for range 20 {
		again, _ := p.encodeRequest(req)
		if string(again) != string(first) {
			t.Fatalf("request bytes differ between builds:\n%s\n%s", first, again)
		}
	}
}

// sameMessageVariants are a message with every field set, a copy of it in
// other memory, and variants that each differ from it in one field, a nil
// slice or pointer against an empty or set one included.
func sameMessageVariants() []wireMessage {
	reasoning, otherReasoning := "think", "thought"
	base := wireMessage{
		role: llm.RoleAssistant, kind: contentParts, text: "t", name: "n", reasoning: &reasoning, toolCallID: "id",
		parts:     []llm.ContentPart{llm.TextPart("a"), {Type: llm.PartImageURL, Media: &llm.MediaURL{URL: "u", ID: "i"}}},
		toolCalls: []llm.ToolCall{{ID: "c", Name: "Read", Arguments: `{"a":1}`, Extras: json.RawMessage(`{"x":1}`)}},
		tools:     []llm.Tool{{Name: "T", Description: "d", Parameters: json.RawMessage(`{"type":"object"}`)}},
	}
	clone := func(f func(m *wireMessage)) wireMessage {
		m := base
		m.parts = slices.Clone(base.parts)
		m.parts[1].Media = &llm.MediaURL{URL: "u", ID: "i"}
		m.toolCalls = slices.Clone(base.toolCalls)
		m.toolCalls[0].Extras = slices.Clone(base.toolCalls[0].Extras)
		m.tools = slices.Clone(base.tools)
		r := strings.Clone(reasoning)
		m.reasoning = &r
		f(&m)
		return m
	}
	return []wireMessage{
		base,
		clone(func(m *wireMessage) {}),
		clone(func(m *wireMessage) { m.role = llm.RoleUser }),
		clone(func(m *wireMessage) { m.kind = contentString }),
		clone(func(m *wireMessage) { m.text = "u" }),
		clone(func(m *wireMessage) { m.name = "m" }),
		clone(func(m *wireMessage) { m.toolCallID = "id2" }),
		clone(func(m *wireMessage) { m.reasoning = nil }),
		clone(func(m *wireMessage) { m.reasoning = &otherReasoning }),
		clone(func(m *wireMessage) { m.parts = nil }),
		clone(func(m *wireMessage) { m.parts = []llm.ContentPart{} }),
		clone(func(m *wireMessage) { m.parts = m.parts[:1] }),
		clone(func(m *wireMessage) { m.parts[0].Type = llm.PartThink }),
		clone(func(m *wireMessage) { m.parts[0].Text = "b" }),
		clone(func(m *wireMessage) { m.parts[0].Think = "b" }),
		clone(func(m *wireMessage) { m.parts[0].Encrypted = "b" }),
		clone(func(m *wireMessage) { m.parts[1].Media = nil }),
		clone(func(m *wireMessage) { m.parts[1].Media.URL = "v" }),
		clone(func(m *wireMessage) { m.parts[1].Media.ID = "j" }),
		clone(func(m *wireMessage) { m.toolCalls = nil }),
		clone(func(m *wireMessage) { m.toolCalls = []llm.ToolCall{} }),
		clone(func(m *wireMessage) { m.toolCalls[0].ID = "d" }),
		clone(func(m *wireMessage) { m.toolCalls[0].Name = "Write" }),
		clone(func(m *wireMessage) { m.toolCalls[0].Arguments = `{"a":2}` }),
		clone(func(m *wireMessage) { m.toolCalls[0].Extras = nil }),
		clone(func(m *wireMessage) { m.toolCalls[0].Extras = json.RawMessage{} }),
		clone(func(m *wireMessage) { m.toolCalls[0].Extras = json.RawMessage(`{"x":2}`) }),
		clone(func(m *wireMessage) { m.tools = nil }),
		clone(func(m *wireMessage) { m.tools = []llm.Tool{} }),
		clone(func(m *wireMessage) { m.tools[0].Name = "U" }),
		clone(func(m *wireMessage) { m.tools[0].Description = "e" }),
		clone(func(m *wireMessage) { m.tools[0].Parameters = json.RawMessage(`{"type":"string"}`) }),
		clone(func(m *wireMessage) { m.tools[0].Deferred = true }),
	}
}

// sameMessage, which wire.Sizes uses to spare re-encoding a repeated
// message, agrees with reflect.DeepEqual, which it replaced, on every pair
// of a message and its one-field variants; messages it calls the same
// encode to the same bytes; and it compares every field wireMessage has.
func TestSameMessageIsDeepEqual(t *testing.T) {
	if n := reflect.TypeFor[wireMessage]().NumField(); n != 9 {
		t.Fatalf("wireMessage has %d fields; sameMessage and this test compare 9", n)
	}
	vs := sameMessageVariants()
	for _, e := range []*encoder{{kimi: true, reasoningKey: "reasoning_content"}, {reasoningKey: "reasoning"}} {
		for i := range vs {
			for j := range vs {
				a, b := &vs[i], &vs[j]
				same, deep := sameMessage(a, b), reflect.DeepEqual(a, b)
				if same != deep {
					t.Errorf("variants %d and %d: sameMessage %v, reflect.DeepEqual %v", i, j, same, deep)
				}
				if !same {
					continue
				}
				ea, errA := appendMessage(nil, a, e)
				eb, errB := appendMessage(nil, b, e)
				if string(ea) != string(eb) || (errA == nil) != (errB == nil) {
					t.Errorf("variants %d and %d are the same but encode differently:\n%s\n%s", i, j, ea, eb)
				}
			}
		}
	}
}

// A request whose messages differ from the last request's in one field at
// the same position is measured afresh: every body is as long as it says,
// alternating between the message and each of its variants.
func TestRepeatedMessagesAreMeasuredByTheirFields(t *testing.T) {
	for _, fl := range []Flavour{Kimi, OpenAI} {
		p := New(Options{Flavour: fl, APIKey: "k", Model: "m"})
		vs := sameMessageVariants()
		for i := range vs {
			for _, m := range []*wireMessage{&vs[0], &vs[i]} {
				e := &encoder{kimi: fl == Kimi, reasoningKey: p.dialect.outbound()}
				body, err := wire.NewBody(wire.BodyParts[wireMessage]{
					Head: []byte(`[`), Tail: []byte(`]`), Messages: []wireMessage{*m},
					Encode: func(dst []byte, m *wireMessage) ([]byte, error) { return appendMessage(dst, m, e) },
					Sizes:  p.sizes, Key: *e, Equal: sameMessage,
				})
				if err != nil {
					t.Fatal(err)
				}
				b, err := body.Bytes()
				if err != nil {
					t.Fatal(err)
				}
				if int64(len(b)) != body.Len() {
					t.Errorf("%v, variant %d: body of %d bytes says it has %d", fl, i, len(b), body.Len())
				}
			}
		}
	}
}
