// Package agent is the host of one conversation: the Agent owns its
// mutable state and drives the stateless loop over it through the turn
// layer (agent/turn). It needs no session: New plus Prompt is a working
// agent (example_test.go).
//
// It owns:
//   - the one commit path (commit.go): a subsystem builds a record
//     payload; Commit appends it to the record log and applies it under
//     the state lock; apply decodes each record and hands it to its owner
//     (history, the tool store and table, usage, configuration, the turn
//     counter, the permission manager) and returns what should be
//     published, which goes out after the lock is released. Unknown record
//     types are ignored.
//   - the host of the permission manager (permission.go): with
//     Options.Permission the agent builds a permission.Manager whose
//     Recorder is the commit path, so permission.set_mode and
//     permission.record_approval_result are applied by the same code live
//     and on resume; the manager is the turn's gate; SetPermissionMode
//     switches the mode and the status event carries it. Approval requests
//     go to the Approver in those options, and the agent's hook runner
//     serves the chain's hook events. Without an Approver an ask blocks the
//     call at once with a message saying nobody can approve it. Without
//     Options.Permission the agent keeps Gate (nil: every call approved),
//     which suits library use; the kimigo command always sets it.
//   - Resume and the post-replay phase (resume.go): replay calls only
//     apply; afterwards calls left open are closed once, as ordinary
//     records. BuildReplay previews the UI stream over a read-only copy.
//   - the configuration state and config.update (config.go); the usage
//     recorder and usage.record (usage.go); the status event and the event
//     fan-out that contains a sink's panic (events.go);
//   - the model request choke point (generate.go): llm.request and
//     llm.tools_snapshot observability records, and a flush of every
//     record before the request is sent;
//   - the wiring of TurnFlow's collaborators (agent.go, tools.go):
//     history views, the tool table, the result budget, and the per-request
//     model snapshot; NextRequest and State for inspection (request.go);
//     Undo and Clear (control.go).
//
// It does not own: the loop, the turn lifecycle, steering, dedup or the
// result budget (agent/turn); the conversation's facts and projection
// (agent/history); storage, blobs and migrations (agent/records); the
// replay cards (agent/replay); the policy chain, rules and approval flow
// (agent/permission); compaction, goals, plans, injections, background
// tasks and hooks, which plug in through the small interfaces of agent/turn
// as they arrive.
//
// Durability (ERRATA 6): records are flushed when a prompt is accepted,
// before every model request, before a tool runs and at turn end; a turn is
// not reported complete until its flush succeeded, and a failed flush
// fails what needed it with records.write_failed naming the file and the
// errno. The next flush retries.
//
// Invariants, and the tests that guard them:
//   - State changes only through Commit; apply never appends and never
//     publishes; every known record type, permission's included, is
//     applied and unknown ones are ignored (apply_test.go).
//   - The permission mode and session approvals are records: a resumed
//     agent has the same mode, rules and session approvals, and asks,
//     hooks and rule writes never happen during a resume; a call that needs
//     approval is never approved without an answer and never waits for an
//     Approver that does not exist (permission_test.go, turnflow_test.go
//     S2–S3, cancel_test.go S7, resume_test.go S51).
//   - Resume rebuilds the same state and the byte-identical next request,
//     with no model call, no tool, no OS side effect, no event and no
//     record written during replay: every agenttest scenario ends with
//     ExpectResumeMatches (turnflow_test.go S1–S16, resume_test.go
//     S51–S60, adapter_test.go, usage_test.go, durability_test.go, and
//     TestResumeFromFileLog on a real file).
//   - The replay stream matches history (resume_test.go S53, S59;
//     replay_test.go S61–S64).
//   - A flush failure fails the prompt or the turn and nothing is sent to
//     the model undurably (durability_test.go).
package agent
