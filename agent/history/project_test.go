package history_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kimigo/kimigo/agent/history"
	ht "github.com/kimigo/kimigo/agent/history/historytest"
	"github.com/kimigo/kimigo/llm"
)

var (
	strictOpts = history.StrictOptions()
	normalOpts = history.NormalOptions()
)

func TestS6WellFormedUntouched(t *testing.T) {
	h := []history.Message{
		U("read a.go and b.go"),
		A("reading", "a", "b"),
		T("a", "package a"),
		{Message: llm.ToolMessage("b", llm.TextPart("denied")), IsError: true, Note: "<system>ask first</system>"},
		assistantParts(llm.ThinkPart("", ""), llm.TextPart("done")),
		plainUser("thanks"),
		U("one more"),
		A("", "c"),
		{Message: llm.ToolMessage("c", llm.TextPart("see"), llm.ImagePart("https://x/i.png"))},
		A("final"),
	}
	want := []llm.Message{
		llm.UserMessage("read a.go and b.go"),
		h[1].Message,
		h[2].Message,
		llm.ToolMessage("b", llm.TextPart(history.ToolErrorStatus+"\ndenied\n<system>ask first</system>")),
		h[4].Message,
		h[5].Message,
		llm.UserMessage("one more"),
		h[7].Message,
		h[8].Message,
		h[9].Message,
	}
	for _, opts := range []history.ProjectOptions{normalOpts, strictOpts} {
		got := project(h, opts)
		if len(got.anoms) > 0 {
			t.Errorf("anomalies on well-formed history: %+v", got.anoms)
		}
		if d := cmp.Diff(want, got.msgs); d != "" {
			t.Errorf("projection (-want +got):\n%s", d)
		}
	}
}

