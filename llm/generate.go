package llm

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"
)

// Callbacks observe one Generate call. Every field is optional; all run on
// the caller's goroutine.
type Callbacks struct {
	// OnRequestStart runs before the provider builds the request.
	OnRequestStart func()
	// OnRequestSent runs right before the network call.
	OnRequestSent func()
	// OnTraceID runs as soon as response headers carry a trace id.
	OnTraceID func(traceID string)
	// OnMessagePart receives a copy of every streamed part, in order.
	OnMessagePart func(StreamPart)
	// OnStreamEnd receives decode timing after the stream drained; nil when
	// no part arrived.
	OnStreamEnd func(*StreamStats)
	// OnToolCall receives each assembled tool call after the stream ended.
	OnToolCall func(ToolCall)
}

// StreamStats is decode-time telemetry (spec 01 §2.6).
type StreamStats struct {
	ServerDecode  time.Duration
	ClientConsume time.Duration
}

// Result is an assembled response.
type Result struct {
	ID              string
	Message         Message
	Usage           *TokenUsage // nil when the provider reported none
	FinishReason    FinishReason
	RawFinishReason string
	TraceID         string
}

// Generate sends req through p and assembles the streamed answer into one
// assistant message (spec 01 §2.2). A cancelled ctx yields an abort error and
// no result; nothing assembled so far is returned.
func Generate(ctx context.Context, p Provider, req Request, cb Callbacks) (*Result, error) {
	if ctx.Err() != nil {
		return nil, Aborted(ctx)
	}
	req.Tools = offeredTools(req.Tools)
	if cb.OnRequestSent != nil {
		sent := cb.OnRequestSent
		if prev := req.OnRequestSent; prev != nil {
			req.OnRequestSent = func() { prev(); sent() }
		} else {
			req.OnRequestSent = sent
		}
	}
	if cb.OnRequestStart != nil {
		cb.OnRequestStart()
	}
	stream, err := p.Generate(ctx, &req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, Aborted(ctx)
		}
		return nil, err
	}
	defer func() { _ = stream.Close() }() // closing after drain or abort; nothing to report
	if id := stream.TraceID(); id != "" && cb.OnTraceID != nil {
		cb.OnTraceID(id)
	}
	if ctx.Err() != nil {
		return nil, Aborted(ctx)
	}

	a := newAssembler()
	var (
		first, lastResume time.Time
		stats             StreamStats
	)
	for {
		part, err := stream.Next()
		now := time.Now()
		if err == io.EOF {
			break
		}
		if err != nil {
			if ctx.Err() != nil {
				return nil, Aborted(ctx)
			}
			return nil, err
		}
		if first.IsZero() {
			first = now
		} else {
			stats.ServerDecode += now.Sub(lastResume)
		}
		if ctx.Err() != nil {
			return nil, Aborted(ctx)
		}
		part = a.receive(part)
		if cb.OnMessagePart != nil {
			cb.OnMessagePart(clonePart(part))
			if ctx.Err() != nil {
				return nil, Aborted(ctx)
			}
		}
		a.add(part)
		lastResume = time.Now()
		stats.ClientConsume += lastResume.Sub(now)
	}
	if ctx.Err() != nil {
		return nil, Aborted(ctx)
	}
	if cb.OnStreamEnd != nil {
		if first.IsZero() {
			cb.OnStreamEnd(nil)
		} else {
			stats.ServerDecode += time.Since(lastResume)
			cb.OnStreamEnd(&stats)
		}
	}
	res := &Result{
		ID:              stream.ID(),
		Message:         a.finish(),
		FinishReason:    stream.FinishReason(),
		RawFinishReason: stream.RawFinishReason(),
		TraceID:         stream.TraceID(),
	}
	if u, ok := stream.Usage(); ok {
		res.Usage = &u
	}
	if err := checkNonEmpty(p, res); err != nil {
		return nil, err
	}
	if cb.OnToolCall != nil {
		for _, tc := range res.Message.ToolCalls {
			if ctx.Err() != nil {
				return nil, Aborted(ctx)
			}
			cb.OnToolCall(tc)
		}
	}
	return res, nil
}

func clonePart(p StreamPart) StreamPart {
	p.Content = p.Content.Clone()
	return p
}

// checkNonEmpty returns the EmptyResponse error of spec 01 §2.2 steps 10–11.
func checkNonEmpty(p Provider, r *Result) error {
	m := r.Message
	if len(m.ToolCalls) > 0 {
		return nil
	}
	hasThink, hasText := false, false
	for _, c := range m.Content {
		switch c.Type {
		case PartThink:
			hasThink = true
		case PartText:
			if strings.TrimSpace(c.Text) != "" {
				hasText = true
			}
		}
	}
	var msg string
	switch {
	case len(m.Content) == 0:
		msg = "The API returned an empty response (no content, no tool calls)."
	case hasThink && !hasText:
		msg = "The API returned only thinking content, with no visible text and no tool calls; " +
			"the stream was interrupted or the output budget ran out during reasoning."
	default:
		return nil
	}
	msg += finishHint(r.FinishReason, r.RawFinishReason)
	msg += fmt.Sprintf(" Provider: %s, model: %s", p.Name(), p.ModelName())
	return &Error{Kind: KindEmptyResponse, Message: msg,
		FinishReason: r.FinishReason, RawFinishReason: r.RawFinishReason, TraceID: r.TraceID}
}

func finishHint(f FinishReason, raw string) string {
	if f == FinishNone && raw == "" {
		return ""
	}
	reason := string(f)
	if reason == "" {
		reason = "unknown"
	}
	h := " Provider stop details: finishReason=" + reason
	if raw != "" {
		h += ", rawFinishReason=" + raw
	}
	h += "."
	if f == FinishFiltered {
		h += " The provider filtered the response before visible output was emitted."
	}
	return h
}
