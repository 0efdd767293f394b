package loop

import (
	"context"
	crand "crypto/rand"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"time"

	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/loop/jsonschema"
)

// MessageBuilder returns the messages of the next request from the host's
// history. It runs on the turn goroutine.
type MessageBuilder func(ctx context.Context) ([]llm.Message, error)

// RunTurnInput is everything a turn needs. The loop owns no history,
// prompt, permission or persistence: they come in here.
type RunTurnInput struct {
	// TurnID appears in events and hook contexts.
	TurnID string
	// LLM answers each request.
	LLM LLM
	// BuildMessages builds the normal view; called once per step, after
	// BeforeStep. Required.
	BuildMessages MessageBuilder
	// BuildMessagesStrict builds a wire-compliant view for one resend after
	// a structural 400. Optional.
	BuildMessagesStrict MessageBuilder
	// BuildMessagesMediaDegraded replaces older media with text markers,
	// for a resend after a 413. Optional.
	BuildMessagesMediaDegraded MessageBuilder
	// BuildMessagesMediaStripped replaces every media part with a marker.
	// Optional.
	BuildMessagesMediaStripped MessageBuilder
	// Dispatch receives the events; nil drops them.
	Dispatch Dispatcher
	// Tools is the static tool table of the turn.
	Tools []ExecutableTool
	// BuildTools, when set, wins over Tools; it is called every step after
	// BeforeStep (which may load or unload tools).
	BuildTools func(ctx context.Context) ([]ExecutableTool, error)
	// DescribeMissingTool words the result for an unknown tool name; nil or
	// false means `Tool "<name>" not found`.
	DescribeMissingTool func(name string) (string, bool)
	// Hooks are the host's steering points.
	Hooks Hooks
	// Log receives warnings and debug detail; nil discards.
	Log *slog.Logger
	// MaxSteps limits the steps of the turn; 0 means no limit.
	MaxSteps int
	// MaxRetryAttempts is the number of attempts per request, the first
	// included; 0 means 10, and 1 or less disables retries.
	MaxRetryAttempts int
	// StallTimeout bounds the time a request may go without an answer in
	// progress, retries included: the time its attempts spend before their
	// first streamed part, the silence that ends a failed attempt, and the
	// waits between attempts. An attempt that has streamed nothing when it
	// runs out is cancelled, and no retry is waited for past it. 0 means
	// DefaultStallTimeout; negative means no bound.
	StallTimeout time.Duration
	// MaxRetryAfter is the longest Retry-After honoured; a failure that
	// asks for more ends the step with a message naming the wait. 0 means
	// DefaultMaxRetryAfter; negative means any.
	MaxRetryAfter time.Duration
	// RecordStepUsage runs right after each successful request, before any
	// tool runs. stopTurn skips the step's tool calls and ends the turn; an
	// error fails the turn.
	RecordStepUsage func(ctx context.Context, usage llm.TokenUsage) (stopTurn bool, err error)
	// OnRequestTrace receives each step's trace holder right after
	// step.begin.
	OnRequestTrace func(trace *RequestTrace)
	// Options inject the clock, randomness and ids; the zero value is right
	// for production.
	Options Options
}

// Options replace the loop's clock, randomness and id source.
type Options struct {
	// Sleep waits d or until ctx is done, returning an abort error then.
	// Default: a timer.
	Sleep func(ctx context.Context, d time.Duration) error
	// Jitter returns a number in [0, 1) that spreads retry delays.
	// Default: math/rand/v2.
	Jitter func() float64
	// NewUUID returns a fresh id for step.begin and content.part.
	// Default: a random version 4 UUID.
	NewUUID func() string
	// Schemas caches compiled argument validators. Default: a cache shared
	// by the whole process, keyed by schema text.
	Schemas *jsonschema.Cache
}

// TurnResult is how a turn ended. An aborted turn is a result, not an error.
type TurnResult struct {
	// StopReason is never StopToolUse.
	StopReason StopReason
	// Steps counts the steps started, an aborted one included.
	Steps int
	// Usage is the sum of every successful request's usage.
	Usage llm.TokenUsage
}

// defaultSchemas is shared by every turn whose Options leave Schemas nil;
// entries are immutable once compiled.
var defaultSchemas = jsonschema.NewCache()

func (o Options) withDefaults() Options {
	if o.Sleep == nil {
		o.Sleep = sleep
	}
	if o.Jitter == nil {
		o.Jitter = rand.Float64
	}
	if o.NewUUID == nil {
		o.NewUUID = newUUID
	}
	if o.Schemas == nil {
		o.Schemas = defaultSchemas
	}
	return o
}

// sleep waits d unless ctx is done first.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return abortErr(ctx)
	}
}

// newUUID returns a random version 4 UUID.
func newUUID() string {
	var b [16]byte
	_, _ = crand.Read(b[:]) // crypto/rand.Read never returns an error
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
