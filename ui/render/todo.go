package render

import (
	"fmt"
	"strings"
)

// Todo is one item of the todo panel.
type Todo struct {
	Title  string
	Status string // "pending", "in_progress" or "done"
}

// Todo statuses, as the TodoList tool stores them.
const (
	TodoPending    = "pending"
	TodoInProgress = "in_progress"
	TodoDone       = "done"
)

// todoRows is how many items a collapsed panel shows.
const todoRows = 5

// TodoPanel renders the todo panel (spec 06 §5.6.6): a rule, " Todo",
// then one row per shown item. A list of more than five items shows five
// unless expanded: every item in progress, then the earliest pending
// ones, keeping one row for the latest done item when there are both;
// rows keep their order and a summary line counts what is hidden.
func TodoPanel(t Theme, items []Todo, width int, expanded bool) []string {
	if len(items) == 0 {
		return nil
	}
	out := []string{t.Muted.Render(strings.Repeat("─", max(width-1, 1))), t.Bold.Render(" Todo")}
	show := make([]bool, len(items))
	if expanded || len(items) <= todoRows {
		for i := range show {
			show[i] = true
		}
	} else {
		pick(items, show)
	}
	for i, it := range items {
		if show[i] {
			out = append(out, todoRow(t, it, width))
		}
	}
	switch {
	case !expanded && len(items) > todoRows:
		var done, doing, pending, hidden int
		for i, it := range items {
			if show[i] {
				continue
			}
			hidden++
			switch it.Status {
			case TodoDone:
				done++
			case TodoInProgress:
				doing++
			default:
				pending++
			}
		}
		var parts []string
		for _, c := range []struct {
			n    int
			name string
		}{{done, "done"}, {doing, "in progress"}, {pending, "pending"}} {
			if c.n > 0 {
				parts = append(parts, fmt.Sprintf("%d %s", c.n, c.name))
			}
		}
		out = append(out, t.Dim.Render(fmt.Sprintf("  … +%d more (%s) · ctrl+t to expand", hidden, strings.Join(parts, " · "))))
	case expanded && len(items) > todoRows:
		out = append(out, t.Dim.Render(fmt.Sprintf("  all %d items · ctrl+t to collapse", len(items))))
	}
	return out
}

// pick marks the rows a collapsed panel of more than five items shows.
func pick(items []Todo, show []bool) {
	var doing, pending, done []int
	for i, it := range items {
		switch it.Status {
		case TodoInProgress:
			doing = append(doing, i)
		case TodoDone:
			done = append(done, i)
		default:
			pending = append(pending, i)
		}
	}
	n := 0
	for _, i := range doing {
		if n == todoRows {
			return
		}
		show[i] = true
		n++
	}
	r := todoRows - n
	takePending := min(len(pending), r)
	if len(pending) > 0 && len(done) > 0 && takePending == r {
		takePending = r - 1 // a row for the latest done item
	}
	for _, i := range pending[:takePending] {
		show[i] = true
	}
	for k := 0; k < r-takePending && k < len(done); k++ {
		show[done[len(done)-1-k]] = true
	}
}

func todoRow(t Theme, it Todo, width int) string {
	title := Truncate(it.Title, max(width-5, 4))
	switch it.Status {
	case TodoInProgress:
		return "  " + t.Primary.Bold(true).Render("●") + " " + t.Bold.Render(title)
	case TodoDone:
		return "  " + t.Success.Render("✓") + " " + t.Dim.Strikethrough(true).Render(title)
	default:
		return "  " + t.Dim.Render("○") + " " + title
	}
}
