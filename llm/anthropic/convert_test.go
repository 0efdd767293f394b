package anthropic

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/llm/llmtest"
	"github.com/kimigo/kimigo/llm/plainjson"
)

// wireJSON converts a history and renders it compactly.
func wireJSON(t *testing.T, model string, history []llm.Message) string {
	t.Helper()
	msgs, err := convertMessages(model, history)
	if err != nil {
		t.Fatalf("convert: %v", err)
	}
	b, err := plainjson.Marshal(msgs)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// shape summarises wire messages as "role:type,type | role:type".
func shape(msgs []wireMessage) string {
	var out []string
	for _, m := range msgs {
		var types []string
		for _, b := range m.Content {
			types = append(types, string(b.blockType()))
		}
		out = append(out, string(m.Role)+":"+strings.Join(types, ","))
	}
	return strings.Join(out, " | ")
}

func TestMergeUserMessages(t *testing.T) {
	text := func(s string) wireMessage {
		return wireMessage{Role: roleUser, Content: []contentBlock{&textBlock{Type: blockText, Text: s}}}
	}
	results := func(n int) wireMessage {
		m := wireMessage{Role: roleUser}
		for range n {
			m.Content = append(m.Content, &toolResultBlock{Type: blockToolResult, Content: []contentBlock{}})
		}
		return m
	}
	mixed := wireMessage{Role: roleUser, Content: []contentBlock{&toolResultBlock{Type: blockToolResult}, &textBlock{Type: blockText}}}
	asst := wireMessage{Role: roleAssistant, Content: []contentBlock{&textBlock{Type: blockText, Text: "a"}}}
	empty := wireMessage{Role: roleUser}
	for _, tt := range []struct {
		name string
		in   []wireMessage
		want string
	}{
		{"results join results", []wireMessage{results(1), results(1)}, "user:tool_result,tool_result"},
		{"text joins results", []wireMessage{results(2), text("steer")}, "user:tool_result,tool_result,text"},
		{"text joins text", []wireMessage{text("a"), text("b"), text("c")}, "user:text,text,text"},
		{"results do not join text", []wireMessage{text("a"), results(1)}, "user:text | user:tool_result"},
		{"results do not join a mixed turn", []wireMessage{results(1), text("s"), results(1)}, "user:tool_result,text | user:tool_result"},
		{"mixed joins results", []wireMessage{results(1), mixed}, "user:tool_result,tool_result,text"},
		{"an empty user turn is not tool-results only", []wireMessage{empty, results(1)}, "user: | user:tool_result"},
		{"text joins an empty turn", []wireMessage{empty, text("x")}, "user:text"},
		{"assistant breaks the run", []wireMessage{text("a"), asst, text("b")}, "user:text | assistant:text | user:text"},
		{"assistants never merge", []wireMessage{asst, asst}, "assistant:text | assistant:text"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			in := append([]wireMessage(nil), tt.in...)
			before := shape(in)
			if got := shape(mergeUserMessages(in)); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
			if shape(in) != before {
				t.Errorf("input modified")
			}
		})
	}
}

