package history

import (
	"strconv"

	"github.com/kimigo/kimigo/llm"
)

// Budgets of the user messages a compaction keeps (spec 02 §5), in
// estimated tokens.
const (
	CompactUserMessageMaxTokens  = 20_000
	CompactUserMessageHeadTokens = 2_000
)

// CompactionInput is what a live compaction hands over once the summary
// is written (spec 03 §6.12).
type CompactionInput struct {
	// Summary is the human-facing summary.
	Summary string
	// ContextSummary is what the model will read (summary prefix plus
	// summary); empty means Summary.
	ContextSummary string
	// CompactedCount is the length of the history snapshot summarised.
	CompactedCount int
	// TokensBefore is the context size before compaction.
	TokensBefore int
	// DroppedCount is optional bookkeeping passed through to the record.
	DroppedCount *int
}

// CompactionRecord builds the context.apply_compaction record of a live
// compaction: it selects the user messages to keep from the current
// history (head and tail, with an elision marker when they exceed the
// budget) and fills every derived field, so that applying the record on
// resume repeats exactly this rewrite. It changes nothing.
func (m *Memory) CompactionRecord(in CompactionInput) ApplyCompactionRecord {
	sel := selectHeadTail(compactionPool(m.history))
	summary := in.ContextSummary
	if summary == "" {
		summary = in.Summary
	}
	kept := sel.kept()
	rec := ApplyCompactionRecord{
		Summary:              in.Summary,
		ContextSummary:       &summary,
		CompactedCount:       in.CompactedCount,
		TokensBefore:         in.TokensBefore,
		TokensAfter:          ptr(llm.EstimateTokens(summary) + estimateHistory(kept)),
		KeptUserMessageCount: ptr(len(sel.head) + len(sel.tail)),
		DroppedCount:         in.DroppedCount,
	}
	if sel.elided {
		rec.KeptHeadUserMessageCount = ptr(len(sel.head))
	}
	return rec
}

// ApplyCompaction applies context.apply_compaction (spec 02 §5): history
// becomes the kept user messages followed by the summary, open steps and
// pending calls are forgotten, deferred messages are dropped (not
// flushed), and the token count becomes tokensAfter. Records from older
// versions without keptHeadUserMessageCount use the tail-only selection,
// and without keptUserMessageCount the legacy cut
// [summary, history[compactedCount:]…]. It returns the record with every
// derived field filled, for the replay stream.
func (m *Memory) ApplyCompaction(r ApplyCompactionRecord) (ApplyCompactionRecord, Change) {
	pool := compactionPool(m.history)
	var sel selection
	if r.KeptHeadUserMessageCount == nil {
		sel = selectTailOnly(pool)
	} else {
		sel = selectHeadTail(pool)
	}
	kept := sel.kept()
	summary := r.Summary
	if r.ContextSummary != nil {
		summary = *r.ContextSummary
	}
	res := r
	res.ContextSummary = &summary
	if res.TokensAfter == nil {
		res.TokensAfter = ptr(llm.EstimateTokens(summary) + estimateHistory(kept))
	}
	if res.KeptUserMessageCount == nil {
		res.KeptUserMessageCount = ptr(len(sel.head) + len(sel.tail))
	}
	if res.KeptHeadUserMessageCount == nil && sel.elided {
		res.KeptHeadUserMessageCount = ptr(len(sel.head))
	}

	summaryMsg := Message{
		Message: llm.Message{Role: llm.RoleUser, Content: []llm.ContentPart{llm.TextPart(summary)}},
		Origin:  CompactionSummaryOrigin(),
	}
	var h []Message
	if cut := max(r.CompactedCount, 0); r.KeptUserMessageCount == nil && cut < len(m.history) {
		// Records from before the rework kept a verbatim recent tail; it
		// may start with an orphan result, which P5 drops at the wire.
		h = make([]Message, 0, len(m.history)-cut+1)
		h = append(append(h, summaryMsg), m.history[cut:]...)
	} else {
		h = make([]Message, 0, len(kept)+1)
		h = append(append(h, kept...), summaryMsg)
	}
	for i := range h {
		if h[i].Seq == 0 {
			m.lastSeq++
			h[i].Seq = m.lastSeq
		}
	}
	m.replaceHistory(h)
	m.resetExchange()
	m.tokenCount = *res.TokensAfter
	m.covered = len(h)
	if m.hooks.LimitMicroCompaction != nil {
		m.hooks.LimitMicroCompaction(0)
	}
	if m.hooks.Compacted != nil {
		m.hooks.Compacted()
	}
	return res, Change{Replaced: true}
}

// compactionPool is the real user input of h, summaries excluded, in order.
func compactionPool(h []Message) []Message {
	var pool []Message
	for _, msg := range h {
		if IsRealUserInput(msg) && !msg.Origin.Is(OriginCompactionSummary) {
			pool = append(pool, msg)
		}
	}
	return pool
}

// selection is the outcome of choosing which user messages survive.
type selection struct {
	head, tail []Message
	elided     bool
	omitted    int
}

// kept is head, the elision marker when elided, then tail.
func (s selection) kept() []Message {
	kept := make([]Message, 0, len(s.head)+len(s.tail)+1)
	kept = append(kept, s.head...)
	if s.elided {
		kept = append(kept, elisionMarker(s.omitted))
	}
	return append(kept, s.tail...)
}

// elisionMarker tells the model that user messages were left out where it
// stands and roughly how many tokens they held.
func elisionMarker(omitted int) Message {
	return SystemReminder(fill(elisionMD, "omitted", strconv.Itoa(omitted)), InjectionOrigin(VariantCompactionElision))
}

func ptr[T any](v T) *T { return &v }
