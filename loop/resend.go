package loop

import (
	"context"

	"github.com/kimigo/kimigo/llm"
)

// resendUse reports which media views a step fell back to successfully;
// later steps of the turn start from them.
type resendUse struct {
	degraded, stripped bool
}

// chat sends the step's request and, when the provider rejects it in a way a
// different view of the history can fix, resends it once per view (spec 01
// §4.8). Views only move forward: normal → media-degraded → media-stripped;
// the strict view is a one-off repair for a structural 400.
func (t *turn) chat(ctx context.Context, s *stepState, msgs []llm.Message, proj Projection) (ChatResponse, resendUse, error) {
	resp, err := t.chatWithRetry(ctx, s, msgs, proj)
	if err == nil || IsAbort(err) || ctx.Err() != nil {
		return resp, resendUse{}, err
	}
	switch {
	case llm.IsRequestTooLarge(err):
		return t.resendTooLarge(ctx, s, proj, err)
	case llm.IsImageFormatError(err):
		if proj == ProjectionMediaStripped || t.in.BuildMessagesMediaStripped == nil {
			return resp, resendUse{}, err
		}
		resp, err = t.resend(ctx, s, ProjectionMediaStripped)
		return resp, resendUse{stripped: err == nil}, err
	case llm.IsRecoverableRequestStructureError(err) && t.in.BuildMessagesStrict != nil:
		resp, err = t.resend(ctx, s, ProjectionStrict)
		if err != nil && !IsAbort(err) {
			t.log.Error("strict resend failed; the repaired history was still rejected",
				"turn", t.in.TurnID, "step", s.n, "error", err)
		}
		return resp, resendUse{}, err
	}
	return resp, resendUse{}, err
}

// resendTooLarge handles a 413: degraded first, then stripped; a step that
// already started degraded goes straight to stripped.
func (t *turn) resendTooLarge(ctx context.Context, s *stepState, proj Projection, err error) (ChatResponse, resendUse, error) {
	hasStripped := t.in.BuildMessagesMediaStripped != nil
	switch proj {
	case ProjectionMediaStripped:
		return ChatResponse{}, resendUse{}, err
	case ProjectionMediaDegraded:
		if !hasStripped {
			return ChatResponse{}, resendUse{}, err
		}
		resp, err := t.resend(ctx, s, ProjectionMediaStripped)
		return resp, resendUse{stripped: err == nil}, err
	}
	if t.in.BuildMessagesMediaDegraded == nil {
		return ChatResponse{}, resendUse{}, err
	}
	resp, err := t.resend(ctx, s, ProjectionMediaDegraded)
	if err == nil {
		return resp, resendUse{degraded: true}, nil
	}
	if IsAbort(err) || ctx.Err() != nil || !hasStripped ||
		!(llm.IsRequestTooLarge(err) || llm.IsImageFormatError(err)) {
		return resp, resendUse{}, err
	}
	resp, err = t.resend(ctx, s, ProjectionMediaStripped)
	return resp, resendUse{stripped: err == nil}, err
}

// resend rebuilds the messages from view p and sends them under the full
// retry policy.
func (t *turn) resend(ctx context.Context, s *stepState, p Projection) (ChatResponse, error) {
	if ctx.Err() != nil {
		return ChatResponse{}, abortErr(ctx)
	}
	msgs, err := t.builder(p)(ctx)
	if err != nil {
		return ChatResponse{}, err
	}
	if ctx.Err() != nil {
		return ChatResponse{}, abortErr(ctx)
	}
	return t.chatWithRetry(ctx, s, msgs, p)
}
