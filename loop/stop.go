package loop

import "github.com/kimigo/kimigo/llm"

// StopReason is why a step or a turn ended.
type StopReason string

// Stop reasons. A step ends with any but StopAborted; a turn with any but
// StopToolUse.
const (
	StopEndTurn   StopReason = "end_turn"
	StopMaxTokens StopReason = "max_tokens"
	StopToolUse   StopReason = "tool_use"
	StopFiltered  StopReason = "filtered"
	StopPaused    StopReason = "paused"
	StopUnknown   StopReason = "unknown"
	StopAborted   StopReason = "aborted"
)

// deriveStopReason maps a response's normalised finish reason to the
// step's stop reason (spec 01 §4.9). The loop decides from this alone; the
// provider's spelling is diagnostics. A stream that ended without a finish
// reason counts as completed.
func deriveStopReason(finish llm.FinishReason, hasCalls bool) StopReason {
	switch finish {
	case llm.FinishTruncated:
		return StopMaxTokens
	case llm.FinishFiltered:
		return StopFiltered
	case llm.FinishPaused:
		return StopPaused
	case llm.FinishCompleted, llm.FinishNone:
		if hasCalls {
			return StopToolUse
		}
		return StopEndTurn
	case llm.FinishToolCalls:
		if hasCalls {
			return StopToolUse
		}
		return StopUnknown
	}
	return StopUnknown
}

// unsurprising reports whether the provider's finish reason says nothing
// the stop reason does not, so step.end can leave the diagnostics out.
func unsurprising(finish llm.FinishReason, stop StopReason) bool {
	return (finish == llm.FinishCompleted && stop == StopEndTurn) ||
		(finish == llm.FinishToolCalls && stop == StopToolUse)
}

// leavesCallsUnexecuted reports whether a step with this stop reason records
// its tool calls as not executed.
func leavesCallsUnexecuted(stop StopReason) bool {
	return stop == StopPaused || stop == StopUnknown || stop == StopMaxTokens
}
