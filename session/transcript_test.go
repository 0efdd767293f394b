package session_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/kimigo/kimigo/llm/llmtest"
	"github.com/kimigo/kimigo/loop"
	"github.com/kimigo/kimigo/session"
)

// useServer points the rig's model at a fake server with replies.
func (r *rig) useServer(replies ...llmtest.Reply) {
	r.t.Helper()
	r.srv = llmtest.FakeChatCompletions(r.t, replies...)
	r.writeConfig(fmt.Sprintf(`default_model = "fake"

[providers.fake]
type = "openai"
base_url = %q

[models.fake]
provider = "fake"
model = "fake-model"
max_context_size = 100000
`, llmtest.ChatBaseURL(r.srv)))
}

// A resumed session hands its front end the conversation it will show:
// the prompt, the thinking, the answer, the tool call with its result.
func TestTakeTranscript(t *testing.T) {
	r := newRig(t)
	r.useServer(llmtest.Think("look first", "Let me look."), llmtest.ToolCall("c1", "Glob", `{"pattern":"*.txt"}`), llmtest.Text("Nothing there."))
	s := r.ran(t, "what is here?", "and now?")
	o := r.resumeOpts(s.ID(), "")
	o.Cards = true
	s2, err := session.Open(t.Context(), o)
	if err != nil {
		t.Fatal(err)
	}
	defer closeSession(t, s2)
	got := s2.TakeTranscript()
	want := []session.TranscriptEntry{
		{Kind: session.TranscriptUser, Text: "what is here?"},
		{Kind: session.TranscriptThinking, Text: "look first"},
		{Kind: session.TranscriptAssistant, Text: "Let me look."},
	}
	if len(got) != 6 {
		t.Fatalf("transcript %+v", got)
	}
	if d := cmp.Diff(want, got[:3]); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	if got[3].Kind != session.TranscriptUser || got[3].Text != "and now?" {
		t.Errorf("second prompt %+v", got[3])
	}
	tool := got[4]
	if tool.Kind != session.TranscriptTool || tool.ToolName != "Glob" || string(tool.ToolArgs) != `{"pattern":"*.txt"}` || !tool.Done {
		t.Errorf("tool entry %+v", tool)
	}
	if _, ok := tool.Display.(*loop.FileIODisplay); tool.Display != nil && !ok {
		t.Errorf("display %T", tool.Display)
	}
	if d := cmp.Diff(session.TranscriptEntry{Kind: session.TranscriptAssistant, Text: "Nothing there."}, got[len(got)-1],
		cmpopts.IgnoreFields(session.TranscriptEntry{}, "Display")); d != "" {
		t.Errorf("last entry (-want +got):\n%s", d)
	}
	if again := s2.TakeTranscript(); again != nil {
		t.Errorf("the transcript was handed over twice: %v", again)
	}
}

// TestScenario36MarkdownExport is spec 06 §10 scenario 36.
func TestScenario36MarkdownExport(t *testing.T) {
	r := newRig(t)
	if err := os.WriteFile(filepath.Join(r.workDir, "a.txt"), []byte("alpha\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r.useServer(llmtest.ToolCall("c1", "Read", `{"path":"a.txt"}`), llmtest.Text("It says alpha."))
	s, err := session.Open(t.Context(), r.opts(""))
	if err != nil {
		t.Fatal(err)
	}
	defer closeSession(t, s)
	if _, _, err := s.ExportMarkdown("", time.Now()); err != session.ErrNothingToExport {
		t.Errorf("empty export: %v", err)
	}
	prompt(t, s, "read a.txt")
	path, n, err := s.ExportMarkdown("out.md", time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	if path != filepath.Join(r.workDir, "out.md") || n != 4 {
		t.Errorf("wrote %s with %d messages", path, n)
	}
	b, _ := os.ReadFile(path)
	doc := string(b)
	for _, want := range []string{"---\nsession_id: " + s.ID() + "\n", "# kimigo Session Export", "- **Conversation**: 1 turns | 1 tool calls",
		"## Turn 1", "### User\n\nread a.txt", "### Assistant", "#### Tool Call: Read (`a.txt`)\n<!-- call_id: c1 -->\n```json\n{\n  \"path\": \"a.txt\"\n}\n```",
		"<details><summary>Tool Result: Read (`a.txt`)</summary>", "alpha", "It says alpha."} {
		if !strings.Contains(doc, want) {
			t.Errorf("export lacks %q:\n%s", want, doc)
		}
	}
	if strings.Contains(doc, "system-reminder") || strings.Contains(doc, "<hook_result") {
		t.Errorf("internal messages exported:\n%s", doc)
	}
}
