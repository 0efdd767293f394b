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
// Why not bubbletea's own inline renderer (spec 06 §5.12): ui/tui runs
// bubbletea v2 for its event loop, keys and paste, but draws through
// this Screen. bubbletea v2.1.1's renderer prints above its frame with
// tea.Println (insertAbove: newlines to scroll, cursor up, insert lines),
// which is exact only while the block fits above the frame: a 30-row
// block under a 5-row frame in a 24-row tmux window leaves the frame's
// 5 rows and 6 blank rows in the scrollback ahead of the block, and a
// print before the first frame overwrites the shell's last lines. Its
// flush erases and repaints the whole frame whenever the frame's height
// changes (every new line of a streaming answer) and on every resize.
// Resuming a session prints the last turns at once, and tool output
// and long paragraphs are routinely taller than the free screen.
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
