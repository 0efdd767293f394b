// Package agenttest is the scenario harness of the agent (STYLE.md §9): a
// real agent over an in-memory OS (osenvtest), a scripted model that can
// hold a response mid-stream, in-memory records, and the interleaved trace
// of records and events for golden files. ExpectResumeMatches proves that
// a fresh agent resumed from a copy of the log, with every side effect
// denied and a model that fails when called, reaches the same state and
// builds a byte-identical next request (spec 02 §8.8), both when it
// resumes with the UI replay stream and without it (print mode's resume,
// which elides superseded tool outputs). ExpectResumesAgree compares those
// two resumes of any log with each other.
//
// Permission gives the agent a real permission manager; Approver is the
// user who answers its approval requests (NewApprover waits for the test,
// AnswerAll answers at once). The resumed agent's manager gets an approver,
// hooks and a rule writer that fail the test when used.
//
// Compaction sets the agent's compaction strategy and RefreshSystemPrompt
// its prompt refresh; with Provider the model is a real client on an
// llmtest fake server, which is how the compaction scenarios run. Clock
// replaces the fixed clock.
//
// It also holds stand-ins: a scripted gate that holds every call until the
// test answers (Approvals), for turn tests that need a call to wait at
// authorization without the permission chain, and a scripted hook runner
// (Hooks) for turn tests that script hook decisions; the hook scenarios run
// the real engine through agent.HookRunner. ToolManager gives the agent a
// tool manager of the test's making (MCP, skills, progressive disclosure).
//
// It does not import the agent: nothing under agent/ may (STYLE.md §2).
// The agent's tests adapt *agent.Agent to Host and pass a Factory to New.
//
// Guarded by the agent's scenario tests, which all end with
// ExpectResumeMatches.
package agenttest
