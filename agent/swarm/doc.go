// Package swarm is swarm mode (spec 04 §7): a phase in which the model is
// asked to split its task across many subagents with AgentSwarm.
//
// It owns:
//   - Mode: whether swarm mode is on and what turned it on (manual, task,
//     tool), Enter, Exit and AutoExit, and the records swarm_mode.enter
//     and .exit with Apply — the only place the state changes, live and
//     on resume alike (mode.go, record.go). An exit takes back the enter
//     reminder when it is still the last message, inside the record's
//     apply, so a replay does the same.
//   - the enter and exit reminders (reminder.go, text/*.md);
//   - the two policies swarm mode puts into the permission chain's slots
//     (ERRATA 8; policy.go): exclusivity (2), which denies every call of a
//     response that mixes AgentSwarm with other calls or holds several,
//     and the approval of AgentSwarm while swarm mode is on (16).
//   - AgentSwarm's view of it (tools.SwarmMode).
//
// It does not own: committing records (the agent, through Host), running
// a swarm (the session's subagent host and session/batch), when a turn
// ends (the agent calls AutoExit), or the /swarm commands (the session).
//
// Invariants, and the tests that guard them:
//   - Entering while on writes nothing; an exit while off writes nothing
//     (S89, mode_test.go).
//   - A trigger tool adds no reminder; manual and task add the enter
//     reminder, and their exit either takes it back (nothing happened in
//     between) or adds the exit reminder (S88).
//   - A resume restores the trigger and history exactly, by the same
//     Apply (agent/swarm_mode_test.go).
//   - The chain denies AgentSwarm beside any other call in every mode,
//     and approves a lone one while swarm mode is on (S59, policy_test.go;
//     agent/permission chain_test.go S5, S6, S31 and the mode matrix).
package swarm
