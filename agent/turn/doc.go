// Package turn drives an agent's turns on top of the stateless loop (spec
// 03 §1–5).
//
// It owns:
//   - TurnFlow (flow.go, worker.go, steps.go, hooks.go, dispatch.go): the
//     single owner of "is a turn running"; Prompt, Steer, Retry and Cancel;
//     the turn worker and its goal driver; runOneTurn with its error
//     classification (errors.go) and the close of abandoned calls
//     (abandon.go); the wiring of every loop hook to the agent's
//     collaborators in the order of spec 03 §1.7; the steer buffer; the
//     mapping of loop events to the front-end events of package event
//     (dispatch.go; the sink is event.go's EventSink) and the
//     first-request signal; the turn records (record.go).
//   - the LLM adapter (llm.go): llm.Generate behind the loop's LLM
//     interface, reading provider, system prompt and capability from a
//     snapshot at every request, applying the completion budget to a
//     per-request copy of the provider, downgrading media the model cannot
//     take (media.go), bridging streamed deltas and delivering completed
//     blocks after the stream drained. It never retries: the loop is the
//     only retry layer.
//   - the tool-call Deduplicator (dedup.go, canonical.go) and the
//     ResultBudget that spills oversized results (budget.go), which
//     TurnFlow applies in FinalizeToolResult. A turn the repeat guard
//     force-stopped ends completed (spec 03 §1.15), and its turn.ended
//     says so in RepeatStop, for front ends that need the task finished
//     (print mode).
//   - prompt media (prompt_media.go): local videos become tags.
//
// It does not own state. It reaches the agent only through the small
// interfaces of collaborators.go (history, committer, compactor, injector,
// permission gate, goal store, hook runner, usage recorder, event sink,
// loop control), never through *agent.Agent, and reads no environment.
// NoCompaction turns compaction off (the agent's own is
// agent/compaction's FullCompaction); ApproveAll approves every call.
// Input that arrives while a compaction runs is buffered; when it ends,
// OnCompactionFinished launches a turn with the first of it and records
// turn.launch, so resume counts that turn even when it never reached a
// step (agent/compaction_manual_test.go
// TestCompactDeferredPromptBlockedByHookKeepsTheTurnCount).
//
// Concurrency: one worker goroutine per launched turn, waited for by Close;
// a turn launched after a Cancel waits for the cancelled one to finish its
// bookkeeping. TurnFlow's mutex guards the active turn, the counter and the
// steer buffer, and is never held while calling a collaborator. The active
// turn is released before turn.ended is published (spec 03 §7.2).
//
// Invariants and their tests: the TurnFlow scenarios of spec 03 §8 run
// through a real agent in package agent (turnflow_test.go S1–S16,
// adapter_test.go S21–S24); the adapter's own (llm_test.go: S20, the
// per-request snapshot; a failed or cancelled request delivers no content
// part; media downgrade never mutates history, S-L37); the loop's retries
// and resends through real providers (wire_test.go, faults_test.go); the
// dedup ladder and the budget (dedup_test.go S25–S31, budget_test.go
// S32–S34, canonical_test.go); RepeatStop set only when the guard ended
// the turn (agent/turnflow_test.go TestTurnRepeatGuardStopIsReported).
package turn
