package llm

// FinishReason is the normalised reason a response ended. The empty value
// means the stream ended without any finish signal.
type FinishReason string

// Normalised finish reasons (spec 01 §1.7).
const (
	FinishNone      FinishReason = ""
	FinishCompleted FinishReason = "completed"
	FinishToolCalls FinishReason = "tool_calls"
	FinishTruncated FinishReason = "truncated"
	FinishFiltered  FinishReason = "filtered"
	FinishPaused    FinishReason = "paused"
	FinishOther     FinishReason = "other"
)

// ChatCompletionsFinish normalises a Chat Completions finish_reason (Kimi,
// OpenAI and compatible servers).
func ChatCompletionsFinish(raw string) FinishReason {
	switch raw {
	case "":
		return FinishNone
	case "stop":
		return FinishCompleted
	case "tool_calls", "function_call":
		return FinishToolCalls
	case "length":
		return FinishTruncated
	case "content_filter":
		return FinishFiltered
	}
	return FinishOther
}

// AnthropicFinish normalises an Anthropic stop_reason.
func AnthropicFinish(raw string) FinishReason {
	switch raw {
	case "":
		return FinishNone
	case "end_turn", "stop_sequence":
		return FinishCompleted
	case "tool_use":
		return FinishToolCalls
	case "max_tokens":
		return FinishTruncated
	case "pause_turn":
		return FinishPaused
	case "refusal":
		return FinishFiltered
	}
	return FinishOther
}
