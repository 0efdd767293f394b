// Package replay turns an agent's records into the stream of cards a UI
// shows when a session is resumed (spec 02 §6.12–6.13).
//
// It owns the cards (card.go: messages, compactions, configuration,
// permission, plan and approval changes), the Builder that collects them
// while the agent restores its records, with its range window and segment
// boundaries (builder.go), and LimitByTurns, which keeps the last user turns
// (turns.go).
//
// It does not own restoring: the agent applies each record and hands the
// Builder the record together with the history change the apply made, so
// the cards show exactly what history holds, in the same order. It does
// not own the preview replay either (agent.BuildReplay), which runs a
// throw-away agent over a read-only copy of the records.
//
// Invariants, and the tests that guard them:
//   - A message card exists for every message that entered history, in
//     history order, and an undo removes exactly the undone ones
//     (agent's S53, S59 resume tests, builder_test.go).
//   - A range never crosses a segment boundary; a range that is complete
//     stops the replay, which then neither rewrites nor opens the log
//     (S61–S64).
//   - User-turn starts follow the origins of spec 02 §1.3 (S65).
package replay