func TestS7DisplacedResultMovesUp(t *testing.T) {
	got := project([]history.Message{U("u1"), A("", "a"), N("ping"), T("a", "r")}, normalOpts)
	if d := cmp.Diff([]string{"user", "assistant", "tool:a", "user"}, roles(got.msgs)); d != "" {
		t.Errorf("roles (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]history.Anomaly{{Kind: history.AnomalyResultReordered, ToolCallID: "a"}}, got.anoms); d != "" {
		t.Errorf("anomalies (-want +got):\n%s", d)
	}
	if text := llm.ExtractText(got.msgs[3], ""); text != "ping" {
		t.Errorf("last message = %q, want ping", text)
	}
}

func TestS8ParallelResultsOutOfOrder(t *testing.T) {
	got := project([]history.Message{U("u"), A("", "a", "b", "c"), T("c", "3"), T("a", "1"), T("b", "2")}, strictOpts)
	if d := cmp.Diff([]string{"user", "assistant", "tool:c", "tool:a", "tool:b"}, roles(got.msgs)); d != "" {
		t.Errorf("roles (-want +got):\n%s", d)
	}
	if len(got.anoms) > 0 {
		t.Errorf("anomalies: %+v", got.anoms)
	}
}

func TestS9MidHistoryMissingResult(t *testing.T) {
	h := []history.Message{U("u1"), A("", "a"), U("u2"), A("", "b"), T("b", "r")}
	got := project(h, normalOpts)
	if d := cmp.Diff([]string{"user", "assistant", "tool:a", "user", "assistant", "tool:b"}, roles(got.msgs)); d != "" {
		t.Fatalf("roles (-want +got):\n%s", d)
	}
	if text := llm.ExtractText(got.msgs[2], ""); !strings.Contains(text, "Tool result is not available in the current context") {
		t.Errorf("placeholder = %q", text)
	}
	if d := cmp.Diff([]history.Anomaly{{Kind: history.AnomalyResultSynthesized, ToolCallID: "a"}}, got.anoms); d != "" {
		t.Errorf("anomalies (-want +got):\n%s", d)
	}

	var rec logRecorder
	mem := memoryWith(t, history.Options{Logger: rec.logger()}, h...)
	for range 3 {
		mem.Messages() // a later step projects the same history again
	}
	if lines := rec.lines(); len(lines) != 1 || !strings.Contains(lines[0], "repaired the request to keep it wire-valid") ||
		!strings.Contains(lines[0], "synthesized=1") || !strings.Contains(lines[0], "tool_call_ids=[a]") {
		t.Errorf("log = %q, want one repair warning naming a", lines)
	}
}

func TestS10TrailingMissingResult(t *testing.T) {
	h := []history.Message{U("u"), A("", "a", "b"), T("a", "r")}
	var rec logRecorder
	mem := memoryWith(t, history.Options{Logger: rec.logger()}, h...)
	if d := cmp.Diff([]string{"user", "assistant", "tool:a"}, roles(mem.Messages())); d != "" {
		t.Errorf("Messages roles (-want +got):\n%s", d)
	}
	var anoms []history.Anomaly
	opts := strictOpts
	opts.OnAnomaly = func(a history.Anomaly) { anoms = append(anoms, a) }
	strict := mem.Project(mem.History(), opts)
	if d := cmp.Diff([]string{"user", "assistant", "tool:a", "tool:b"}, roles(strict)); d != "" {
		t.Errorf("StrictMessages roles (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]history.Anomaly{{Kind: history.AnomalyResultSynthesized, ToolCallID: "b", Trailing: true}}, anoms); d != "" {
		t.Errorf("anomalies (-want +got):\n%s", d)
	}
	if lines := rec.lines(); len(lines) != 0 {
		t.Errorf("logged %q, want nothing", lines)
	}
}

func TestS11StrayResult(t *testing.T) {
	h := []history.Message{U("u"), A("", "a"), T("a", "r"), T("stray", "?"), U("u2")}
	frag := project(h, history.ProjectOptions{})
	if d := cmp.Diff([]string{"user", "assistant", "tool:a", "tool:stray", "user"}, roles(frag.msgs)); d != "" {
		t.Errorf("fragment roles (-want +got):\n%s", d)
	}
	got := project(h, normalOpts)
	if d := cmp.Diff([]string{"user", "assistant", "tool:a", "user"}, roles(got.msgs)); d != "" {
		t.Errorf("Messages roles (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]history.Anomaly{{Kind: history.AnomalyOrphanResultDropped, ToolCallID: "stray"}}, got.anoms); d != "" {
		t.Errorf("anomalies (-want +got):\n%s", d)
	}
}

func TestS12ReusedCallIDs(t *testing.T) {
	h := []history.Message{
		U("u"), A("first", "call_a"), T("call_a", "first result"),
		A("second", "call_a", "call_b"), T("call_a", "second result"), T("call_b", "b result"), U("next"),
	}
	normal := project(h, normalOpts)
	if d := cmp.Diff([]string{"user", "assistant", "tool:call_a", "assistant", "tool:call_a", "tool:call_b", "user"},
		roles(normal.msgs)); d != "" {
		t.Errorf("Messages roles (-want +got):\n%s", d)
	}
	strict := project(h, strictOpts)
	if d := cmp.Diff([]string{"user", "assistant", "tool:call_a", "assistant", "tool:call_b", "user"}, roles(strict.msgs)); d != "" {
		t.Errorf("StrictMessages roles (-want +got):\n%s", d)
	}
	if got := llm.ExtractText(strict.msgs[2], ""); got != "first result" {
		t.Errorf("kept call_a result = %q", got)
	}
	if calls := strict.msgs[3].ToolCalls; len(calls) != 1 || calls[0].ID != "call_b" {
		t.Errorf("second assistant calls = %+v, want only call_b", calls)
	}
	want := []history.Anomaly{
		{Kind: history.AnomalyDuplicateCallDropped, ToolCallID: "call_a"},
		{Kind: history.AnomalyDuplicateResultDropped, ToolCallID: "call_a"},
	}
	if d := cmp.Diff(want, strict.anoms); d != "" {
		t.Errorf("anomalies (-want +got):\n%s", d)
	}
}

func TestS13DuplicateCallWithLateResult(t *testing.T) {
	h := []history.Message{U("u"), A("first attempt", "call_a"), A("second attempt", "call_a"), T("call_a", "late"), U("u2")}
	got := project(h, strictOpts)
	if d := cmp.Diff([]string{"user", "assistant", "tool:call_a", "assistant", "user"}, roles(got.msgs)); d != "" {
		t.Errorf("roles (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"u", "first attempt", "late", "second attempt", "u2"}, texts(got.msgs)); d != "" {
		t.Errorf("texts (-want +got):\n%s", d)
	}
}

func TestS14VacuousAssistants(t *testing.T) {
	for _, tt := range []struct {
		name      string
		assistant history.Message
		wantRoles []string
		wantAnoms []history.Anomaly
	}{
		{"unsigned empty think is dropped", assistantParts(llm.ThinkPart("", "")),
			[]string{"user", "user"}, []history.Anomaly{{Kind: history.AnomalyVacuousMessageDropped, Role: llm.RoleAssistant}}},
		{"signed empty think is kept", assistantParts(llm.ThinkPart("", "sig")), []string{"user", "assistant", "user"}, nil},
		{"empty think beside text is kept verbatim", assistantParts(llm.ThinkPart("", ""), llm.TextPart("answer")),
			[]string{"user", "assistant", "user"}, nil},
		{"no content and no calls is dropped silently", assistantParts(), []string{"user", "user"}, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := project([]history.Message{U("u1"), tt.assistant, U("u2")}, normalOpts)
			if d := cmp.Diff(tt.wantRoles, roles(got.msgs)); d != "" {
				t.Errorf("roles (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tt.wantAnoms, got.anoms); d != "" {
				t.Errorf("anomalies (-want +got):\n%s", d)
			}
			if len(got.msgs) == 3 {
				if d := cmp.Diff(tt.assistant.Content, got.msgs[1].Content); d != "" {
					t.Errorf("assistant content changed (-want +got):\n%s", d)
				}
			}
		})
	}
}

func TestS15UserPromptMerging(t *testing.T) {
	cron := history.Message{Message: llm.UserMessage("tick"), Origin: &history.Origin{Kind: history.OriginCronJob, JobID: "j"}}
	got := project([]history.Message{U("First"), U("Second"), plainUser("No origin"), U("Third"), cron, U("Fourth")}, normalOpts)
	if d := cmp.Diff([]string{"First\n\nSecond", "No origin", "Third", "tick", "Fourth"}, texts(got.msgs)); d != "" {
		t.Errorf("texts (-want +got):\n%s", d)
	}
	if len(got.anoms) > 0 {
		t.Errorf("anomalies: %+v", got.anoms)
	}
}

func TestS15MergeKeepsMediaAfterText(t *testing.T) {
	img := llm.ImagePart("https://x/i.png")
	got := project([]history.Message{userParts(img, llm.TextPart("a")), userParts(llm.TextPart("b"), img)}, normalOpts)
	want := []llm.Message{{Role: llm.RoleUser, Content: []llm.ContentPart{llm.TextPart("a\n\nb"), img, img}}}
	if d := cmp.Diff(want, got.msgs); d != "" {
		t.Errorf("merged (-want +got):\n%s", d)
	}
	// Go deviation (§3.13): two media-only prompts merge without a blank
	// text part.
	got = project([]history.Message{userParts(img), userParts(img)}, normalOpts)
	want = []llm.Message{{Role: llm.RoleUser, Content: []llm.ContentPart{img, img}}}
	if d := cmp.Diff(want, got.msgs); d != "" {
		t.Errorf("media-only merge (-want +got):\n%s", d)
	}
}

func TestS16WhitespaceParts(t *testing.T) {
	got := project([]history.Message{
		userParts(llm.TextPart(""), llm.TextPart("hi")),
		assistantParts(llm.TextPart("  \n"), llm.TextPart("ok")),
	}, normalOpts)
	if d := cmp.Diff([]history.Anomaly{{Kind: history.AnomalyWhitespaceTextDropped, Role: llm.RoleAssistant}}, got.anoms); d != "" {
		t.Errorf("anomalies (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"hi", "ok"}, texts(got.msgs)); d != "" {
		t.Errorf("texts (-want +got):\n%s", d)
	}
}

func TestS17LeadingNonUser(t *testing.T) {
	h := []history.Message{A("stray opener"), U("hi")}
	if got := project(h, normalOpts); got.msgs[0].Role != llm.RoleAssistant {
		t.Errorf("Messages()[0] = %s, want assistant", got.msgs[0].Role)
	}
	got := project(h, strictOpts)
	if d := cmp.Diff([]llm.Message{llm.UserMessage("hi")}, got.msgs); d != "" {
		t.Errorf("strict (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]history.Anomaly{{Kind: history.AnomalyLeadingNonUserDropped, Role: llm.RoleAssistant}}, got.anoms); d != "" {
		t.Errorf("anomalies (-want +got):\n%s", d)
	}
}

func TestS18GoDeviations(t *testing.T) {
	t.Run("result before its call", func(t *testing.T) {
		got := project([]history.Message{U("u"), T("a", "early"), A("", "a")}, strictOpts)
		if d := cmp.Diff([]string{"user", "assistant", "tool:a"}, roles(got.msgs)); d != "" {
			t.Errorf("roles (-want +got):\n%s", d)
		}
		if text := llm.ExtractText(got.msgs[2], ""); text != history.ResultUnavailableText() {
			t.Errorf("result = %q, want the placeholder", text)
		}
		want := []history.Anomaly{
			{Kind: history.AnomalyResultSynthesized, ToolCallID: "a", Trailing: true},
			{Kind: history.AnomalyOrphanResultDropped, ToolCallID: "a"},
		}
		if d := cmp.Diff(want, got.anoms); d != "" {
			t.Errorf("anomalies (-want +got):\n%s", d)
		}
	})
	t.Run("merge after an orphan drop", func(t *testing.T) {
		got := project([]history.Message{U("u"), A("x"), T("stray", "?"), A("y")}, strictOpts)
		want := []llm.Message{llm.UserMessage("u"), llm.AssistantMessage("x")}
		want[1].Content = append(want[1].Content, llm.TextPart("y"))
		if d := cmp.Diff(want, got.msgs, cmpEmpty); d != "" {
			t.Errorf("strict (-want +got):\n%s", d)
		}
	})
	t.Run("empty ids", func(t *testing.T) {
		h := []history.Message{U("u"), A("", ""), T("", "answered"), T("", "again"), U("u2")}
		got := project(h, normalOpts)
		if d := cmp.Diff([]string{"user", "assistant", "tool:", "user"}, roles(got.msgs)); d != "" {
			t.Errorf("roles (-want +got):\n%s", d)
		}
		if d := cmp.Diff([]history.Anomaly{{Kind: history.AnomalyOrphanResultDropped}}, got.anoms); d != "" {
			t.Errorf("anomalies (-want +got):\n%s", d)
		}
		if got := project([]history.Message{U("u"), T("", "?")}, normalOpts); len(got.msgs) != 1 {
			t.Errorf("an unplaced empty-id result survived: %v", roles(got.msgs))
		}
	})
}

func TestProjectMediaMissingBecomesText(t *testing.T) {
	h := []history.Message{userParts(llm.TextPart("see"), llm.ImagePart(history.MediaMissing))}
	got := project(h, normalOpts)
	want := []llm.Message{{Role: llm.RoleUser, Content: []llm.ContentPart{llm.TextPart("see"), llm.TextPart("[media missing]")}}}
	if d := cmp.Diff(want, got.msgs); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

func TestProjectDropsPartialAndKeepsSchemaMessages(t *testing.T) {
	schema := history.Message{Message: llm.Message{Role: llm.RoleSystem, Tools: []llm.Tool{{Name: "Grep"}}}}
	partial := A("half")
	partial.Partial = true
	got := project([]history.Message{U("u"), schema, partial}, normalOpts)
	if d := cmp.Diff([]string{"user", "system"}, roles(got.msgs)); d != "" {
		t.Errorf("roles (-want +got):\n%s", d)
	}
}

func TestProjectSharesUnchangedMessages(t *testing.T) {
	h := []history.Message{U("u"), A("a", "c1"), T("c1", "out")}
	got := history.Project(h, normalOpts)
	if &got[1].Content[0] != &h[1].Content[0] || &got[1].ToolCalls[0] != &h[1].ToolCalls[0] {
		t.Error("an unchanged assistant message was copied")
	}
	if &got[2].Content[0] != &h[2].Content[0] {
		t.Error("an unchanged tool result was copied")
	}
}

func TestMemoryViews(t *testing.T) {
	img := func(n string) llm.ContentPart { return llm.ImagePart("https://x/" + n + ".png") }
	mem := memoryWith(t, history.Options{}, userParts(img("1")), A("", "a"), T("a", "x"), userParts(img("2"), img("3")))
	normal := mem.Messages()
	degraded := mem.MediaDegradedMessages()
	if err := ht.CheckMediaDegraded(normal, degraded); err != nil {
		t.Error(err)
	}
	if got := degraded[0].Content[0]; got.Type != llm.PartText || !strings.HasPrefix(got.Text, "[image omitted") {
		t.Errorf("oldest image = %+v, want a text marker", got)
	}
	for _, m := range mem.MediaStrippedMessages() {
		for _, p := range m.Content {
			if p.IsMedia() || (p.Type == llm.PartText && strings.HasPrefix(p.Text, "[image omitted") &&
				!strings.Contains(p.Text, "provider compatibility")) {
				t.Errorf("stripped view part %+v", p)
			}
		}
	}
	if strict := mem.StrictMessages(); ht.CheckWire(strict) != nil {
		t.Errorf("strict view invalid: %v", ht.CheckWire(strict))
	}
}

func TestMediaSnapshotStripsOnlyKnownMedia(t *testing.T) {
	old := llm.ImagePart("https://x/old.png")
	msgs := []llm.Message{{Role: llm.RoleUser, Content: []llm.ContentPart{old}}}
	snap := history.NewMediaSnapshot(msgs)
	later := append(msgs, llm.Message{Role: llm.RoleUser, Content: []llm.ContentPart{llm.ImagePart("https://x/new.png")}})
	got := snap.Strip(later)
	if got[0].Content[0].IsMedia() || !got[1].Content[0].IsMedia() {
		t.Errorf("stripped %+v, want only the snapshot's image replaced", got)
	}
	if later[0].Content[0] != old {
		t.Error("Strip modified its input")
	}
	unrelated := []llm.Message{llm.UserMessage("x")}
	if got := snap.Strip(unrelated); &got[0] != &unrelated[0] {
		t.Error("Strip copied a list with nothing to replace")
	}
}

func TestTrimTrailingOpenToolExchange(t *testing.T) {
	u, a := llm.UserMessage("u"), llm.AssistantMessage("", llm.ToolCall{ID: "x"}, llm.ToolCall{ID: "y"})
	tx, ty := llm.ToolMessage("x", llm.TextPart("1")), llm.ToolMessage("y", llm.TextPart("2"))
	for _, tt := range []struct {
		name string
		in   []llm.Message
		want int
	}{
		{"open exchange is dropped", []llm.Message{u, a, tx}, 1},
		{"complete exchange stays", []llm.Message{u, a, tx, ty}, 4},
		{"text tail stays", []llm.Message{u, llm.AssistantMessage("hi")}, 2},
		{"only tool messages", []llm.Message{tx}, 0},
	} {
		if got := history.TrimTrailingOpenToolExchange(tt.in); len(got) != tt.want {
			t.Errorf("%s: kept %d messages, want %d", tt.name, len(got), tt.want)
		}
	}
}
