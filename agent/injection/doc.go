// Package injection adds reminders to an agent's history at turn and step
// boundaries (spec 04 §8): a Manager with a per-step group (the todo-list
// reminder, the permission-mode reminder, then ToolsDiff, which announces
// the tools select_tools may load; plan mode joins after the todo
// reminder) and a boundary group run at turn start and after a compaction
// (goal plugs in there), plus the reminder of still
// running background tasks that only a compaction triggers. Every
// reminder is a user message <system-reminder>…</system-reminder> with
// origin {injection, variant}, committed through the agent's normal append
// path, so it is recorded, deferred behind an open tool exchange and
// replayed verbatim on resume; injectors never run during a replay.
//
// Tracker holds the bookkeeping every dynamic injector shares (injectedAt,
// kept in step with clear, compaction and undo); OncePerContext is the
// once-per-context shape of the plugin session-start reminder. Reminder
// texts live in text/*.md.
//
// It does not own: when the call sites run (agent/turn calls
// InjectForTurn and InjectForStep; the agent's compaction calls
// InjectAfterCompaction before it reports the compaction complete), the
// permission mode, the todo list or the tasks (read through Host).
//
// Invariants, and the tests that guard them (agent/injection_test.go, on
// the real agent):
//   - Entering auto adds one reminder, staying adds none, a compaction
//     restates it, leaving adds one, manual ↔ yolo adds none (S90).
//   - The todo reminder needs ten assistant messages since the last write
//     and since the last reminder; reads do not count as writes (S91).
//   - A once-per-context reminder is added once, not again after a resume
//     that replayed it, and again after a compaction (S92).
//   - Undo keeps reminders; after a compaction they come back in the order
//     boundary, background tasks, per-step (S93).
//   - A resume replays reminders and adds none (S94).
//   - ToolsDiff announces the loadable tools once, and a server's tools as
//     removed at the step after it died (agent's TestScenario86SelectTools,
//     TestToolsDiffAnnouncesRemovedToolsAtTheNextStep).
package injection
