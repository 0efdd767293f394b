package history

import (
	"log/slog"
	"sort"
	"strings"
	"sync"

	"github.com/kimigo/kimigo/llm"
)

// AnomalyKind names a repair projection made (spec 02 §3.8).
type AnomalyKind string

// Anomaly kinds.
const (
	AnomalyResultReordered        AnomalyKind = "tool_result_reordered"
	AnomalyResultSynthesized      AnomalyKind = "tool_result_synthesized"
	AnomalyOrphanResultDropped    AnomalyKind = "orphan_tool_result_dropped"
	AnomalyDuplicateCallDropped   AnomalyKind = "duplicate_tool_call_dropped"
	AnomalyDuplicateResultDropped AnomalyKind = "duplicate_tool_result_dropped"
	AnomalyLeadingNonUserDropped  AnomalyKind = "leading_non_user_dropped"
	AnomalyConsecutiveAssistants  AnomalyKind = "consecutive_assistants_merged"
	AnomalyWhitespaceTextDropped  AnomalyKind = "whitespace_text_dropped"
	AnomalyVacuousMessageDropped  AnomalyKind = "vacuous_message_dropped"
)

// Names of the repair warning and its per-kind counters (spec 02 §3.10).
const (
	repairLogMessage            = "repaired the request to keep it wire-valid"
	maxReportedToolCallIDs      = 5
	repairCountReordered        = "reordered"
	repairCountSynthesized      = "synthesized"
	repairCountOrphans          = "droppedOrphan"
	repairCountDuplicateCalls   = "duplicateCallsDropped"
	repairCountDuplicateResults = "duplicateResultsDropped"
	repairCountLeading          = "leadingDropped"
	repairCountMerged           = "assistantsMerged"
	repairCountWhitespace       = "whitespaceDropped"
	repairCountVacuous          = "vacuousDropped"
)

// Anomaly is one repair. ToolCallID is set for the tool-exchange kinds,
// Role for the message kinds, Trailing only for a synthesized result.
type Anomaly struct {
	Kind       AnomalyKind
	ToolCallID string
	Role       llm.Role
	// Trailing marks the expected close of an in-flight tail exchange by a
	// view that synthesizes missing results; it is not worth a warning.
	Trailing bool
}

// hasID reports whether the kind carries a tool-call id.
func (k AnomalyKind) hasID() bool {
	switch k {
	case AnomalyResultReordered, AnomalyResultSynthesized, AnomalyOrphanResultDropped,
		AnomalyDuplicateCallDropped, AnomalyDuplicateResultDropped:
		return true
	}
	return false
}

// countKey is the per-kind counter name of the repair warning.
func (k AnomalyKind) countKey() string {
	switch k {
	case AnomalyResultReordered:
		return repairCountReordered
	case AnomalyResultSynthesized:
		return repairCountSynthesized
	case AnomalyOrphanResultDropped:
		return repairCountOrphans
	case AnomalyDuplicateCallDropped:
		return repairCountDuplicateCalls
	case AnomalyDuplicateResultDropped:
		return repairCountDuplicateResults
	case AnomalyLeadingNonUserDropped:
		return repairCountLeading
	case AnomalyConsecutiveAssistants:
		return repairCountMerged
	case AnomalyWhitespaceTextDropped:
		return repairCountWhitespace
	case AnomalyVacuousMessageDropped:
		return repairCountVacuous
	}
	return string(k)
}

// Repair summarises the notable anomalies of one projection, for the
// warning log and optional telemetry (spec 02 §3.10).
type Repair struct {
	// Counts maps the counter names (reordered, synthesized,
	// droppedOrphan, …) to how often each repair happened.
	Counts map[string]int
	// ToolCallIDs are up to five distinct ids involved, in order of
	// appearance.
	ToolCallIDs []string
	// Signature identifies the set of repairs; equal signatures are
	// reported once.
	Signature string
}

// repairLog reports projection repairs, each distinct set once in a row.
// It is safe for concurrent use: views may be built outside the agent's
// state lock.
type repairLog struct {
	mu      sync.Mutex
	lastSig string // guarded by mu; "" means nothing was reported last
	log     *slog.Logger
	onRep   func(Repair)
}

// report logs the notable anomalies unless they equal the last ones.
func (r *repairLog) report(anoms []Anomaly) {
	notable := anoms[:0:0]
	for _, a := range anoms {
		if a.Kind == AnomalyResultSynthesized && a.Trailing {
			continue
		}
		notable = append(notable, a)
	}
	r.mu.Lock()
	if len(notable) == 0 {
		r.lastSig = ""
		r.mu.Unlock()
		return
	}
	rep := summarize(notable)
	if rep.Signature == r.lastSig {
		r.mu.Unlock()
		return
	}
	r.lastSig = rep.Signature
	r.mu.Unlock()
	attrs := make([]any, 0, 2*len(repairCounters)+2)
	for _, k := range repairCounters {
		attrs = append(attrs, k, rep.Counts[k])
	}
	attrs = append(attrs, "tool_call_ids", rep.ToolCallIDs)
	r.log.Warn(repairLogMessage, attrs...)
	if r.onRep != nil {
		r.onRep(rep)
	}
}

// repairCounters are the counters every repair warning carries, zeros
// included.
var repairCounters = [...]string{repairCountReordered, repairCountSynthesized, repairCountOrphans,
	repairCountDuplicateCalls, repairCountDuplicateResults, repairCountLeading, repairCountMerged,
	repairCountWhitespace, repairCountVacuous}

// summarize builds the counts, ids and signature of notable anomalies.
func summarize(notable []Anomaly) Repair {
	rep := Repair{Counts: make(map[string]int, len(repairCounters))}
	for _, c := range repairCounters {
		rep.Counts[c] = 0
	}
	sig := make([]string, 0, len(notable))
	seen := map[string]bool{}
	for _, a := range notable {
		rep.Counts[a.Kind.countKey()]++
		if a.Kind.hasID() {
			sig = append(sig, string(a.Kind)+":"+a.ToolCallID)
			if !seen[a.ToolCallID] && len(rep.ToolCallIDs) < maxReportedToolCallIDs {
				seen[a.ToolCallID] = true
				rep.ToolCallIDs = append(rep.ToolCallIDs, a.ToolCallID)
			}
		} else {
			sig = append(sig, string(a.Kind))
		}
	}
	sort.Strings(sig)
	rep.Signature = strings.Join(sig, "|")
	return rep
}
