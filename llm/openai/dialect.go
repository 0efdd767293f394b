package openai

import (
	"strings"
	"sync"
)

// ReasoningKey is a wire field that carries reasoning text on Chat
// Completions messages and deltas. The field is not standardised, so the
// provider learns it from what the endpoint streams (spec 01 §3.1.3).
type ReasoningKey string

// Known reasoning keys, in the order an inbound delta is scanned.
const (
	// KeyReasoningContent is Moonshot's and DeepSeek's field, the default.
	KeyReasoningContent ReasoningKey = "reasoning_content"
	// KeyReasoningDetails is OpenRouter's field.
	KeyReasoningDetails ReasoningKey = "reasoning_details"
	// KeyReasoning is vLLM's and GPT-OSS's field.
	KeyReasoning ReasoningKey = "reasoning"
)

// knownReasoningKeys is the inbound scan order.
var knownReasoningKeys = [...]ReasoningKey{KeyReasoningContent, KeyReasoningDetails, KeyReasoning}

// reasoningDialect remembers which reasoning key an endpoint speaks. One
// value belongs to an endpoint: a Provider and every copy made by its With*
// methods share it by pointer, so a key learned while streaming one step
// steers the next request. It is safe for concurrent use.
type reasoningDialect struct {
	// fixed is a configured key; when set, only it is read and written and
	// nothing is learned. Immutable after construction.
	fixed ReasoningKey

	mu      sync.Mutex
	learned ReasoningKey // guarded by mu; "" until a key was seen
}

func newReasoningDialect(configured string) *reasoningDialect {
	return &reasoningDialect{fixed: ReasoningKey(strings.TrimSpace(configured))}
}

// outbound is the key used for assistant reasoning in requests.
func (d *reasoningDialect) outbound() ReasoningKey {
	if d.fixed != "" {
		return d.fixed
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.learned != "" {
		return d.learned
	}
	return KeyReasoningContent
}

// observe records the key a delta used. Detection never resets: the last
// key seen wins.
func (d *reasoningDialect) observe(k ReasoningKey) {
	if d.fixed != "" {
		return
	}
	d.mu.Lock()
	d.learned = k
	d.mu.Unlock()
}

// custom reports whether the configured key is one the fast chunk decoder
// does not know, so deltas must be decoded generically.
func (d *reasoningDialect) custom() bool {
	if d.fixed == "" {
		return false
	}
	for _, k := range knownReasoningKeys {
		if k == d.fixed {
			return false
		}
	}
	return true
}
