// Package historytest holds the test helpers of projection: Build decodes
// fuzz bytes into typed histories that may be broken in every way
// projection repairs (results displaced, missing, duplicated, placed
// before their call or answering nothing; empty ids; media; consecutive
// assistants; a leading non-user message; an open tail call), Generate is
// the seeded generator G of spec 02 §8.1, and the Check functions state
// the guarantees of each view: CheckWire (strict, S1–S9, plus the
// Anthropic turn rules of CheckAnthropic), CheckNormal and
// CheckMediaDegraded. Wrap and Clone support the idempotence and purity
// checks.
//
// It owns no production behaviour and is imported only by tests. Its
// checks restate the rules of the loopback fake servers in llm/llmtest
// without importing them.
package historytest
