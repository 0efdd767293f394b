// Package goal is goal mode (spec 04 §6): one goal per main agent that
// the turn worker drives turn after turn until it is complete, blocked or
// out of budget.
//
// It owns:
//   - Store: the goal (objective, criterion, status, turns, output tokens,
//     active wall-clock time, budgets, the reason of the last stop), its
//     state machine and operations (Create, Pause, Resume, Block,
//     Complete, SetBudget, Cancel and the runtime's MarkBlocked,
//     PauseActive, PauseOnInterrupt), the records goal.create, .update and
//     .clear with Apply — the only place the goal changes, live and on
//     resume — and NormalizeAfterReplay, which pauses a restored active
//     goal (record.go, store.go).
//   - the driver's view (driver.go): Active, OverBudget, IncrementTurn and
//     RecordTokenUsage, for agent/turn's goal driver (turn.GoalStore).
//   - the queue of upcoming goals, /goal next (queue.go): Enqueue records
//     the whole queue (goal.queue); a completion makes its head due and
//     the driver starts it (NextPending, TakeNext: one goal.create with
//     the queued id, which takes it off the queue). Paused, blocked and
//     cancelled goals start nothing; Cancel empties the queue; a fork
//     drops it; a resume restores it and starts nothing by itself.
//   - the goal-start review, policy 11 of the permission chain (policy.go).
//   - the goal reminder of the boundary group and the cancel and fork
//     reminders (reminder.go, text/*.md).
//   - the goal tools' view (tools.Goals, tools.go) and the /goal grammar
//     print mode and the TUI share (ParseCommand, command.go).
//
// It does not own: committing records and publishing events (the agent,
// through Host), the driver loop and the continuation prompt (agent/turn),
// the goal tools (tools), or the goal-start menu (a front end's Approver).
//
// Invariants, and the tests that guard them:
//   - Paused and blocked goals rest on disk; complete is announced and
//     cleared at once, and a crash between the two is cleared by the
//     resume (S74, S75, S76).
//   - Counters in records are totals and every update carries the active
//     time, so a replay rebuilds the goal exactly and a crash loses no
//     charged turn or token (TestWallClock, S69, agent/modes_test.go).
//   - The runtime's stops never overwrite a user's pause or clear (the
//     state machine test).
//   - Apply reads no clock: the record's time opens an active interval.
//
// Tests: store_test.go (S65, S69, S74–S77, the state machine),
// queue_test.go (the queue, its records and replay),
// tools_test.go (S82, S83, S92), reminder_test.go (S85), command_test.go
// (the grammar and FuzzParseCommand); the driver scenarios (S66–S73,
// S78–S81, S84, S86, S87) in agent/modes_test.go.
package goal
