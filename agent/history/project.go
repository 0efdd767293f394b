package history

import "github.com/kimigo/kimigo/llm"

// ProjectOptions switch the repair passes of spec 02 §3.1. The zero value
// is a fragment projection: prepare and adjacency only, orphans kept.
type ProjectOptions struct {
	// SynthesizeMissing closes even the trailing exchange's missing
	// results with placeholders.
	SynthesizeMissing bool
	// DropOrphanResults drops results whose id matches no call.
	DropOrphanResults bool
	// DropUnplacedResults also drops every result that adjacency did not
	// place right after its call (a result before its call, a second
	// result). A Go addition (spec 02 §3.13) that makes the strict view
	// valid.
	DropUnplacedResults bool
	// DropLeadingNonUser drops messages before the first user message.
	DropLeadingNonUser bool
	// MergeConsecutiveAssistants joins an assistant message into the one
	// right before it.
	MergeConsecutiveAssistants bool
	// DedupeDuplicateToolCalls keeps the first call and the first result
	// of every id.
	DedupeDuplicateToolCalls bool
	// OnAnomaly receives every repair, in pipeline order; nil ignores them.
	OnAnomaly func(Anomaly)
	// rendered returns a tool result's rendering made when it entered
	// history (Memory.Project sets it); nil renders every result.
	rendered func(*Message) ([]llm.ContentPart, bool)
}

// NormalOptions is the view of every normal request (Messages).
func NormalOptions() ProjectOptions { return ProjectOptions{DropOrphanResults: true} }

// StrictOptions is the view of the one resend after a structural 400
// (StrictMessages): every pass on, including the Go deviations of
// spec 02 §3.13.
func StrictOptions() ProjectOptions {
	return ProjectOptions{
		SynthesizeMissing:          true,
		DropOrphanResults:          true,
		DropUnplacedResults:        true,
		DropLeadingNonUser:         true,
		MergeConsecutiveAssistants: true,
		DedupeDuplicateToolCalls:   true,
	}
}

// Project turns stored history into provider messages (spec 02 §3.1 step
// 3): prepare (P1), dedupe (P2), adjacency (P3), orphans (P5), assistant
// merge (P4, after P5 as §3.13 requires) and leading drop (P6), each as
// opts enables. It is pure: h is never modified, nothing is written back,
// and the same input gives the same output byte for byte. Messages that
// pass through unchanged share their slices with h, so the result must be
// treated as read-only.
func Project(h []Message, opts ProjectOptions) []llm.Message {
	report := opts.OnAnomaly
	if report == nil {
		report = func(Anomaly) {}
	}
	msgs := prepare(h, opts.rendered, report)
	if opts.DedupeDuplicateToolCalls {
		msgs = dedupe(msgs, report)
	}
	msgs, unplaced := adjacency(msgs, opts.SynthesizeMissing, report)
	if opts.DropOrphanResults || opts.DropUnplacedResults {
		msgs = dropOrphans(msgs, unplaced, opts.DropUnplacedResults, report)
	}
	if opts.MergeConsecutiveAssistants {
		msgs = mergeAssistants(msgs, report)
	}
	if opts.DropLeadingNonUser {
		msgs = dropLeadingNonUser(msgs, report)
	}
	return msgs
}
