// Package render draws the transcript's blocks as lines of styled text at
// a given width (spec 06 §5.6, §5.8): user and assistant messages
// (assistant text as Markdown, rendered here: see Markdown), thinking, tool calls with
// their headers, collapsed outputs and Write/Edit diffs, the todo panel,
// status, notice and error lines, the compaction block, the footer and
// the welcome banner.
//
// It owns layout only: widths in terminal cells (East Asian wide
// characters and emoji count two), wrapping, previews and their hints,
// the line diff and its clusters, which todo items a collapsed panel
// shows. Every function is pure; none
// reads the terminal or the session. Colour comes from a Theme and never
// changes a layout; the terminal's colour profile is applied where the
// lines are written (ui/term), so NO_COLOR needs no theme of its own.
//
// Invariants, and the tests that guard them:
//   - The blocks of spec 06 §10 scenario 42 render exactly as specified
//     at width 80 (render_test.go TestScenario42Renderers), and every
//     renderer has a golden file without colour (testdata/*.golden; run
//     the tests with -update and read the diff).
//   - The plain theme lays every block out as the dark one does
//     (golden checks both).
//   - The diff follows the spec's LCS tie-breaking and stays exact, if
//     less minimal, on inputs too large for the table
//     (TestLineDiffMatchesTheLCSOnLargeInputs).
package render
