package injection

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/kimigo/kimigo/agent/history"
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/tools"
)

// VariantTodoList is the variant of the todo-list reminder.
const VariantTodoList = "todo_list_reminder"

// todoQuiet is how many assistant messages must pass, both since the list
// was last written and since the last reminder, before a reminder (spec
// 04 §8.2).
const todoQuiet = 10

//go:embed text/todo_reminder.md
var todoReminderText string

// TodoReminder nudges the model to keep its todo list current when it has
// not written it for a while (spec 04 §8.2). Only when TodoList is in the
// table.
type TodoReminder struct{ Tracker }

// Inject implements Injector.
func (r *TodoReminder) Inject(ctx context.Context, h Host) error {
	if !h.ToolActive(tools.NameTodoList) {
		return nil
	}
	sinceWrite, sinceReminder := todoCounts(h.History())
	if sinceWrite < todoQuiet || sinceReminder < todoQuiet {
		return nil
	}
	return r.Append(ctx, h, VariantTodoList, todoText(h.Todos()))
}

// todoCounts scans history backwards: assistant messages after the last
// one that wrote the list (a TodoList call with a todos array; reads do
// not count) and after the last reminder.
func todoCounts(h []history.Message) (sinceWrite, sinceReminder int) {
	foundWrite, foundReminder := false, false
	for i := len(h) - 1; i >= 0 && !(foundWrite && foundReminder); i-- {
		m := h[i]
		if m.Role == llm.RoleAssistant {
			if !foundWrite && writesTodos(m) {
				foundWrite = true
			}
			if !foundWrite {
				sinceWrite++
			}
			if !foundReminder {
				sinceReminder++
			}
			continue
		}
		if m.Origin.Is(history.OriginInjection) && m.Origin.Variant == VariantTodoList {
			foundReminder = true
		}
	}
	return sinceWrite, sinceReminder
}

func writesTodos(m history.Message) bool {
	for _, c := range m.ToolCalls {
		if c.Name != tools.NameTodoList {
			continue
		}
		var a struct {
			Todos json.RawMessage `json:"todos"`
		}
		if json.Unmarshal([]byte(c.Arguments), &a) == nil && len(a.Todos) > 0 && a.Todos[0] == '[' {
			return true
		}
	}
	return false
}

func todoText(items []tools.TodoItem) string {
	text := strings.TrimSpace(todoReminderText)
	if len(items) == 0 {
		return text
	}
	var b strings.Builder
	b.WriteString(text + "\n\nCurrent todo list:")
	for i, it := range items {
		fmt.Fprintf(&b, "\n%d. [%s] %s", i+1, it.Status, it.Title)
	}
	return b.String()
}
