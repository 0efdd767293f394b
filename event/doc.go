// Package event is the contract between kimigo's agents and its front
// ends (print mode, the TUI, the ACP server): the vocabulary of events a
// front end sees, and the Bus that carries them (spec 03 §1.11, §5.6,
// §6.15, spec 06 §9). It imports only llm and loop, so a front end can
// import it, and session, without touching any agent internals.
//
// The vocabulary: a turn (TurnStarted … TurnEnded), its steps
// (StepStarted, StepCompleted, StepRetrying, StepInterrupted), streamed
// deltas (AssistantDelta, ThinkingDelta, ToolCallDelta), tool calls
// (ToolCallStarted, ToolProgress, ToolResult), hook results, errors with
// their ErrorPayload and codes, the agent's Status, compaction, approval
// and question requests (ApprovalRequested, QuestionRequested,
// RequestClosed; the answers are ApprovalAnswer values and answer maps),
// background tasks (TaskStarted, TaskTerminated), cron fires, the goal
// (GoalUpdated) and Notices. Every event embeds a Header {AgentID, TurnID, Seq}, so one
// stream can carry a main agent ("main") and its subagents; TurnID is
// NoTurn for an event outside any turn.
//
// Delivery: agents publish to a Bus; Publish stamps Seq and queues the
// event for every Subscription without ever waiting for one. A
// subscription reads with Next from its own goroutine. Two classes of
// events travel differently: state events (everything but the deltas)
// are never dropped and keep their order; a delta (assistant, thinking
// and tool-call argument text, text output of a running tool) that finds
// the previous queued event to be a delta of the same stream is merged
// into it, so a subscriber that falls behind reads fewer, longer deltas
// and the same text. A subscriber that stops reading never stalls a turn;
// one that falls DefaultMaxQueue events behind is cut off: Next returns
// what was queued, then ErrOverflow.
//
// Invariants, and the tests that guard them:
//   - Every subscriber sees the events in publication order, with
//     strictly increasing Seq (bus_test.go TestOrderAcrossSubscribers,
//     TestConcurrentPublishersKeepTheirOrder).
//   - A subscriber that never reads does not slow Publish down, and the
//     others still get everything (TestBlockedSubscriberNeverStallsPublish).
//   - A lagging subscriber gets deltas merged only within one stream and
//     never across a state event, and loses no text
//     (TestLaggingSubscriberGetsCoalescedDeltas, FuzzCoalescingKeepsText).
//   - A cut-off or closed subscription ends with its error after the
//     queued events (TestOverflowCutsOffOnlyTheLaggard, TestClose).
//   - Every event marshals to one object with "type" first
//     (event_test.go TestMarshal).
//   - 10,000 deltas reach one subscriber in well under 10 ms
//     (BenchmarkDeltasThroughOneSubscriber).
//
// The agent ids of what agents publish are checked where they are set:
// agent's TestEveryEventCarriesTheAgentID and session's tests.
package event
