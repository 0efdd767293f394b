// Package term is kimigo's terminal for the interactive interface: the
// inline Screen that redraws only a live region at the bottom of the
// terminal and prints finished transcript items above it into the
// terminal's own scrollback (spec 06 §5.1), and the TTY that puts the
// terminal into raw mode with bracketed paste and keyboard
// disambiguation and restores it on every way out.
//
// It owns: the escape sequences written to the terminal, the diff of one
// frame against the last (only lines from the first that changed are
// rewritten), where the region's top is after the terminal reflowed it
// on a resize, and the restore sequence. It does not own what the lines
// say (ui/tui and ui/render) or reading keys (bubbletea does).
//
// Invariants, and the tests that guard them:
//   - What a user can scroll through is exactly the printed blocks, in
//     order, followed by the current frame: no line is lost, doubled or
//     left over, after any sequence of prints, frames and resizes
//     (screen_test.go TestScreenKeepsScrollbackExact, FuzzScreen, checked
//     on the termtest emulator, which reflows like tmux).
//   - An unchanged frame writes nothing; a changed line rewrites only
//     from that line down (TestScreenWritesOnlyChanges).
//   - No live line reaches the last column, so the terminal never wraps
//     one (TestScreenCutsWideLines).
//   - Restore leaves the cursor visible, bracketed paste off, the
//     keyboard protocols popped and the line discipline as it was, and
//     may be called any number of times from any goroutine
//     (tty_test.go).
package term
