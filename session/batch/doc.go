// Package batch is the batch scheduler of AgentSwarm (spec 05 §5.7,
// §11.7): it launches a list of subagent tasks through a Launcher with a
// ramp, an optional concurrency cap and a rate-limit phase, and returns one
// Result per task, in input order.
//
// It owns: when each attempt starts (ramp of 5, then one per 700 ms; the
// cap; launch priority retry > resume > spawn), readiness (an attempt is
// ready when its child sends its first model request), the rate-limit
// phase (requeue at the front with the agent id kept, per-task delays of
// 3 s doubling, capacity seeded from ready launches and shrunk at most once
// per 2 s, the global interval doubled for not-ready attempts, one more
// slot after 3 quiet minutes), per-task timeouts and what cancellation
// leaves behind.
//
// It does not own: creating, resuming or retrying children (the Launcher,
// which the session implements over its subagent host), events on the
// parent (the Launcher's Suspended), or rendering results (the AgentSwarm
// tool).
//
// Invariants, and the tests that guard them:
//   - One goroutine, the event loop of Run, holds all scheduling state;
//     attempts run on their own goroutines and report through a channel,
//     so the rate-limit phase is a pure function of events and the clock
//     (scheduler_test.go, under testing/synctest).
//   - Results are in input order, one per task; Run returns only after
//     every attempt goroutine has exited (S60, S62, S63).
//   - A per-task timeout fails that task alone with "Subagent timed out."
//     and never enters the rate-limit phase (TestTimeoutFailsOnlyThatTask).
//   - A user cancellation keeps finished results and marks the rest
//     aborted, started or not_started; any other cancellation fails the
//     batch (S63, TestNonUserCancelFailsBatch).
//   - Launches (the Launcher calls that make or claim a child) run one at
//     a time in the order attempts started, so new children are numbered
//     in input order; the children themselves run side by side
//     (TestLaunchesRunOneAfterAnother).
//   - Whatever the children do, a batch ends with one result per task in
//     input order (scheduler_fuzz_test.go FuzzRun).
//
// Tests: scheduler_test.go (S60 ramp and cap, S62 rate limit, S63 user
// cancel, timeouts, priorities, capacity recovery), scheduler_fuzz_test.go.
package batch
