// Package loop is kimigo's stateless turn engine. RunTurn runs one turn:
// steps of one model response each, plus the tool calls that response asked
// for, until a step ends without tool use and no hook asks for more
// (spec 01 §4).
//
// It owns: the step order (BeforeStep, tools, messages, step.begin, the
// request, usage, the tool batch, step.end, AfterStep); the retry policy
// with its backoff and step.retrying events; the fallback resends (strict
// view once after a structural 400; media-degraded then media-stripped after
// a 413 or an image the provider refused, sticky for the rest of the turn);
// stop reasons; the tool-call lifecycle (argument parsing, schema
// validation, the prepare/authorize/finalize hooks, execution with a 2 s
// grace after cancellation, result normalisation); the access-based tool
// scheduler; the event types and the Dispatcher; the tool contract
// (ExecutableTool, Execution, ExecCtx, ToolResult, accesses, the display
// interface and the built-in tools' display blocks) shared by every tool
// in kimigo. A feature that needs a display of its own (plans, goals,
// subagents, background tasks) defines it beside its tool; the loop reads
// a kind it has no type for as a RawDisplay that keeps its bytes
// (event_test.go TestDisplayJSON).
//
// It does not own history, prompts, permissions or persistence. Messages
// come from the host's builders, tools from its table, decisions from its
// hooks; events leave through the Dispatcher, and the agent stores
// recorded events verbatim (each marshals to one JSON object whose first
// key is "type", the shape of spec 02 §6.4). It imports only llm and its
// own jsonschema (a tool's panic is logged as an error with its stack on
// Input.Log): tool arguments are checked by kimigo's JSON Schema validator
// (loop/jsonschema), which costs nothing until a tool is first called.
//
// Invariants, and the tests that guard them:
//   - Every dispatched tool.call is followed by its tool.result, in provider
//     order, all calls of a batch before any result, even when the turn is
//     aborted mid-batch (abort_test.go S-L13..S-L17, scheduler_test.go
//     S-L18); only a failed transcript write breaks the pairing, and then
//     RunTurn still waits for the started calls (turn_test.go S-L35).
//   - A step envelope stays open (step.begin without step.end) only for an
//     interrupted step; an aborted stream records no content.part
//     (abort_test.go, retry_test.go S-L8).
//   - An abort is a TurnResult with StopAborted, never an error; exactly
//     one turn.interrupted is published for a failed or aborted turn and
//     none for a normal one (turn_test.go S-L1, S-L21, S-L22).
//   - Recorded tool.call args are valid JSON with the model's key order; {}
//     plus rawArgs when the model's text did not parse, and then the call
//     is answered with the parse problem, never run (toolcall_test.go
//     S-L3, fuzz_test.go FuzzToolArgs). A call without a tool name is
//     answered with an error result (toolcall_test.go
//     TestToolCallWithoutName).
//   - Tool arguments are rejected with the messages of spec 01 §4.10.3,
//     sorted by instance path (loop/jsonschema).
//   - A panicking tool or a broken live sink never takes the turn down
//     (toolcall_test.go TestToolPanicsAreRecovered, turn_test.go S-L34).
//   - Every goroutine the loop starts is waited for, except a tool call
//     abandoned by the grace timeout, whose late result is discarded
//     (abort_test.go S-L15).
//   - A failing request ends within its bounds: at most MaxRetryAttempts
//     attempts; at most StallTimeout (3 minutes) without an answer in
//     progress, retries and waits included, an attempt that has streamed
//     nothing being cancelled when it runs out; a Retry-After above
//     MaxRetryAfter (1 minute) is not waited for; the same malformed
//     response twice in a row is not retried again. Each of these ends the
//     step with the last failure's kind and a message that names the bound
//     and its loop_control key; every retry is a step.retrying event with
//     its reason and delay (retry_bounds_test.go, under testing/synctest).
package loop
