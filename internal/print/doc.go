// Package print is kimigo's print mode, `kimigo -p` (spec 06 §1.6): it
// sends one prompt to a session's main agent, renders the agent's events
// as they stream, and tells the caller how the run ended.
//
// It owns:
//   - the three output formats: text (text.go), whose stdout is the final
//     answer as the model wrote it and whose stderr carries progress
//     (tool headers, one-line results, retries with reason and wait;
//     reasoning through the block writer, block.go) when Progress is on;
//     json, one result object at the end; stream-json, one JSON object
//     per stdout line (streamjson.go), ending with the result line;
//   - the result object (result.go): Claude Code's field names, the
//     tally of steps, tokens and answer, the subtypes;
//   - the filter that keeps only the main agent's current turn
//     (filter.go);
//   - the run itself (run.go): prompt, wait until the run settles (a
//     Settler host decides whether background work starts another turn),
//     the resume hint, and the wording of a failed run; the task and cron
//     meta lines of stream-json (runtime.go).
//
// It does not own: choosing or opening the session, the permission mode
// of the run (print runs in auto mode), signals, exit codes and the
// startup error format (cmd/kimigo), nor the events themselves (package
// event). It reads the session's events from a subscription on its own
// goroutine and never imports an agent package or cmd.
//
// Invariants, and the tests that guard them:
//   - stream-json writes nothing but whole JSON lines to stdout, each with
//     one write, and never reasoning (streamjson_test.go).
//   - Every model step is one assistant line carrying the step's text and
//     all of its calls in provider order, written before the step's first
//     tool line; a retried attempt's text is dropped; call arguments keep
//     the model's key order (streamjson_test.go, ERRATA 19).
//   - The text format's stdout is the last step's text and nothing else;
//     stderr shows only warnings and retries without Progress, and every
//     progress item on a line of its own with it (text_test.go
//     TestS15TextFormatAnswerOnly, TestS15TextFormatProgress). Reasoning
//     blocks follow spec 06 §1.6.2's block writer (block_test.go).
//   - The JSON formats end every run, success or failure, with the result
//     object (streamjson_test.go, cmd/kimigo TestS15ResultObject); the
//     resume hint line is written only after a completed run, and a run
//     that did not complete fails with the spec's wording (run_test.go).
//     A turn the repeat guard stopped completes without finishing the
//     task: the run fails with turn.repeat_stopped, naming the tool and
//     the count (run_test.go, cmd/kimigo guard_test.go).
package print
