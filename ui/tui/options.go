package tui

import (
	"context"
	"io"
	"log/slog"
	"time"

	"github.com/kimigo/kimigo/session"
)

// Options start the interface.
type Options struct {
	// Session is the open session, or Start opens it in the background
	// while the interface draws its first frame. The interface owns the
	// session: it closes it (and any it switches to) before Run returns.
	// A Start that fails ends Run with a *StartError.
	Session Session
	Start   func(ctx context.Context) (Opened, error)
	// Open opens another session of the work dir: a new one (id ""), or
	// the one id names (/new, /clear, the session picker). Nil disables
	// switching.
	Open func(ctx context.Context, id string) (Opened, error)
	// Reload reads config.toml and tui.toml again (/reload); the session
	// is then reopened with them through Open. Nil disables /reload.
	Reload func() (Reloaded, error)
	// Login is /login's API-key setup and Logout /logout's: it removes a
	// provider ("" for the only one) and says what it did. Nil disables
	// them.
	Login  *Login
	Logout func(provider string) (string, error)
	// Store lists sessions for the picker; nil disables it.
	Store *session.Store
	// Picker opens the session picker before anything else (-r or -S
	// without an id); choosing nothing exits.
	Picker bool
	// Ask are questions put to the user before Start opens the session,
	// in order (the workspace trust question).
	Ask []Ask
	// Models are the configured models /model offers.
	Models []ModelChoice
	// Model is the current model's alias; Thinking says its thinking is
	// on, Effort names the level when the model has levels.
	Model, Effort string
	Thinking      bool

	// Home is the data root (input history); UserHome the user's home
	// ("~" in paths); WorkDir the work dir.
	Home, UserHome, WorkDir string
	// Version is kimigo's version, for the banner.
	Version string
	// TUI is tui.toml's settings.
	TUI Settings

	// Prompt is sent as soon as the interface starts (kimigo "prompt").
	Prompt string
	// Notices are shown after the banner (load warnings, the -c notice).
	Notices []Notice
	// Replay is the end of a resumed conversation, shown before the
	// prompt (spec 06 §5.1: the last ten turns).
	Replay []session.TranscriptEntry
	// Resumed says the session existed before (its content makes the
	// resume hint worth printing).
	Resumed bool

	// Commands are more slash commands, added to the built-in ones.
	Commands []Command

	// Logger receives the interface's logs; nil discards. The terminal is
	// the interface's: logs go to a file.
	Logger *slog.Logger
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Stderr receives what is printed after the terminal is restored (the
	// resume hint); nil means os.Stderr.
	Stderr io.Writer
}

// Ask is a question the interface puts to the user at start: a title,
// a detail and the answers to choose from.
type Ask struct {
	Title, Detail string
	Choices       []string
	// Default is the index of the answer selected at first.
	Default int
	// Answer gets the chosen answer's index, -1 when the user closed the
	// question; an error ends the program with it (a *StartError).
	Answer func(choice int) error
}

// ModelChoice is a configured model /model offers.
type ModelChoice struct {
	Alias string
	// Display is what the footer and the picker show; "" means Alias.
	Display string
	// Efforts are the thinking efforts the model offers, if any.
	Efforts []string
}

// Notice is something to show under the banner at start.
type Notice struct {
	Text    string
	Warning bool
}
