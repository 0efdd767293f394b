package history_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kimigo/kimigo/agent/history"
	"github.com/kimigo/kimigo/llm"
)

func TestS19RenderToolResult(t *testing.T) {
	txt := func(s ...string) []llm.ContentPart {
		var out []llm.ContentPart
		for _, x := range s {
			out = append(out, llm.TextPart(x))
		}
		return out
	}
	img := llm.ImagePart("https://x/i.png")
	for _, tt := range []struct {
		name    string
		output  []llm.ContentPart
		note    string
		isError bool
		want    []llm.ContentPart
	}{
		{"text passes through", txt("hello"), "", false, txt("hello")},
		{"error gets the status line", txt("permission denied"), "", true,
			txt("<system>ERROR: Tool execution failed.</system>\npermission denied")},
		{"error text starting with ERROR keeps it", txt("ERROR: no such file"), "", true,
			txt("<system>ERROR: Tool execution failed.</system>\nERROR: no such file")},
		{"empty error", txt(""), "", true, txt("<system>ERROR: Tool execution failed. Tool output is empty.</system>")},
		{"empty string", txt(""), "", false, txt("<system>Tool output is empty.</system>")},
		{"whitespace string", txt("  \n "), "", false, txt("<system>Tool output is empty.</system>")},
		{"loop's empty marker", txt("Tool output is empty."), "", false, txt("<system>Tool output is empty.</system>")},
		{"empty array", []llm.ContentPart{}, "", false, txt("<system>Tool output is empty.</system>")},
		{"empty array with error", nil, "", true, txt("<system>ERROR: Tool execution failed. Tool output is empty.</system>")},
		{"blank text array", txt("   \n"), "", false, txt("<system>Tool output is empty.</system>")},
		{"two blank parts", txt(" ", "\t"), "", true, txt("<system>ERROR: Tool execution failed. Tool output is empty.</system>")},
		{"error array gets a status part", txt("a", "b"), "", true, txt(history.ToolErrorStatus, "a", "b")},
		{"media array passes through", []llm.ContentPart{llm.TextPart("see"), img}, "", false, []llm.ContentPart{llm.TextPart("see"), img}},
		{"note joins a single part", txt("body"), "n", false, txt("body\nn")},
		{"note after an error status", txt("oops"), "n", true, txt("<system>ERROR: Tool execution failed.</system>\noops\nn")},
		{"note after the empty status", txt(""), "n", false, txt("<system>Tool output is empty.</system>\nn")},
		{"note on media is a trailing part", []llm.ContentPart{img}, "n", false, []llm.ContentPart{img, llm.TextPart("n")}},
		{"empty note is ignored", txt("x"), "", false, txt("x")},
	} {
		t.Run(tt.name, func(t *testing.T) {
			before := slices.Clone(tt.output)
			got := history.RenderToolResult(tt.output, tt.note, tt.isError)
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
			if d := cmp.Diff(before, tt.output); d != "" {
				t.Errorf("input modified:\n%s", d)
			}
		})
	}
}

func TestS20NoteRenderedOnlyAtProjection(t *testing.T) {
	stored := history.Message{Message: llm.ToolMessage("c1", llm.TextPart("file body")), Note: "<system>10 lines read.</system>"}
	mem := memoryWith(t, history.Options{}, U("read"), A("", "c1"), stored)
	h := mem.History()
	if d := cmp.Diff([]llm.ContentPart{llm.TextPart("file body")}, h[2].Content); d != "" {
		t.Errorf("stored content (-want +got):\n%s", d)
	}
	if h[2].Note != stored.Note {
		t.Errorf("stored note = %q", h[2].Note)
	}
	got := mem.Messages()[2]
	want := llm.ToolMessage("c1", llm.TextPart("file body\n<system>10 lines read.</system>"))
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("projected (-want +got):\n%s", d)
	}
}

