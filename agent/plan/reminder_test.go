package plan_test

import (
	"context"
	"strings"
	"testing"

	"github.com/kimigo/kimigo/agent/history"
	"github.com/kimigo/kimigo/agent/plan"
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/tools"
)

// historyHost is an injection host over a real history memory.
type historyHost struct{ mem *history.Memory }

func (h historyHost) History() []history.Message { return h.mem.History() }
func (h historyHost) AppendMessage(_ context.Context, m history.Message) error {
	_, err := h.mem.Apply(history.AppendMessageRecord{Message: m})
	return err
}
func (historyHost) PermissionMode() string          { return "manual" }
func (historyHost) ToolActive(string) bool          { return false }
func (historyHost) Todos() []tools.TodoItem         { return nil }
func (historyHost) ActiveTasks() []tools.TaskInfo   { return nil }
func (historyHost) LoadableTools() ([]string, bool) { return nil, false }

func (h historyHost) say(t *testing.T, role llm.Role, n int) {
	t.Helper()
	for range n {
		m := history.Message{Message: llm.Message{Role: role, Content: []llm.ContentPart{llm.TextPart("x")}}}
		if role == llm.RoleUser {
			m.Origin = history.UserOrigin()
		}
		if err := h.AppendMessage(t.Context(), m); err != nil {
			t.Fatal(err)
		}
	}
}

// planReminders are the plan reminders in history, each named by its
// first words.
func planReminders(h historyHost) []string {
	var out []string
	for _, m := range h.History() {
		if m.Origin.Is(history.OriginInjection) && m.Origin.Variant == plan.VariantPlanMode {
			out = append(out, llm.ExtractText(m.Message, ""))
		}
	}
	return out
}

func kind(text string) string {
	switch {
	case strings.Contains(text, "Plan mode has ended"):
		return "exit"
	case strings.Contains(text, "earlier planning session"):
		return "reentry"
	case strings.Contains(text, "Plan mode is still active"):
		return "sparse"
	case strings.Contains(text, "Plan mode is active."):
		return "full"
	}
	return "?"
}

func TestS64PlanReminderCadence(t *testing.T) {
	m, _, env := newMode(t, plan.Options{HomeDir: "/h", NewID: func() string { return "p" }})
	h := historyHost{history.New(history.Options{})}
	r := m.Reminder()
	inject := func(want string) {
		t.Helper()
		before := len(planReminders(h))
		if err := r.Inject(t.Context(), h); err != nil {
			t.Fatal(err)
		}
		got := planReminders(h)
		switch {
		case want == "" && len(got) != before:
			t.Fatalf("injected %s; want nothing", kind(got[len(got)-1]))
		case want != "" && (len(got) != before+1 || kind(got[len(got)-1]) != want):
			t.Fatalf("injected %d reminders (last %q); want one %s", len(got)-before, got, want)
		}
	}
	h.say(t, llm.RoleUser, 1)
	inject("") // plan mode is off
	if err := m.Enter(t.Context(), plan.EnterOptions{}); err != nil {
		t.Fatal(err)
	}
	inject("full")
	if got := planReminders(h)[0]; !strings.HasSuffix(got, "Plan file: /h/plans/p.md\n</system-reminder>") {
		t.Errorf("full reminder does not end with the plan file: %q", got)
	}
	inject("")
	h.say(t, llm.RoleAssistant, 1)
	inject("")
	h.say(t, llm.RoleAssistant, 1)
	inject("sparse")
	h.say(t, llm.RoleAssistant, 5)
	inject("full")
	h.say(t, llm.RoleAssistant, 1)
	h.say(t, llm.RoleUser, 1)
	inject("full")
	if err := m.Exit(t.Context()); err != nil {
		t.Fatal(err)
	}
	inject("exit")
	inject("")
	h.say(t, llm.RoleAssistant, 6)
	inject("")

	// A plan restored with content asks for a revisit first.
	if err := env.WriteFile("/h/plans/p.md", []byte("# Old plan"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := m.Apply(plan.EnterRecord{ID: "p"}); err != nil {
		t.Fatal(err)
	}
	fresh := m.Reminder()
	r = fresh
	inject("reentry")
	inject("")
}

func TestPlanReminderWithoutPath(t *testing.T) {
	m, _, _ := newMode(t, plan.Options{Cwd: func() string { return "" }, NewID: func() string { return "p" }})
	if err := m.Enter(t.Context(), plan.EnterOptions{}); err != nil {
		t.Fatal(err)
	}
	h := historyHost{history.New(history.Options{})}
	if err := m.Reminder().Inject(t.Context(), h); err != nil {
		t.Fatal(err)
	}
	got := planReminders(h)
	if len(got) != 1 || strings.Contains(got[0], "Plan file:") || !strings.Contains(got[0], "wait for the host") {
		t.Errorf("reminders %q", got)
	}
}
