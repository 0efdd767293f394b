package llm

// TokenUsage counts the tokens of one response. All fields are non-negative.
// The JSON keys are the persisted camelCase names; missing keys read as 0.
type TokenUsage struct {
	// InputOther is input neither read from nor written to the prompt cache.
	InputOther int `json:"inputOther"`
	// Output is completion tokens.
	Output int `json:"output"`
	// InputCacheRead is input served from the prompt cache.
	InputCacheRead int `json:"inputCacheRead"`
	// InputCacheCreation is input written to the prompt cache (Anthropic).
	InputCacheCreation int `json:"inputCacheCreation"`
}

// InputTotal is every input token, cached or not.
func (u TokenUsage) InputTotal() int { return u.InputOther + u.InputCacheRead + u.InputCacheCreation }

// GrandTotal is input plus output.
func (u TokenUsage) GrandTotal() int { return u.InputTotal() + u.Output }

// Add returns the field-wise sum of u and v.
func (u TokenUsage) Add(v TokenUsage) TokenUsage {
	return TokenUsage{
		InputOther:         u.InputOther + v.InputOther,
		Output:             u.Output + v.Output,
		InputCacheRead:     u.InputCacheRead + v.InputCacheRead,
		InputCacheCreation: u.InputCacheCreation + v.InputCacheCreation,
	}
}

// IsZero reports whether every field is 0.
func (u TokenUsage) IsZero() bool { return u == TokenUsage{} }

// ChatCompletionsUsage converts Chat Completions counters (Kimi and OpenAI):
// cached is subtracted from prompt tokens. Negative results clamp to 0.
func ChatCompletionsUsage(promptTokens, completionTokens, cached int) TokenUsage {
	other := promptTokens - cached
	if other < 0 {
		other = 0
	}
	return TokenUsage{InputOther: other, Output: max(completionTokens, 0), InputCacheRead: max(cached, 0)}
}