func TestCacheControlPlacement(t *testing.T) {
	for _, tt := range []struct {
		name    string
		history []llm.Message
		last    string // JSON of the last block of the last message
	}{
		{"text", []llm.Message{llm.UserMessage("hi")}, `{"type":"text","text":"hi","cache_control":{"type":"ephemeral"}}`},
		{"tool_use ends an assistant turn", []llm.Message{llm.UserMessage("hi"), llm.AssistantMessage("", call("c1", "f", ""))},
			`{"type":"tool_use","id":"c1","name":"f","input":{},"cache_control":{"type":"ephemeral"}}`},
		{"thinking is not cacheable", []llm.Message{llm.UserMessage("hi"), {Role: llm.RoleAssistant, Content: []llm.ContentPart{llm.ThinkPart("t", "s")}}},
			`{"type":"thinking","thinking":"t","signature":"s"}`},
		{"video is not cacheable", []llm.Message{{Role: llm.RoleUser, Content: []llm.ContentPart{llm.VideoPart("https://v/1.mp4", "")}}},
			`{"type":"video","source":{"type":"url","url":"https://v/1.mp4"}}`},
		{"image", []llm.Message{{Role: llm.RoleUser, Content: []llm.ContentPart{llm.ImagePart("data:image/png;base64,AAAA")}}},
			`{"type":"image","source":{"type":"base64","media_type":"image/png","data":"AAAA"},"cache_control":{"type":"ephemeral"}}`},
		{"last merged result", parallelHistory(),
			`{"type":"tool_result","tool_use_id":"toolu_mul","content":[{"type":"text","text":"20"}],"cache_control":{"type":"ephemeral"}}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			msgs, err := convertMessages("claude-sonnet-4-5", tt.history)
			if err != nil {
				t.Fatal(err)
			}
			marks := strings.Count(mustEncode(t, msgs), "cache_control")
			last := msgs[len(msgs)-1].Content
			if got := mustEncode(t, last[len(last)-1]); got != tt.last {
				t.Errorf("last block = %s\nwant %s", got, tt.last)
			}
			if want := strings.Count(tt.last, "cache_control"); marks != want {
				t.Errorf("%d cache breakpoints in messages, want %d", marks, want)
			}
		})
	}
	if got := wireJSON(t, "m", nil); got != "[]" {
		t.Errorf("empty history = %s", got)
	}
}

func mustEncode(t *testing.T, v any) string {
	t.Helper()
	b, err := plainjson.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestConvertMessages(t *testing.T) {
	decl := llm.Message{Role: llm.RoleSystem, Tools: []llm.Tool{tool("late")}}
	history := []llm.Message{
		decl,
		llm.SystemMessage("be nice"),
		{Role: llm.RoleSystem, Content: []llm.ContentPart{llm.TextPart("rule 1"), llm.ImagePart("https://x/y.png"), llm.TextPart("rule 2")}},
		{Role: llm.RoleUser, Content: []llm.ContentPart{llm.TextPart(""), llm.AudioPart("data:audio/wav;base64,AA"), llm.AudioPart("https://a/b.mp3"), llm.TextPart("<b>&</b>")}},
		llm.AssistantMessage("", call("Read:9", "Read", `{ "path" : "a.go" }`), call("a_b", "f", ""), call("a:b", "f", "")),
		llm.ToolMessage("Read:9", llm.TextPart(""), llm.TextPart("package a"), llm.AudioPart("x"), llm.AudioPart("y"), llm.ThinkPart("not sent", "")),
		llm.ToolMessage("a_b"),
		llm.ToolMessage("a:b", llm.ImagePart("https://x/z.png")),
	}
	got := wireJSON(t, "claude-sonnet-4-5", history)
	want := `[` +
		`{"role":"user","content":[{"type":"text","text":"<system>be nice</system>"},{"type":"text","text":"<system>rule 1\nrule 2</system>"},` +
		`{"type":"text","text":""},{"type":"text","text":"(audio omitted: not supported by this provider)"},{"type":"text","text":"<b>&</b>"}]},` +
		`{"role":"assistant","content":[{"type":"tool_use","id":"Read_9","name":"Read","input":{"path":"a.go"}},` +
		`{"type":"tool_use","id":"a_b","name":"f","input":{}},{"type":"tool_use","id":"a_b_2","name":"f","input":{}}]},` +
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"Read_9","content":[{"type":"text","text":"package a"},{"type":"text","text":"(audio omitted: not supported by this provider)"}]},` +
		`{"type":"tool_result","tool_use_id":"a_b","content":[]},` +
		`{"type":"tool_result","tool_use_id":"a_b_2","content":[{"type":"image","source":{"type":"url","url":"https://x/z.png"}}],"cache_control":{"type":"ephemeral"}}]}]`
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	if history[4].ToolCalls[0].ID != "Read:9" {
		t.Errorf("the history was modified")
	}
}

func TestMediaBlocks(t *testing.T) {
	srv := llmtest.FakeAnthropic(t, llmtest.Text("seen"))
	p := newTestProvider(srv, Options{Model: "kimi-k2.5"})
	mustRun(t, p, llm.Request{Messages: []llm.Message{
		{Role: llm.RoleUser, Content: []llm.ContentPart{
			llm.TextPart("compare these"),
			llm.ImagePart("data:image/png;base64,iVBORw0KGgo="),
			llm.ImagePart("https://example.com/b.webp"),
			llm.VideoPart("data:video/mp4;base64,AAAAIGZ0eXA=", ""),
			llm.VideoPart("https://example.com/c.mov", ""),
			llm.VideoPart("ms://file-123", "file-123"),
		}},
		llm.AssistantMessage("", call("shot", "screenshot", `{}`)),
		llm.ToolMessage("shot", llm.TextPart("captured"), llm.ImagePart("data:image/jpeg;base64,/9j/4AAQ"), llm.VideoPart("data:video/webm;base64,GkXf", "")),
	}})
	llmtest.Golden(t, "media_blocks.golden.json", srv.Request(0).CanonicalBody())
}

func TestMediaErrors(t *testing.T) {
	for _, tt := range []struct {
		part  llm.ContentPart
		image bool
		msg   string
	}{
		{llm.ImagePart("data:image/bmp;base64,Qk0="), true, "unsupported media type for base64 image: image/bmp, url: data:image/bmp;base64,Qk0="},
		{llm.ImagePart("data:image/png,raw"), true, "invalid data URL for image: data:image/png,raw"},
		{llm.ImagePart("data:image/svg+xml;base64," + strings.Repeat("A", 5000)), true, "unsupported media type for base64 image: image/svg+xml"},
		{llm.VideoPart("data:video/avi;base64,AAAA", ""), false, "unsupported media type for base64 video: video/avi"},
		{llm.VideoPart("data:video/mp4", ""), false, "invalid data URL for video"},
	} {
		for _, role := range []llm.Role{llm.RoleUser, llm.RoleTool} {
			m := llm.Message{Role: role, Content: []llm.ContentPart{tt.part}, ToolCallID: "c1"}
			_, err := convertMessages("claude-sonnet-4-5", []llm.Message{m})
			if err == nil || !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("%s in %s: got %v, want %q", tt.part.Media.URL[:20], role, err, tt.msg)
				continue
			}
			if llm.IsImageFormatError(err) != tt.image || llm.IsInvalidRequest(err) == tt.image || llm.IsRetryable(err) {
				t.Errorf("%v: image-format %v invalid-request %v retryable %v", err, llm.IsImageFormatError(err), llm.IsInvalidRequest(err), llm.IsRetryable(err))
			}
			if len(err.Error()) > 200 {
				t.Errorf("error message is %d bytes long", len(err.Error()))
			}
		}
	}
}

func TestToolArgumentsKeepTheirBytes(t *testing.T) {
	args := `{"b":1,"a":{"z":[1,2],"y":"<\u00e9>"}}`
	got := wireJSON(t, "m", []llm.Message{llm.UserMessage("x"), llm.AssistantMessage("", call("c", "f", "  "+args+"\n"))})
	var v []struct {
		Content []struct {
			Input json.RawMessage `json:"input"`
		} `json:"content"`
	}
	if err := json.Unmarshal([]byte(got), &v); err != nil {
		t.Fatal(err)
	}
	if string(v[1].Content[0].Input) != args {
		t.Errorf("input = %s, want %s (key order and escapes kept)", v[1].Content[0].Input, args)
	}
}

// TestToolInputIsCompactJSON: arguments are sent as json.Compact leaves
// them, whether they came compact (sent as they are) or not; anything but
// a JSON object is refused.
func TestToolInputIsCompactJSON(t *testing.T) {
	for _, args := range []string{
		`{"path":"a b.txt","n":1}`, `{"q":"say \"hi there\"","r":"\\"}`, `{"a" : [1, 2],` + "\n\t" + `"b":{}}`,
		`{"s":"tab\tinside"}`, `{"e":"\\\" x"}`, "  {}  ", "",
		`{"a":1`, `{"a":1}}`, `{"a":"\"}`, `[1,2]`, `"x"`, `{"a":1} {"b":2}`,
	} {
		got, err := toolInput(call("c", "f", args))
		trimmed := strings.TrimSpace(args)
		if trimmed == "" {
			trimmed = "{}"
		}
		var want bytes.Buffer
		werr := json.Compact(&want, []byte(trimmed))
		if werr != nil || want.Bytes()[0] != '{' {
			if err == nil || !llm.IsInvalidRequest(err) {
				t.Errorf("toolInput(%q) = %s, %v; want an invalid request", args, got, err)
			}
			continue
		}
		if err != nil || string(got) != want.String() {
			t.Errorf("toolInput(%q) = %s, %v; want %s", args, got, err, want.String())
		}
	}
}

// TestBlockArenaOutgrown: blocks taken past what the arena was sized for
// (an arena sized for nothing) convert to the same wire messages as blocks
// from an arena sized for the history; and the arena of a history that
// uses every block it could is sized exactly.
func TestBlockArenaOutgrown(t *testing.T) {
	exact := append(parallelHistory(),
		llm.Message{Role: llm.RoleSystem, Content: []llm.ContentPart{llm.TextPart("note"), llm.TextPart("more")}},
		llm.Message{Role: llm.RoleAssistant, Content: []llm.ContentPart{llm.ThinkPart("hm", "sig"), llm.ThinkPart("unsigned", ""),
			llm.TextPart("look"), llm.AudioPart("https://example.com/a.mp3")}},
		llm.ToolMessage("toolu_x", llm.TextPart("a"), llm.ImagePart("https://example.com/i.png")),
	)
	history := append(exact,
		llm.ToolMessage("toolu_y", llm.TextPart(""), llm.AudioPart("https://example.com/a.mp3"), llm.AudioPart("https://example.com/b.mp3")),
		llm.Message{Role: llm.RoleUser},
		llm.ToolMessage("toolu_z"),
	)
	sized := newBlockArena(history)
	for i, m := range history {
		want, err := sized.convertMessage(i, m, true)
		if err != nil {
			t.Fatal(err)
		}
		got, err := (&blockArena{}).convertMessage(i, m, true)
		if err != nil {
			t.Fatal(err)
		}
		w, _ := plainjson.Marshal(want)
		g, _ := plainjson.Marshal(got)
		if string(g) != string(w) {
			t.Errorf("message %d from an empty arena:\n%s\nfrom a sized one:\n%s", i, g, w)
		}
	}
	a := newBlockArena(exact)
	for i, m := range exact {
		if _, err := a.convertMessage(i, m, true); err != nil {
			t.Fatal(err)
		}
	}
	for name, n := range map[string][2]int{"texts": {len(a.texts), cap(a.texts)}, "thinking": {len(a.thinking), cap(a.thinking)},
		"uses": {len(a.uses), cap(a.uses)}, "results": {len(a.results), cap(a.results)}, "slots": {len(a.slots), cap(a.slots)}} {
		if n[0] == 0 || n[0] != n[1] {
			t.Errorf("%s: %d taken from a slab of %d", name, n[0], n[1])
		}
	}
}
