package compaction

import "github.com/kimigo/kimigo/agent/records"

// Source says who started a compaction. It is persisted in
// full_compaction.begin and is the matcher of the compaction hooks.
type Source string

// Compaction sources.
const (
	SourceAuto   Source = "auto"
	SourceManual Source = "manual"
)

// The records a compaction writes around its round (spec 02 §6.3). The
// rewrite itself is history's context.apply_compaction. Their apply
// restores nothing: a compaction never survives a restart, and the replay
// stream reads them for its compaction cards.
const (
	TypeBegin    records.Type = "full_compaction.begin"
	TypeCancel   records.Type = "full_compaction.cancel"
	TypeComplete records.Type = "full_compaction.complete"
)

// RecordTypes lists the record types a compaction writes, for the agent's
// exhaustive apply test.
func RecordTypes() []records.Type { return []records.Type{TypeBegin, TypeCancel, TypeComplete} }

// BeginRecord is the payload of full_compaction.begin.
type BeginRecord struct {
	Source      Source `json:"source"`
	Instruction string `json:"instruction,omitempty"`
}

// CancelRecord is the payload of full_compaction.cancel, which has no
// fields.
type CancelRecord struct{}

// CompleteRecord is the payload of full_compaction.complete, which has no
// fields.
type CompleteRecord struct{}
