// Package history is an agent's context memory (spec 02 §1–§5): the stored
// conversation, the read-only projection that turns it into provider
// messages, and the rendering at that boundary.
//
// It owns:
//   - Message and Origin, the stored facts: raw tool output with isError
//     and note, UI displays, where each user-role message came from, in
//     the order things happened (message.go, origin.go).
//   - Memory, whose mutators are the applies of history's records
//     (context.append_message, context.append_loop_event,
//     context.update_token_count, context.clear, context.undo,
//     context.apply_compaction; record.go owns their payloads and type
//     names): the loop-event state machine with deferral behind open tool
//     exchanges (loopevent.go), undo and clear (undo.go), token
//     accounting, and the compaction rewrite with its head-and-tail
//     selection (compaction.go, selection.go). Builders make the messages
//     and records a caller commits (input.go, CloseEvents,
//     CompactionRecord, UndoRecord).
//   - Projection: Project and its passes P1–P6 with the Go deviations of
//     §3.13 (project.go, prepare.go, exchange.go, repair.go), the views
//     normal, strict, media-degraded and media-stripped (view.go,
//     media.go), and the repair report (anomaly.go).
//   - Rendering: RenderToolResult, RenderNotificationXML and the dynamic
//     tool context (render.go, notification.go, dynamictools.go), and the
//     renderings of tool results kept from when they entered history
//     (renders.go). Model-
//     facing wordings live in text/*.md.
//
// It does not own persistence or the record envelope (agent/records), the
// commit path (agent), turns, steering or the abandoned-exchange wording
// (agent/turn), the compaction orchestration and its summary prompt
// (agent/compaction), or the replay stream (agent/replay). It never imports
// agent/records: the agent commits what history builds and calls
// Memory.Apply, live and on resume alike.
//
// Invariants, and the tests that guard them:
//   - Mutators are deterministic, touch no I/O and emit nothing; what
//     callers need comes back as a Change or through Hooks. Live history
//     and history rebuilt from the records are equal, Seq numbers and
//     replay cards included (memory_test.go, compaction_test.go:
//     expectResumeMatches in S23–S37).
//   - I1: only the tail may hold an unresolved tool exchange; messages
//     appended meanwhile wait and land after its results (S23, S24, S30,
//     TestResumeClosesMidHistoryGapInPlace).
//   - Projection is pure: it never modifies its input, never writes back,
//     gives byte-identical output for the same input, is idempotent, and
//     shares the messages it does not change (FuzzProject,
//     TestS1toS6GeneratedHistories, TestProjectSharesUnchangedMessages).
//   - The strict view satisfies S1–S9 and the Anthropic turn rules for
//     every history, however broken; the normal view answers every call
//     the conversation moved past and keeps the trailing exchange open
//     (FuzzProject with historytest.CheckWire and CheckNormal, S7–S18).
//   - Apply refuses, before changing anything, a record no request could
//     carry: a tool call or tool message without an id, a role no provider
//     knows (*InvalidRecordError, invalid.go; record_test.go
//     TestApplyRefusesInvalidRecords). Resume sets such records aside.
//   - Snapshots from History never change while the memory moves on
//     (TestSnapshotsNeverChange, under -race).
//   - Projection is linear in the history length
//     (BenchmarkProject1k/10k/100k).
//   - A tool result whose rendering builds a new text (a note, an error
//     status) is rendered once, when it enters history, and its stored
//     text shares the rendered bytes: a request copies no tool output, and
//     projection gives exactly what RenderToolResult gives
//     (renders.go; renders_test.go TestToolResultsRenderOnce).
package history
