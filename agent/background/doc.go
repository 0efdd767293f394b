// Package background is one agent's background task manager (spec 05 §6):
// processes started by Bash (in the foreground and in the background),
// subagent runs and background questions, each a Task the Manager runs.
//
// It owns: registration and the running-task cap; each task's lifecycle
// on a goroutine of its own (deadline, stop with a grace before the task
// is forced, the move from the foreground to the background when a
// foreground deadline passes or the user detaches); output capture (a
// bounded in-memory ring per task plus the complete tasks/<id>/output.log
// under the agent's home, and the 16 MiB ceiling of process tasks); the
// records tasks/<id>.json; the notification that tells the model a
// background task ended, delivered through Host.Steer so that the model
// reacts at its next step; and the resume step (Reconcile) that turns
// tasks that were running into lost ones, stops the process groups a
// killed kimigo left behind, and appends the notifications that never
// reached history.
//
// It does not own: starting processes (tools.Bash spawns them through
// osenv and hands them over), the task tools (tools.TaskList, TaskOutput
// and TaskStop, which reach the manager through tools.BackgroundTasks),
// the turn (it steers through Host and never imports agent/turn), or what
// front ends show (TaskStarted and TaskTerminated events go out through
// Options.Events).
//
// Invariants, and the tests that guard them:
//   - A task has one terminal status, set once, by its lifecycle
//     goroutine; a stop's natural settlement within the grace wins
//     (lifecycle_test.go).
//   - A stopped process task leaves no process of its group behind
//     (bash_test.go, S43; persist_test.go, after a killed kimigo).
//   - Memory per task is bounded whatever it prints; the log on disk holds
//     every byte (ring_test.go, bash_test.go S42,
//     BenchmarkHundredChattyTasks).
//   - A notification is delivered at most once per task and status, live
//     or on resume, and never for a task TaskStop stopped
//     (lifecycle_test.go, bash_test.go S39, persist_test.go S45 and
//     TestResumeDeliversOnlyWhatHistoryLacks).
//   - A corrupt or foreign file in tasks/ is reported and skipped; a resume
//     never fails because of one (persist_test.go).
package background
