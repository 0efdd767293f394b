// Package compaction is an agent's full compaction (spec 03 §6): when the
// context nears the model's window, or the user asks, the model writes a
// handoff note about the conversation so far, and history becomes the
// user's own messages followed by that note.
//
// It owns:
//   - the Strategy (strategy.go): trigger and block thresholds from the
//     effective window and the output reserve, the per-turn limits;
//   - the effective window and overflow detection (window.go): the
//     declared window lowered by what provider overflows taught, and the
//     request estimate the decisions use;
//   - FullCompaction (compactor.go), the turn layer's Compactor: the step
//     hooks that start and wait for automatic compaction and the overflow
//     recovery (trigger.go); Compact, Cancel and Wait for manual
//     compaction; the run and its worker (run.go, worker.go);
//   - the round (round.go): snapshot, PreCompact, the summary request
//     (request.go: the strict view of the kept input, led by the task
//     prompt) down its degradation ladder (ladder.go, shrink.go),
//     usage, the race checks (race.go) and the commit of the rewrite;
//   - the summary prompt and prefix (summary.go, text/*.md), its events
//     (event.go), records (record.go) and error codes (errors.go).
//
// It does not own the rewrite itself: history's CompactionRecord and
// ApplyCompaction decide which user messages stay (spec 02 §5), and the
// agent commits and applies context.apply_compaction like any record, live
// and on resume. It does not own turns, steers, the hook engine, the
// injections or the system prompt; it reaches them through the small
// interfaces of collaborators.go and never imports agent or agent/turn.
// Micro-compaction stays off, as upstream ships it (spec 03 §6.16).
//
// Concurrency: one worker goroutine per compaction, owned by the
// FullCompaction and waited for by Close. The compaction's mutex guards
// its counters, the observed windows and the running compaction; it is
// never held while calling a collaborator. The lock order is TurnFlow,
// then FullCompaction (TurnFlow asks IsCompacting under its lock); the
// rewrite's final checks run under the agent's state lock inside
// Committer.CommitCompaction and touch only the run's atomic state.
//
// Invariants, and the tests that guard them:
//   - A compaction writes nothing to history until its rewrite is
//     committed, so a cancel, a failure, a race or a crash at any point of
//     the round leaves history exactly as it was, and resume rebuilds a
//     compacted history from its record without calling the model
//     (lifecycle_test.go: TestCancelLeavesHistoryIdentical,
//     TestCrashDuringRoundKeepsHistory, TestResumeRebuildsCompactedHistory).
//   - Cancel acts only before the rewrite is claimed: a cancelled
//     compaction never rewrote history and a rewritten one never records a
//     cancel (TestCancelAfterClaimCompletes).
//   - A cancel recorded for a compaction always precedes the next one's
//     begin, and concurrent Compact and Cancel calls never overlap two
//     compactions (TestCancelBeforeBeginRecorded,
//     TestConcurrentCompactAndCancel); a compaction hands the input that
//     waited back exactly once, whichever way it ends
//     (TestInputHandedBackOnEveryPath). A turn that will wait for the
//     compaction it starts reports compaction.blocked before the worker
//     runs, so blocked always precedes completed or cancelled
//     (agent/compaction_test.go S38 and S58 pin the order).
//   - The scenarios of spec 03 §8 for §6 at package level, named by id:
//     S38–S41, S50, S51, S58, S59 (trigger_test.go), S42, S43, S53–S57,
//     S60 (round_test.go), S44–S49 (ladder_test.go), S52
//     (strategy_test.go). The turn-level ones run a real agent, TurnFlow
//     and the strict fake server through agenttest in the agent package
//     (agent/compaction_test.go): S38, S39, S50, S51, S52, S56, S58, S59
//     and S61 (micro-compaction off). Spec 02 §8.5 (S31–S37, the rewrite)
//     is history's (agent/history/compaction_test.go); resume of the
//     rewrite through the agent is agent/compaction_manual_test.go.
//   - Every summary request is a conversation strict services accept
//     (ERRATA 28): it starts with a user message, the task prompt that
//     leads what is kept (followed by a note where older messages were
//     left out) or the note alone, on the first attempt and after every
//     rung of the ladder; the summariser sees the task prompt, and
//     droppedCount counts exactly the messages it does not see. The rig
//     checks every request with historytest.CheckWire; request_fuzz_test.go
//     (FuzzSummaryRequestShape) drives the ladder over broken histories;
//     agent/compaction_bricked_test.go resumes a log bricked by the old
//     shape; cmd/kimigo's TestScenarioCompactionFiveTimesOnEveryWire runs
//     40 steps and 20 compactions through the binary on every wire.
//   - Deciding and building the summary request for a 200,000-token
//     history takes well under 10 ms (BenchmarkDecideAndBuild200k).
package compaction
