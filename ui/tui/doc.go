// Package tui is kimigo's interactive interface (spec 06 §5): an inline
// terminal program that prints finished transcript items once into the
// terminal's own scrollback and redraws only a live region below them —
// the running turn's unfinished items, the activity line, the todo
// panel, the queue, the editor or the panel that replaces it, and the
// footer.
//
// It owns: the Model (model.go) and how it folds the session's events
// into transcript items (events.go, transcript.go); the keys (keys.go)
// and the interrupt and exit ladder on an injected clock (ladder.go);
// submitting, queueing and steering (queue.go); the one registry of slash
// commands (command.go, commands.go) that later parts of kimigo add to;
// the approval panel with its danger labels (approval.go, danger.go; the
// plan review shows the plan, scrollable, above approve / revise with
// feedback / reject, and the goal start offers the modes; neither, nor
// any request marked OnceOnly, offers a remembered choice; a
// child's request and question name the child: "agent-2 wants to use
// Bash", "agent-2 asks:"), the
// side panel of /btw (btw.go: a side question answered while the main
// turn goes on, follow-ups with /btw, Esc dismisses it before it reaches
// the turn) and the footer's count of running children, /swarm
// (swarm.go: on, off, or a task, which in manual mode first offers auto
// or yolo; below the activity line, each child a rate limit suspended,
// "agent-3 suspended: <reason> · 4s", until it starts again or ends), the
// question dialog (question.go), the pickers for sessions, models,
// permission modes and /undo (picker.go, switch.go), help and the
// expanded view (help.go, pager.go), completion of commands and @paths
// (complete.go), "!" commands (shell.go), tui.toml (settings.go), and
// Run (program.go), which drives the model with bubbletea's input and
// loop and draws it with ui/term's inline Screen.
//
// It does not own: what a block looks like (ui/render), editing text
// (ui/editor), the terminal's escape sequences (ui/term), or anything of
// the agent: it drives a session through its Session interface
// (session.go; *session.Session implements it) and the event vocabulary
// of package event, and never imports agent packages.
//
// Drawing: the program draws when the model asks (ShouldPaint) — after a
// key at once, while a turn streams at most every 50 ms on one frame
// tick — and never on a timer while nothing changes. Deltas accumulate
// between frames; a text item prints its finished paragraphs as they
// complete, so the live region stays small however long the answer.
// Session calls that may block run in order off the update loop
// (caller.go); Compact runs on its own and is cancelled through its
// context. The first session opens in the background while the first
// frame is drawn.
//
// Seams for later parts (optional capabilities found by type assertion
// on the Session, session.go and tasks.go): plan mode (planner:
// Shift-Tab, /plan; planClearer: /plan clear), thinking effort (efforter: /effort), "!" commands
// that the model sees (shellRunner; without it the interface runs them
// itself and the model does not see them), moving a command to the
// background (detacher: Ctrl-B and its hint), background tasks (tasker:
// the /tasks browser and the footer's count), /undo (undoer) and
// /export-md (markdownExporter), and side questions (btwer: /btw), all
// of which *session.Session has.
// A command that needs a capability says so in Command.Available: help
// and completion leave it out for a session without it.
// Questions before the session opens (the workspace trust question) are
// Options.Ask. Goal mode (goaler: /goal, goal.go) and plan mode are
// *session.Session's. /mcp, /hooks, /skill: and /login add their
// commands to builtinCommands or Options.Commands.
//
// Invariants, and the tests that guard them:
//   - Spec 06 §10 scenarios 37–41 and 43 on the model with a fake clock
//     (scenarios_test.go); 42 is ui/render's.
//   - A turn's items reach the scrollback once each, in the model's order
//     (TestTurnTranscript).
//   - Run restores the terminal after /exit, Ctrl-C or Ctrl-D twice, a
//     panic, and a resize in between (program_test.go, on a real
//     pseudo-terminal); SIGTERM and SIGHUP through the built binary in
//     tmux (cmd/kimigo tui_e2e_test.go).
//   - The interrupt ladder's windows and priorities (ladder_test.go).
//   - A side answer streams into its panel only, never into the
//     transcript or the main turn; Esc closes it first; a child's
//     approval names the child (btw_test.go; through the built binary in
//     tmux, cmd/kimigo tui_e2e_test.go TestTUIBtw).
//   - A "!" command goes to a session that runs it (*session.Session:
//     through its Bash, so its command sandbox, and into the
//     conversation), never to a shell of the interface's own
//     (TestShellCommandRunsInTheSession; the sandbox's refusal through
//     the built binary in cmd/kimigo TestTUISandboxConfinesCommands).
//   - Options.Ask comes before the session opens; Enter takes Ask.Default
//     (TestAskBeforeTheSessionOpens).
package tui
