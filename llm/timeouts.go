package llm

import "time"

// Bounds on one model response that the HTTP providers apply when their
// options leave them at zero.
const (
	// DefaultStreamIdleTimeout fails a request whose service sends no byte
	// for this long, from the moment the request is sent: before the
	// response headers as well as between events. Healthy services send
	// something far more often (Kimi streams its reasoning, Anthropic sends
	// ping events while it works), so two minutes of silence is a stall;
	// a model that reasons silently for longer (some OpenAI-compatible
	// servers, large local prompts) needs loop_control.stream_idle_timeout_ms
	// raised.
	DefaultStreamIdleTimeout = 2 * time.Minute
	// DefaultResponseTimeout is the ceiling on one response, from the
	// request to the end of its stream. It is generous: 64,000 output
	// tokens at 40 tokens a second take under half of it. It ends streams
	// that never stop (endless deltas, keep-alives forever).
	DefaultResponseTimeout = 30 * time.Minute
)
