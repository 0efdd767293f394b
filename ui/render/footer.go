package render

import (
	"fmt"
	"math"
	"path/filepath"
	"strings"
)

// DefaultStatusItems is the footer's first line when tui.toml names none
// (spec 06 §5.8).
var DefaultStatusItems = []string{"mode", "goal", "model", "tasks", "cwd", "git"}

// Footer is what the two footer lines show.
type Footer struct {
	// Items orders line 1's slots; nil means DefaultStatusItems.
	Items []string
	// Modes are the active modes: "auto" or "yolo", "plan", "swarm".
	Modes []string
	// Goal is the goal badge, "" when no goal is active.
	Goal string
	// Model is the model's display name; Thinking says thinking is on and
	// Effort names its level when the model has levels.
	Model    string
	Thinking bool
	Effort   string
	// Tasks is the background-task badge, "" when none run.
	Tasks string
	// Cwd is the work dir, Home the user's home ("~" stands for it).
	Cwd, Home string
	// Git is the branch and its markers, "" outside a repository.
	Git string
	// Tip is the rotating tip (the "tips" item).
	Tip string
	// Hint is line 2's transient hint ("Press Ctrl+C again to exit").
	Hint string
	// ContextUsed and ContextMax are the context window's tokens; Usage
	// its fraction when known (it wins over the counts' ratio).
	ContextUsed, ContextMax int
	Usage                   *float64
	// SessionIn and SessionOut are the session's tokens so far, input and
	// output; both zero hide them.
	SessionIn, SessionOut int
}

// FooterLines renders the footer's two lines at width, with a one-cell
// gutter on each side.
func FooterLines(t Theme, f Footer, width int) [2]string {
	inner := max(width-2, 10)
	items := f.Items
	if items == nil {
		items = DefaultStatusItems
	}
	var slots []string
	for _, it := range items {
		if s := footerSlot(t, f, it); s != "" {
			slots = append(slots, s)
		}
	}
	line1 := Truncate(strings.Join(slots, "  "), inner)

	right := contextLabel(f)
	if f.SessionIn > 0 || f.SessionOut > 0 {
		right = fmt.Sprintf("↑%s ↓%s  ", Tokens(f.SessionIn), Tokens(f.SessionOut)) + right
	}
	left := ""
	if f.Hint != "" {
		room := inner - Width(right) - 2
		left = t.Warning.Bold(true).Render(Truncate(f.Hint, max(room, 1)))
	}
	gap := max(inner-Width(left)-Width(right), 1)
	line2 := left + strings.Repeat(" ", gap) + t.Dim.Render(right)
	if right == "" {
		line2 = left
	}
	return [2]string{" " + line1, " " + line2}
}

func footerSlot(t Theme, f Footer, item string) string {
	switch item {
	case "mode":
		var ms []string
		for _, m := range f.Modes {
			switch m {
			case "plan", "swarm":
				ms = append(ms, t.Primary.Bold(true).Render(m))
			default:
				ms = append(ms, t.Warning.Bold(true).Render(m))
			}
		}
		return strings.Join(ms, " ")
	case "goal":
		return f.Goal
	case "model":
		if f.Model == "" {
			return ""
		}
		s := f.Model
		switch {
		case f.Effort != "":
			s += " thinking: " + f.Effort
		case f.Thinking:
			s += " thinking"
		}
		return s
	case "tasks":
		return f.Tasks
	case "cwd":
		return t.Dim.Render(ShortPath(f.Cwd, f.Home))
	case "git":
		return t.Dim.Render(f.Git)
	case "tips":
		return t.Dim.Render(f.Tip)
	}
	return ""
}

// ShortPath shows a directory for the footer: the home as "~", and only
// the last three segments of a deeper path, after "…/".
func ShortPath(dir, home string) string {
	if dir == "" {
		return ""
	}
	p := filepath.ToSlash(dir)
	if h := filepath.ToSlash(home); h != "" && h != "/" {
		if p == h {
			p = "~"
		} else if rest, ok := strings.CutPrefix(p, strings.TrimSuffix(h, "/")+"/"); ok {
			p = "~/" + rest
		}
	}
	segs := strings.Split(strings.Trim(p, "/"), "/")
	if len(segs) > 3 {
		return "…/" + strings.Join(segs[len(segs)-3:], "/")
	}
	return p
}

// contextLabel is "context: <pct>% (<used>/<max>)", or without the
// counts when the window is unknown.
func contextLabel(f Footer) string {
	var frac float64
	switch {
	case f.Usage != nil:
		frac = *f.Usage
	case f.ContextMax > 0:
		frac = float64(f.ContextUsed) / float64(f.ContextMax)
	default:
		if f.ContextUsed == 0 {
			return ""
		}
	}
	pct := int(math.Round(frac * 100))
	if f.ContextMax <= 0 {
		return fmt.Sprintf("context: %d%%", pct)
	}
	return fmt.Sprintf("context: %d%% (%s/%s)", pct, Tokens(f.ContextUsed), Tokens(f.ContextMax))
}
