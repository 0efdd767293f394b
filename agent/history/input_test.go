package history_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kimigo/kimigo/agent/history"
	"github.com/kimigo/kimigo/llm"
)

func TestBlankAndTrim(t *testing.T) {
	for _, tt := range []struct {
		in    string
		blank bool
		trim  string
	}{
		{"", true, ""},
		{" \t\n\v\f\r", true, ""},
		{"\u00a0\ufeff\u2028\u2029\u3000\u2003", true, ""},
		{"\u0085", false, "\u0085"}, // NEL is not trimmed by JavaScript
		{"  a b  ", false, "a b"},
		{"\ufeffx\u00a0", false, "x"},
		{"\xff", false, "\xff"},
	} {
		if got := history.IsBlank(tt.in); got != tt.blank {
			t.Errorf("IsBlank(%q) = %v", tt.in, got)
		}
		if got := history.Trim(tt.in); got != tt.trim {
			t.Errorf("Trim(%q) = %q, want %q", tt.in, got, tt.trim)
		}
	}
}

func TestEscapeXML(t *testing.T) {
	if got := history.EscapeXML(`a&b<c>"d'`); got != `a&amp;b&lt;c&gt;&quot;d'` {
		t.Errorf("EscapeXML = %s", got)
	}
	if got := history.EscapeXMLAttr(`a&b<c>"`); got != `a&amp;b<c>&quot;` {
		t.Errorf("EscapeXMLAttr = %s", got)
	}
}

func TestUserMessagesSplitsImageCaptions(t *testing.T) {
	caption := "<system>Image compressed to fit model limits: 4000x3000 to 1568x1176.</system>"
	img := llm.ImagePart("data:image/png;base64,AAAA")
	got := history.UserMessages([]llm.ContentPart{llm.TextPart("look " + caption + " here"), llm.TextPart(caption), img}, history.UserOrigin())
	want := []history.Message{
		history.SystemReminder("Image compressed to fit model limits: 4000x3000 to 1568x1176.", history.InjectionOrigin(history.VariantImageCompression)),
		history.SystemReminder("Image compressed to fit model limits: 4000x3000 to 1568x1176.", history.InjectionOrigin(history.VariantImageCompression)),
		{Message: llm.Message{Role: llm.RoleUser, Content: []llm.ContentPart{llm.TextPart("look  here"), img}}, Origin: history.UserOrigin()},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	if text := llm.ExtractText(got[0].Message, ""); text != "<system-reminder>\nImage compressed to fit model limits: 4000x3000 to 1568x1176.\n</system-reminder>" {
		t.Errorf("reminder = %q", text)
	}
	if got := history.UserMessages([]llm.ContentPart{llm.TextPart(caption)}, history.UserOrigin()); len(got) != 1 || got[0].Origin.Kind != history.OriginInjection {
		t.Errorf("a caption-only prompt gave %+v, want just the reminder", got)
	}
	other := []llm.ContentPart{llm.TextPart(caption)}
	if got := history.UserMessages(other, history.InjectionOrigin("x")); len(got) != 1 || llm.ExtractText(got[0].Message, "") != caption {
		t.Errorf("a non-user origin was scanned: %+v", got)
	}
	if got := history.UserMessages(nil, history.UserOrigin()); got != nil {
		t.Errorf("no parts gave %+v", got)
	}
}

func TestShellAndStdoutMessages(t *testing.T) {
	for _, tt := range []struct {
		name   string
		msg    history.Message
		text   string
		origin history.Origin
	}{
		{"bash input", history.BashInput(`echo "<a>" & b`), "<bash-input>\necho &quot;&lt;a&gt;&quot; &amp; b\n</bash-input>",
			history.Origin{Kind: history.OriginShellCommand, Phase: history.ShellInput}},
		{"bash output", history.BashOutput("<ok>", "warn", true), "<bash-stdout>&lt;ok&gt;</bash-stdout><bash-stderr>warn</bash-stderr>",
			history.Origin{Kind: history.OriginShellCommand, Phase: history.ShellOutput, IsError: true}},
		{"local stdout", history.LocalCommandStdout("  cost  \n"), "<local-command-stdout>\ncost\n</local-command-stdout>",
			history.Origin{Kind: history.OriginInjection, Variant: history.VariantLocalCommandStdout}},
		{"reminder", history.SystemReminder("\n note \n", nil), "<system-reminder>\nnote\n</system-reminder>", history.Origin{}},
	} {
		if got := llm.ExtractText(tt.msg.Message, ""); got != tt.text || tt.msg.Role != llm.RoleUser {
			t.Errorf("%s: %s %q, want %q", tt.name, tt.msg.Role, got, tt.text)
		}
		if tt.origin.Kind != "" && !tt.msg.Origin.Equal(&tt.origin) {
			t.Errorf("%s: origin %+v", tt.name, tt.msg.Origin)
		}
	}
}

func TestImportContext(t *testing.T) {
	mem := memoryWith(t, history.Options{}, U("hello"))
	msg, tokens, err := mem.ImportContext("notes & <stuff>", `a "b" & c`, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(msg.Content) != 2 || !msg.Origin.Is(history.OriginUser) {
		t.Fatalf("message = %+v", msg)
	}
	if first := msg.Content[0].Text; !strings.HasPrefix(first, "<system>") || !strings.Contains(first, "a &quot;b&quot; &amp; c") {
		t.Errorf("first part = %q", first)
	}
	if second := msg.Content[1].Text; second != "<imported_context source=\"a &quot;b&quot; &amp; c\">\nnotes & <stuff>\n</imported_context>" {
		t.Errorf("second part = %q", second)
	}
	if want := mem.TokenCountWithPending() + llm.EstimateMessage(msg.Message); tokens != want {
		t.Errorf("tokens = %d, want %d", tokens, want)
	}
	for _, tt := range []struct {
		content, source string
		limit           int
		code            history.Code
		reason          string
	}{
		{" \n", "file", 0, history.CodeRequestInvalid, history.ReasonImportContentEmpty},
		{"x", "\t", 0, history.CodeRequestInvalid, history.ReasonImportSourceEmpty},
		{strings.Repeat("y", 400), "file", 50, history.CodeContextOverflow, history.ReasonImportContextOverflow},
	} {
		_, _, err := mem.ImportContext(tt.content, tt.source, tt.limit)
		var herr *history.Error
		if !errors.As(err, &herr) || herr.Code != tt.code || herr.Reason != tt.reason {
			t.Errorf("ImportContext(%q, %q, %d) = %v, want %s/%s", tt.content, tt.source, tt.limit, err, tt.code, tt.reason)
		}
	}
	if mem.Len() != 1 {
		t.Error("ImportContext changed the memory")
	}
}
