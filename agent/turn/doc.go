// Package turn drives an agent's turns on top of the stateless loop.
//
// It holds the LLM adapter (llm.go): the bridge from llm.Generate to the
// loop's LLM interface, which applies the completion budget to a
// per-request copy of the provider, downgrades media the model cannot take
// (media.go), bridges streamed deltas to live callbacks and delivers
// completed content blocks in order after the stream drained. The adapter
// never modifies the long-lived provider and never retries: the loop is the
// only retry layer.
//
// Invariants and their tests: a failed or cancelled request delivers no
// content part (llm_test.go); media downgrade never mutates history
// (media_test.go, S-L37); the loop's retries and resends work through real
// providers against the loopback fake servers (wire_test.go: S-L5, S-L6,
// S-L7, S-K9; faults_test.go: the fault matrix).
package turn
