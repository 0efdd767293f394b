package render

import (
	"strings"

	"charm.land/lipgloss/v2"
)

// Welcome is what the banner at the top of a session shows.
type Welcome struct {
	Version string
	WorkDir string
	Home    string
	Model   string
	// Resumed names the session a resume continues, "" for a new one.
	Resumed string
}

// WelcomeBanner renders the banner: the product and version, the work
// dir, the model and how to get started, in a rounded box.
func WelcomeBanner(t Theme, w Welcome, width int) []string {
	inner := min(max(width-4, 20), 76)
	lines := []string{t.Bold.Render("✨ kimigo") + " " + t.Dim.Render(w.Version), ""}
	field := func(label, value string) {
		lines = append(lines, t.Dim.Render(label)+Truncate(value, inner-Width(label)))
	}
	field("directory  ", ShortPath(w.WorkDir, w.Home))
	if w.Model != "" {
		field("model      ", w.Model)
	}
	if w.Resumed != "" {
		field("session    ", w.Resumed)
	}
	lines = append(lines, "", t.Dim.Render(Truncate("/ commands · @ files · ! shell · ctrl+j newline · esc interrupts", inner)))
	box := lipgloss.NewStyle().Border(lipgloss.RoundedBorder()).BorderForeground(Color(t.Border)).
		Padding(0, 1).Width(inner + 2).Render(strings.Join(lines, "\n"))
	return strings.Split(box, "\n")
}
