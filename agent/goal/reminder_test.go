package goal_test

import (
	"context"
	"strings"
	"testing"

	"github.com/kimigo/kimigo/agent/goal"
	"github.com/kimigo/kimigo/agent/history"
	"github.com/kimigo/kimigo/agent/injection"
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/tools"
)

// injectionHost is the injection manager's view of a host's history.
type injectionHost struct{ h *host }

func (i injectionHost) History() []history.Message { return i.h.mem.History() }
func (i injectionHost) AppendMessage(ctx context.Context, m history.Message) error {
	return i.h.AppendMessage(ctx, m)
}
func (injectionHost) PermissionMode() string          { return "manual" }
func (injectionHost) ToolActive(string) bool          { return false }
func (injectionHost) Todos() []tools.TodoItem         { return nil }
func (injectionHost) ActiveTasks() []tools.TaskInfo   { return nil }
func (injectionHost) LoadableTools() ([]string, bool) { return nil, false }

func goalReminders(h *host) []string {
	var out []string
	for _, m := range h.mem.History() {
		if m.Origin.Is(history.OriginInjection) && m.Origin.Variant == goal.VariantGoal {
			out = append(out, llm.ExtractText(m.Message, ""))
		}
	}
	return out
}

func TestS85GoalInjectionCadence(t *testing.T) {
	s, h := newStore(t)
	ctx := t.Context()
	m := injection.New(injection.Options{Boundary: []injection.Injector{s.Reminder()}})
	m.Bind(injectionHost{h})
	if err := m.InjectForTurn(ctx); err != nil || len(goalReminders(h)) != 0 {
		t.Fatalf("without a goal: %v, %v", goalReminders(h), err)
	}
	if _, err := s.Create(ctx, tools.GoalInput{Objective: "a <b>", CompletionCriterion: "x & y"}, goal.ActorUser); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if err := m.InjectForStep(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if got := goalReminders(h); len(got) != 0 {
		t.Errorf("per-step injection added %d goal reminders", len(got))
	}
	for range 2 {
		if err := m.InjectForTurn(ctx); err != nil {
			t.Fatal(err)
		}
	}
	got := goalReminders(h)
	if len(got) != 2 {
		t.Fatalf("two boundary injections added %d goal reminders", len(got))
	}
	for _, f := range []string{"<untrusted_objective>\na &lt;b&gt;\n</untrusted_objective>",
		"<untrusted_completion_criterion>\nx &amp; y\n</untrusted_completion_criterion>", "Status: active",
		"Progress: 0 continuation turns, 0 tokens, 0s elapsed.", "steady, focused progress", "SetGoalBudget"} {
		if !strings.Contains(got[0], f) {
			t.Errorf("reminder lacks %q:\n%s", f, got[0])
		}
	}

	// Three of four turns used: the converge band.
	four := 4
	if _, err := s.SetBudget(ctx, tools.GoalBudgetLimits{TurnBudget: &four}, goal.ActorUser); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if err := s.IncrementTurn(ctx); err != nil {
			t.Fatal(err)
		}
	}
	text := goal.ContextText(*s.Get())
	if !strings.Contains(text, "Budgets: turns 3/4 (remaining 1)") || !strings.Contains(text, "converge") {
		t.Errorf("converge band missing:\n%s", text)
	}

	// Paused and blocked goals get their notes.
	if err := s.Pause(ctx, "Paused after interruption"); err != nil {
		t.Fatal(err)
	}
	text = goal.ContextText(*s.Get())
	if !strings.Contains(text, "currently paused (Paused after interruption)") || !strings.Contains(text, "UpdateGoal") {
		t.Errorf("paused note:\n%s", text)
	}
	_ = s.Resume(ctx, goal.ActorUser)
	_ = s.MarkBlocked(ctx, goal.ReasonBudget)
	text = goal.ContextText(*s.Get())
	if !strings.Contains(text, "currently blocked") || strings.Contains(text, "UpdateGoal") || !strings.Contains(text, "/goal resume") {
		t.Errorf("blocked note:\n%s", text)
	}
}
