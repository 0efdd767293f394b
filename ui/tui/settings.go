package tui

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"

	"github.com/BurntSushi/toml"
	"github.com/kimigo/kimigo/ui/render"
)

// Settings are what tui.toml sets (spec 06 §2.10).
type Settings struct {
	// Theme is "auto" (the terminal's background decides), "dark" or
	// "light".
	Theme string
	// Editor is the Ctrl-G editor command; "" means $VISUAL, $EDITOR.
	Editor string
	// StatusItems orders the footer's first line; nil means the default.
	StatusItems []string
	// Env reads the environment (VISUAL, EDITOR, CI); nil reads none.
	Env func(string) string
}

func (s Settings) env(k string) string {
	if s.Env == nil {
		return ""
	}
	return s.Env(k)
}

// theme is the theme to start with: dark unless tui.toml says light (an
// "auto" theme switches once the terminal reports its background).
func (s Settings) theme() render.Theme {
	if s.Theme == "light" {
		return render.Light()
	}
	return render.Dark()
}

// statusItems are the footer items tui.toml may name.
var statusItems = []string{"mode", "goal", "model", "tasks", "cwd", "git", "tips"}

// LoadSettings reads tui.toml at path. A missing file gives the
// defaults; a malformed one the defaults and the notice spec 06 §2.10
// words; unknown status items are skipped with a warning naming them.
func LoadSettings(path string, env func(string) string) (Settings, []Notice) {
	s := Settings{Theme: "auto", Env: env}
	var raw struct {
		Theme  string `toml:"theme"`
		Editor struct {
			Command string `toml:"command"`
		} `toml:"editor"`
		StatusLine struct {
			Items []string `toml:"items"`
		} `toml:"status_line"`
	}
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return s, nil
	}
	invalid := []Notice{{Text: fmt.Sprintf("Invalid TUI config in %s; using defaults.", path), Warning: true}}
	if err != nil {
		return s, invalid
	}
	if _, err := toml.Decode(string(b), &raw); err != nil {
		return s, invalid
	}
	var notes []Notice
	switch raw.Theme {
	case "", "auto", "dark", "light":
		if raw.Theme != "" {
			s.Theme = raw.Theme
		}
	default:
		notes = append(notes, Notice{Text: fmt.Sprintf("Unknown theme %q in %s; using auto.", raw.Theme, path), Warning: true})
	}
	s.Editor = raw.Editor.Command
	if raw.StatusLine.Items != nil {
		s.StatusItems = []string{}
		for _, it := range raw.StatusLine.Items {
			if slices.Contains(statusItems, it) {
				s.StatusItems = append(s.StatusItems, it)
			} else {
				notes = append(notes, Notice{Text: fmt.Sprintf("Unknown status_line item %q in %s; skipped.", it, path), Warning: true})
			}
		}
	}
	return s, notes
}
