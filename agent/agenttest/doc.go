// Package agenttest is the scenario harness of the agent (STYLE.md §9): a
// real agent over an in-memory OS (osenvtest), a scripted model that can
// hold a response mid-stream, in-memory records, and the interleaved trace
// of records and events for golden files. ExpectResumeMatches proves that
// a fresh agent resumed from a copy of the log, with every side effect
// denied and a model that fails when called, reaches the same state and
// builds a byte-identical next request (spec 02 §8.8).
//
// It also holds the stand-ins for subsystems that do not exist yet: a
// permission gate that asks the test (Approvals) and a scripted hook
// runner (Hooks).
//
// It does not import the agent: nothing under agent/ may (STYLE.md §2).
// The agent's tests adapt *agent.Agent to Host and pass a Factory to New.
//
// Guarded by the agent's scenario tests, which all end with
// ExpectResumeMatches.
package agenttest
