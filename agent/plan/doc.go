// Package plan is plan mode (spec 04 §5): a read-only phase in which the
// model writes a plan to one file and presents it with ExitPlanMode for the
// user to review.
//
// It owns:
//   - Mode: whether plan mode is on, the plan id and the plan file path
//     (<home>/plans/<id>.md), Enter, Cancel, Exit, Clear and Data, and the
//     records plan_mode.enter, .cancel and .exit with Apply — the only
//     place the state changes, live and on resume alike (record.go).
//   - the three policies plan mode puts into the permission chain's slots
//     (ERRATA 8; policy.go): the guard (4) refusing writes other than the
//     plan file and TaskStop, CronCreate, CronDelete; the review of
//     ExitPlanMode (10), whose answer becomes the call's result; the
//     approval of EnterPlanMode, plan-file writes and an ExitPlanMode with
//     nothing to review (12).
//   - the plan reminder, a per-step injector (reminder.go, text/*.md).
//   - the plan tools' view of it (tools.PlanMode, tools.go).
//
// It does not own: committing records (the agent, through Host), the
// plan tools themselves (tools: EnterPlanMode, ExitPlanMode), the review
// panel (a front end's Approver), or when reminders run (agent/injection).
//
// Invariants, and the tests that guard them:
//   - Apply never does I/O: a resume restores plan mode with the same id
//     and path without touching the disk (S60, agent/modes_test.go).
//   - Writes in plan mode reach only the plan file, in every permission
//     mode, unless a deny rule stops them first (S61, agent/permission
//     chain_test.go S8, S9, S11, S25, the mode matrix).
//   - A rejected or dismissed review leaves plan mode on unless the user
//     chose Reject and Exit; a transport error leaves it untouched (S18,
//     S19, S54).
//   - The reminder follows the cadence of spec 04 §5.7 (S64).
//
// Tests: mode_test.go (S60, S61, S63, S91), reminder_test.go (S64);
// the chain scenarios in agent/permission; the agent scenarios (S62,
// resume) in agent/modes_test.go.
package plan
