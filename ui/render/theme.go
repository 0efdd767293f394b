package render

import (
	"image/color"

	"charm.land/lipgloss/v2"
)

// Theme is the palette as styles: every renderer takes one, so colour is
// a choice of theme and never changes a layout (the golden files are the
// dark theme's output with its escape sequences stripped).
type Theme struct {
	Name string
	// Text is ordinary text; Dim secondary text (hints, previews,
	// thinking); Muted the least important (gutters, rules).
	Text, Dim, Muted lipgloss.Style
	// Primary marks the current thing: in-progress todos, plan mode, the
	// selection.
	Primary lipgloss.Style
	// Success, Error and Warning colour outcomes and warnings.
	Success, Error, Warning lipgloss.Style
	// Added and Removed colour diff rows.
	Added, Removed lipgloss.Style
	// User is the user's own messages; Shell the shell-mode prompt and
	// border.
	User, Shell lipgloss.Style
	// Thinking is reasoning text.
	Thinking lipgloss.Style
	// Bold is emphasis without colour.
	Bold lipgloss.Style
	// Border colours the editor's and panels' borders.
	Border lipgloss.Style
	// Dark says the theme is for a dark background.
	Dark bool
}

// Dark is the theme for dark terminal backgrounds.
func Dark() Theme {
	return palette("dark", true, palette8{
		text: "#d7d7d7", dim: "#8a8a8a", muted: "#5f5f5f", primary: "#8fa8ff",
		success: "#5fd787", errorC: "#ff6b6b", warning: "#ffc857", added: "#5fd787",
		removed: "#ff6b6b", user: "#e4e4e4", shell: "#b48cff",
	})
}

// Light is the theme for light terminal backgrounds.
func Light() Theme {
	return palette("light", false, palette8{
		text: "#262626", dim: "#6c6c6c", muted: "#9e9e9e", primary: "#3652d9",
		success: "#1f8f4a", errorC: "#c62828", warning: "#a86500", added: "#1f8f4a",
		removed: "#c62828", user: "#121212", shell: "#7b3fd6",
	})
}

// Plain is the theme without colour (NO_COLOR, a terminal without
// colour); bold, italic and strikethrough stay.
func Plain() Theme {
	s := lipgloss.NewStyle()
	return Theme{Name: "plain", Text: s, Dim: s, Muted: s, Primary: s, Success: s, Error: s, Warning: s,
		Added: s, Removed: s, User: s, Shell: s, Thinking: s, Bold: s, Border: s, Dark: true}
}

type palette8 struct {
	text, dim, muted, primary, success, errorC, warning, added, removed, user, shell string
}

func palette(name string, dark bool, p palette8) Theme {
	fg := func(c string) lipgloss.Style { return lipgloss.NewStyle().Foreground(lipgloss.Color(c)) }
	return Theme{
		Name: name, Dark: dark,
		Text: fg(p.text), Dim: fg(p.dim), Muted: fg(p.muted), Primary: fg(p.primary),
		Success: fg(p.success), Error: fg(p.errorC), Warning: fg(p.warning),
		Added: fg(p.added), Removed: fg(p.removed), User: fg(p.user).Bold(true), Shell: fg(p.shell),
		Thinking: fg(p.dim).Italic(true), Bold: lipgloss.NewStyle().Bold(true), Border: fg(p.muted),
	}
}

// Color is a style's foreground colour, for borders drawn in it.
func Color(s lipgloss.Style) color.Color { return s.GetForeground() }
