package tui

import "time"

// Windows of the interrupt and exit ladder (spec 06 §5.9).
const (
	ExitConfirmWindow = 1500 * time.Millisecond
	DoubleEscWindow   = 600 * time.Millisecond
)

// Busy is what runs when a key of the ladder arrives.
type Busy struct {
	// Operation is a cancellable operation in flight (a model list
	// fetch, a login).
	Operation bool
	// Compacting, Streaming: a compaction or a turn runs; Shell: a "!"
	// command runs.
	Compacting, Streaming, Shell bool
	// EditorEmpty: the editor has no text.
	EditorEmpty bool
	// Picker: the session picker is open.
	Picker bool
}

// Action is what the ladder decided a key does.
type Action int8

// Actions, in no particular order.
const (
	DoNothing Action = iota
	CancelOperation
	ClearEditor
	CancelCompaction
	CancelTurn
	ArmCtrlC // clear the editor and show "Press Ctrl+C again to exit"
	ArmCtrlD // show "Press Ctrl+D again to exit"
	Exit     // leave the program
	Disarm   // an exit confirmation was pending: drop it
	ClosePicker
	ArmEsc // remember the Esc: a second one soon opens the undo selector
	OpenUndo
	DeleteForward // Ctrl-D in an editor with text
)

// Ladder is the "business" of Ctrl-C, Ctrl-D and Esc (spec 06 §5.9): the
// priorities and the double-press windows, on an injected clock, with no
// terminal. Popups and dialogs take Esc before it; the model asks the
// ladder only what is left.
type Ladder struct {
	// Now is the clock.
	Now func() time.Time

	ctrlC, ctrlD, esc time.Time // when each was armed; zero when not
}

// NewLadder returns a ladder on the clock now.
func NewLadder(now func() time.Time) *Ladder { return &Ladder{Now: now} }

func (l *Ladder) within(t time.Time, w time.Duration) bool {
	return !t.IsZero() && l.Now().Sub(t) <= w
}

// Pending is the exit confirmation the footer shows: "ctrl+c",
// "ctrl+d" or "" for none.
func (l *Ladder) Pending() string {
	switch {
	case l.within(l.ctrlC, ExitConfirmWindow):
		return "ctrl+c"
	case l.within(l.ctrlD, ExitConfirmWindow):
		return "ctrl+d"
	}
	return ""
}

// CtrlC decides Ctrl-C: cancel what is in flight, clear the editor or
// cancel a compaction or a turn, else exit when a confirmation is
// pending, else arm one.
func (l *Ladder) CtrlC(b Busy) Action {
	l.esc = time.Time{}
	switch {
	case b.Operation:
		return CancelOperation
	case b.Compacting && !b.EditorEmpty:
		return ClearEditor
	case b.Compacting:
		return CancelCompaction
	case (b.Streaming || b.Shell) && !b.EditorEmpty:
		return ClearEditor
	case b.Streaming || b.Shell:
		return CancelTurn
	case l.within(l.ctrlC, ExitConfirmWindow):
		return Exit
	}
	l.ctrlC, l.ctrlD = l.Now(), time.Time{}
	return ArmCtrlC
}

// CtrlD decides Ctrl-D: with text in the editor it deletes forward;
// otherwise exit when its confirmation is pending, else arm it.
func (l *Ladder) CtrlD(b Busy) Action {
	l.esc = time.Time{}
	if !b.EditorEmpty {
		return DeleteForward
	}
	if l.within(l.ctrlD, ExitConfirmWindow) {
		return Exit
	}
	l.ctrlD, l.ctrlC = l.Now(), time.Time{}
	return ArmCtrlD
}

// Esc decides Esc: drop a pending exit confirmation, close the picker,
// cancel a compaction or a turn; idle, a second Esc within 600 ms opens
// the undo selector.
func (l *Ladder) Esc(b Busy) Action {
	if l.Pending() != "" {
		l.ctrlC, l.ctrlD = time.Time{}, time.Time{}
		return Disarm
	}
	switch {
	case b.Picker:
		return ClosePicker
	case b.Compacting:
		return CancelCompaction
	case b.Streaming || b.Shell:
		return CancelTurn
	case l.within(l.esc, DoubleEscWindow):
		l.esc = time.Time{}
		return OpenUndo
	}
	l.esc = l.Now()
	return ArmEsc
}

// OtherKey records a key that is none of the ladder's: it ends a
// double-Esc.
func (l *Ladder) OtherKey() { l.esc = time.Time{} }

// Disarm drops any pending confirmation (a command ran, the program
// changed state).
func (l *Ladder) Disarm() { l.ctrlC, l.ctrlD, l.esc = time.Time{}, time.Time{}, time.Time{} }
