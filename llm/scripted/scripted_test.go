package scripted_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/llm/scripted"
)

func run(t *testing.T, p llm.Provider) llm.Message {
	t.Helper()
	res, err := llm.Generate(t.Context(), p, llm.Request{Messages: []llm.Message{llm.UserMessage("hi")}}, llm.Callbacks{})
	if err != nil {
		t.Fatal(err)
	}
	return res.Message
}

func TestParseScriptStreamsLikeAProvider(t *testing.T) {
	rs, err := scripted.ParseScript([]byte(`{"responses":[
		{"thinking":"let me look around first","text":"Listing.","tool_calls":[{"name":"Glob","arguments":{"pattern":"*", "b": [1, 2]}},{"name":"Read","arguments":{"path":"go.mod"}}]},
		{"text":"All done."}]}`))
	if err != nil {
		t.Fatal(err)
	}
	p := scripted.New(scripted.Options{Responses: rs})
	got := run(t, p)
	want := llm.Message{Role: llm.RoleAssistant,
		Content: []llm.ContentPart{llm.ThinkPart("let me look around first", ""), llm.TextPart("Listing.")},
		ToolCalls: []llm.ToolCall{
			{ID: "offline_1", Name: "Glob", Arguments: `{"pattern":"*","b":[1,2]}`},
			{ID: "offline_2", Name: "Read", Arguments: `{"path":"go.mod"}`},
		}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("first answer (-want +got):\n%s", d)
	}
	if got := llm.ExtractText(run(t, p), ""); got != "All done." {
		t.Errorf("second answer = %q", got)
	}
	if got := llm.ExtractText(run(t, p), ""); !strings.Contains(got, "no more responses") {
		t.Errorf("exhausted answer = %q", got)
	}
	if n := len(p.Requests()); n != 3 {
		t.Errorf("recorded %d requests, want 3", n)
	}
}

func TestParseScriptErrorsNameTheField(t *testing.T) {
	for in, want := range map[string]string{
		`{"responses":[{"text":"a"},{}]}`:                                  "responses[1] has no thinking, text or tool_calls",
		`{"responses":[{"tool_calls":[{"arguments":{}}]}]}`:                "responses[0].tool_calls[0].name is empty",
		`{"responses":[{"tool_calls":[{"name":"Glob","arguments":[1]}]}]}`: "responses[0].tool_calls[0].arguments must be a JSON object",
		`{"responses":[{"txt":"a"}]}`:                                      `unknown field "txt"`,
		`{}`:                                                               `missing "responses"`,
		`not json`:                                                         "parse script",
	} {
		_, err := scripted.ParseScript([]byte(in))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseScript(%s) error = %v, want %q", in, err, want)
		}
	}
}

func TestDemoListsThenExplains(t *testing.T) {
	p := scripted.New(scripted.Options{Responses: scripted.Demo(), Model: "offline"})
	first := run(t, p)
	if len(first.ToolCalls) != 1 || first.ToolCalls[0].Name != "Glob" || first.ToolCalls[0].Arguments != `{"pattern":"*"}` {
		t.Errorf("demo first answer = %+v", first)
	}
	if got := llm.ExtractText(run(t, p), ""); !strings.Contains(got, "offline model") || !strings.Contains(got, "default_model") {
		t.Errorf("demo second answer = %q", got)
	}
}

func TestWithCopiesShareTheScript(t *testing.T) {
	p := scripted.New(scripted.Options{Responses: []scripted.Response{scripted.Text("a"), scripted.Text("b")}})
	c := p.WithThinking("high").WithMaxCompletionTokens(5000, llm.ContextBudget{UsedContextTokens: 1000, MaxContextTokens: 4000})
	if c.ThinkingEffort() != "high" || c.MaxCompletionTokens() != 3000 || p.ThinkingEffort() != "" {
		t.Errorf("copy settings: effort %q cap %d; original effort %q", c.ThinkingEffort(), c.MaxCompletionTokens(), p.ThinkingEffort())
	}
	run(t, c)
	if p.Remaining() != 1 {
		t.Errorf("copy did not consume the shared script: remaining %d", p.Remaining())
	}
}

// TestSplitStreamsInPieces: a response with Split streams long parts in
// pieces of at most Split bytes, never inside a UTF-8 sequence, a
// signature with the last piece of its thinking, a call's arguments after
// its header; and the assembled answer is the unsplit one.
func TestSplitStreamsInPieces(t *testing.T) {
	parts := []llm.StreamPart{
		llm.ContentStreamPart(llm.ThinkPart("thinking about héllo wörld for a while", "sig")),
		llm.ContentStreamPart(llm.TextPart("短い文章ですが十六バイトより長い")),
		llm.ContentStreamPart(llm.ImagePart("https://example.com/a.png")),
		{Kind: llm.KindToolCall, Index: 0, Indexed: true,
			ToolCall: llm.ToolCall{ID: "c1", Name: "Write", Arguments: `{"path":"a.txt","content":"0123456789abcdef"}`}},
		{Kind: llm.KindToolCall, Index: 1, Indexed: true, ToolCall: llm.ToolCall{ID: "c2", Name: "Read"}},
		{Kind: llm.KindToolCallPart, Index: 1, Indexed: true, ArgumentsPart: `{"path":"a long path/to/a.txt"}`},
	}
	var pieces []llm.StreamPart
	p := scripted.New(scripted.Options{Responses: []scripted.Response{{Parts: parts, Split: 8}}})
	res, err := llm.Generate(t.Context(), p, llm.Request{}, llm.Callbacks{OnMessagePart: func(sp llm.StreamPart) {
		pieces = append(pieces, sp)
	}})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(llm.MergeParts(parts), res.Message); d != "" {
		t.Errorf("assembled answer (-unsplit +split):\n%s", d)
	}
	sigs := 0
	for i, sp := range pieces {
		text := sp.Content.Text + sp.Content.Think + sp.ToolCall.Arguments + sp.ArgumentsPart
		if len(text) > 8 || !utf8.ValidString(text) {
			t.Errorf("piece %d is %q", i, text)
		}
		if sp.Content.Encrypted != "" {
			sigs++
			if next := pieces[i+1]; next.Content.Type == llm.PartThink {
				t.Errorf("the signature came before the last thinking piece")
			}
		}
	}
	if sigs != 1 || len(pieces) < 20 {
		t.Errorf("%d pieces, %d with the signature", len(pieces), sigs)
	}
}
