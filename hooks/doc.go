// Package hooks runs the user's lifecycle hooks (spec 06 §6, ERRATA 15):
// shell commands configured per event that observe kimigo and, for a few
// events, block what it is about to do.
//
// It owns:
//   - the v1 events and what each means (event.go: Events, Info), with a
//     sample input per event for `kimigo hooks test` (sample.go);
//   - Hook, one configured command, and its matcher (hook.go);
//   - Engine: matching (an unanchored regular expression search, an
//     invalid one never matches), de-duplication by (cwd, command),
//     running every match in parallel, and the aggregation of their
//     decisions (engine.go: Trigger, TriggerBlock, FireAndForget, Decide,
//     Close);
//   - the runner: /bin/sh -c in its own process group through osenv, the
//     input JSON on stdin (top-level keys snake_case, nested values as
//     given), stdout and stderr capped at 1 MiB each keeping the end, a
//     timeout that sends SIGTERM then SIGKILL to the group, and the
//     decision table of spec 06 §6.3 (runner.go, result.go, input.go).
//
// It does not own: where events fire or what a block does (the trigger
// sites in agent/turn, agent/permission, the agent's compaction and
// background notifications, and the session for SessionStart, SessionEnd
// and the subagent events), nor the configuration file (config parses
// [[hooks]] and the caller builds Hooks from it). The agent reaches it only
// through turn.HookRunner, which agent.HookRunner adapts an Engine to. It
// imports nothing of agent, session or tools.
//
// Invariants, and the tests that guard them:
//   - Fail-open: a command that cannot start, exits with anything but 0
//     or 2, times out, or is cancelled allows; only exit 2 and a JSON
//     "deny" on exit 0 block (TestDecisionTable, TestScenario46,
//     TestScenario47).
//   - A timed-out or cancelled hook leaves no process of its group behind
//     (TestScenario47TimeoutKillsTheGroup, TestCancelKillsTheHook).
//   - Matching hooks run in parallel, duplicates run once, results keep
//     definition order, and the first block decides (TestScenario50).
//   - Project hooks run only in a trusted workspace (TestProjectHooksNeedTrust).
//   - The input names the event, session and cwd and keeps tool arguments
//     as given (TestScenario45InputPayload, FuzzSnakeCase).
package hooks