func TestS21RenderNotificationXML(t *testing.T) {
	data := map[string]any{
		"id": `n_"1&2`, "category": "task", "type": "task.done", "source_kind": "background_task",
		"source_id": "bg&1", "title": "Background bash completed", "severity": "info", "body": "exit 0",
		"children": []any{"<output>ok</output>"},
	}
	got := history.RenderNotificationXML(data)
	want := `<notification id="n_&quot;1&amp;2" category="task" type="task.done" source_kind="background_task" source_id="bg&amp;1">` +
		"\nTitle: Background bash completed\nSeverity: info\nexit 0\n<output>ok</output>\n</notification>"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if strings.Contains(got, "agent_id=") {
		t.Error("agent_id rendered without being set")
	}
	data["agent_id"] = "agent-0"
	if got := history.RenderNotificationXML(data); !strings.Contains(strings.SplitN(got, "\n", 2)[0], ` agent_id="agent-0">`) {
		t.Errorf("opening tag without agent_id: %s", got)
	}
	sparse := history.RenderNotificationXML(map[string]any{"id": "", "source_kind": "host", "output_path": "/x", "extraBlocks": "extra"})
	wantSparse := `<notification id="unknown" category="unknown" type="unknown" source_kind="host" source_id="unknown">` +
		"\nextra\n</notification>"
	if sparse != wantSparse {
		t.Errorf("got\n%s\nwant\n%s", sparse, wantSparse)
	}
}

func TestS22StripDynamicToolContext(t *testing.T) {
	text, ok := history.ToolAnnouncement([]string{"Grep"}, []string{"Old"})
	if !ok {
		t.Fatal("ToolAnnouncement reported nothing to announce")
	}
	announcement := history.SystemReminder(text, history.SystemTriggerOrigin(history.TriggerNameLoadableTools))
	schema := history.Message{Message: llm.Message{Role: llm.RoleSystem, Tools: []llm.Tool{{Name: "Grep"}}},
		Origin: history.InjectionOrigin(history.VariantDynamicToolSchema)}
	got := history.StripDynamicToolContext([]history.Message{U("a"), announcement, schema, U("b")})
	if d := cmp.Diff([]history.Message{U("a"), U("b")}, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}

	withContent := schema
	withContent.Content = []llm.ContentPart{llm.TextPart("tools loaded")}
	got = history.StripDynamicToolContext([]history.Message{withContent})
	if len(got) != 1 || got[0].Tools != nil || llm.ExtractText(got[0].Message, "") != "tools loaded" {
		t.Errorf("schema message with content = %+v", got)
	}
	if withContent.Tools == nil {
		t.Error("input modified")
	}

	plain := []history.Message{U("a"), U("b")}
	if got := history.StripDynamicToolContext(plain); &got[0] != &plain[0] {
		t.Error("a history without protocol messages was copied")
	}
}

func TestDynamicToolNames(t *testing.T) {
	ann := func(added, removed []string) history.Message {
		text, _ := history.ToolAnnouncement(added, removed)
		return history.SystemReminder(text, history.SystemTriggerOrigin(history.TriggerNameLoadableTools))
	}
	h := []history.Message{ann([]string{"A", "B"}, nil), ann([]string{"C"}, []string{"A"}), U("x")}
	if d := cmp.Diff([]string{"B", "C"}, history.FoldAnnouncedTools(h)); d != "" {
		t.Errorf("FoldAnnouncedTools (-want +got):\n%s", d)
	}
	schemas := []history.Message{
		{Message: llm.Message{Role: llm.RoleSystem, Tools: []llm.Tool{{Name: "A"}, {Name: "B"}}}},
		{Message: llm.Message{Role: llm.RoleSystem, Tools: []llm.Tool{{Name: "B"}, {Name: "C"}}}},
	}
	if d := cmp.Diff([]string{"A", "B", "C"}, history.CollectLoadedDynamicToolNames(schemas)); d != "" {
		t.Errorf("CollectLoadedDynamicToolNames (-want +got):\n%s", d)
	}
	if _, ok := history.ToolAnnouncement(nil, nil); ok {
		t.Error("ToolAnnouncement of nothing reported ok")
	}
}

func TestMemoryProjectShapesDynamicTools(t *testing.T) {
	schema := history.Message{Message: llm.Message{Role: llm.RoleSystem, Tools: []llm.Tool{{Name: "Grep"}}},
		Origin: history.InjectionOrigin(history.VariantDynamicToolSchema)}
	h := []history.Message{U("a"), schema}
	stripped := memoryWith(t, history.Options{}, h...)
	if d := cmp.Diff([]string{"user"}, roles(stripped.Messages())); d != "" {
		t.Errorf("without the capability (-want +got):\n%s", d)
	}
	shaped := 0
	capable := memoryWith(t, history.Options{Hooks: history.Hooks{
		DynamicTools:      func() bool { return true },
		ShapeDynamicTools: func(h []history.Message) []history.Message { shaped++; return h },
	}}, h...)
	if d := cmp.Diff([]string{"user", "system"}, roles(capable.Messages())); d != "" {
		t.Errorf("with the capability (-want +got):\n%s", d)
	}
	if shaped != 1 {
		t.Errorf("shaper called %d times", shaped)
	}
}
