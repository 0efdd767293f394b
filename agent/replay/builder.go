package replay

import (
	"encoding/json"
	"slices"

	"github.com/kimigo/kimigo/agent/history"
	"github.com/kimigo/kimigo/agent/records"
)

// Record types the stream makes cards from. Their owners (permission, plan,
// goal, compaction, the agent's configuration) build and apply them; the
// stream only reads the fields it shows.
const (
	typeConfigUpdate      records.Type = "config.update"
	typePermissionSetMode records.Type = "permission.set_mode"
	typeApprovalResult    records.Type = "permission.record_approval_result"
	typeCompactionBegin   records.Type = "full_compaction.begin"
	typeCompactionCancel  records.Type = "full_compaction.cancel"
	typePlanEnter         records.Type = "plan_mode.enter"
	typePlanCancel        records.Type = "plan_mode.cancel"
	typePlanExit          records.Type = "plan_mode.exit"
	typeAppendMessage                  = records.Type(history.TypeAppendMessage)
	typeAppendLoopEvent                = records.Type(history.TypeAppendLoopEvent)
	typeUndo                           = records.Type(history.TypeUndo)
	typeClear                          = records.Type(history.TypeClear)
	typeApplyCompaction                = records.Type(history.TypeApplyCompaction)
)

// Range limits a replay to a window of cards (spec 02 §6.12). Start counts
// cards from the beginning of a segment; segments are separated by
// context.clear and context.apply_compaction, and a window never crosses
// one. With only Count the last Count cards of the whole replay are kept.
// The zero Range keeps everything.
type Range struct {
	Start *int
	Count *int
}

// Builder collects the cards of a replay while the agent restores its
// records (spec 02 §6.12): the agent hands it every record it applies with
// the history change that record made. Once the range is complete it
// freezes and asks the replay to stop. A Builder is used under the agent's
// state lock; it is not safe for concurrent use.
type Builder struct {
	rng          Range
	cards        []Card
	segmentStart int
	frozen       bool
}

// NewBuilder returns a builder for r.
func NewBuilder(r Range) *Builder { return &Builder{rng: r} }

// Observe adds the cards of rec, whose apply changed history by ch. It
// reports whether the range is complete and the replay should stop.
func (b *Builder) Observe(rec records.Record, ch history.Change) (stop bool) {
	if b.frozen {
		return true
	}
	t := rec.Type
	switch t {
	case typeAppendMessage, typeAppendLoopEvent, typeUndo:
		b.messages(rec.Time, ch)
	case typeClear:
		return b.boundary()
	case typeApplyCompaction:
		if ch.Compacted != nil {
			b.patchCompaction(func(c *Card) { c.Result = ch.Compacted })
		}
		return b.boundary()
	case typeCompactionBegin:
		var f struct {
			Instruction string `json:"instruction"`
		}
		_ = records.Decode(rec, &f) // a malformed optional field shows no instruction
		b.push(Card{Type: CardCompaction, Time: rec.Time, Instruction: f.Instruction})
	case typeCompactionCancel:
		b.patchCompaction(func(c *Card) { c.Cancelled = true })
	case typeConfigUpdate:
		b.push(Card{Type: CardConfigUpdated, Time: rec.Time, Fields: fields(rec)})
	case typePermissionSetMode:
		var f struct {
			Mode string `json:"mode"`
		}
		_ = records.Decode(rec, &f) // an unreadable mode shows as empty
		b.push(Card{Type: CardPermissionUpdated, Time: rec.Time, Mode: f.Mode})
	case typeApprovalResult:
		b.push(Card{Type: CardApprovalResult, Time: rec.Time, Fields: fields(rec)})
	case typePlanEnter, typePlanCancel, typePlanExit:
		b.push(Card{Type: CardPlanUpdated, Time: rec.Time, Enabled: t == typePlanEnter})
	}
	return false
}

// Add adds a card its owner built: goal mode's goal_updated cards, which
// need the goal's snapshot the records do not hold whole. Frozen, it adds
// nothing.
func (b *Builder) Add(c Card) {
	if !b.frozen {
		b.push(c)
	}
}

// messages turns a history change into message cards: pushed messages
// become cards, grown ones update theirs, removed ones lose theirs.
func (b *Builder) messages(time int64, ch history.Change) {
	for i := range ch.Pushed {
		m := ch.Pushed[i]
		b.push(Card{Type: CardMessage, Time: time, Message: &m})
	}
	for i := range ch.Updated {
		m := ch.Updated[i]
		if j := b.find(m.Seq); j >= 0 {
			b.cards[j].Message = &m
		}
	}
	for _, m := range ch.Removed {
		if j := b.find(m.Seq); j >= 0 {
			b.cards = slices.Delete(b.cards, j, j+1)
		}
	}
}

func (b *Builder) find(seq uint64) int {
	for j := len(b.cards) - 1; j >= 0; j-- {
		if c := b.cards[j]; c.Type == CardMessage && c.Message.Seq == seq {
			return j
		}
	}
	return -1
}

func (b *Builder) push(c Card) { b.cards = append(b.cards, c) }

// patchCompaction updates the last card when it is a compaction card.
func (b *Builder) patchCompaction(patch func(*Card)) {
	if n := len(b.cards); n > 0 && b.cards[n-1].Type == CardCompaction {
		patch(&b.cards[n-1])
	}
}

// boundary ends a segment: with a start, either the window is complete
// (freeze and stop) or the segment's cards are dropped.
func (b *Builder) boundary() bool {
	if b.rng.Start == nil {
		return false
	}
	next := b.segmentStart + len(b.cards)
	if next > *b.rng.Start {
		b.frozen = true
		return true
	}
	b.segmentStart, b.cards = next, nil
	return false
}

// Done reports that the range is complete: later records add nothing.
func (b *Builder) Done() bool { return b.frozen }

// Cards returns the cards of the range (spec 02 §6.12 BuildResult).
func (b *Builder) Cards() []Card {
	cards := b.cards
	switch {
	case b.rng.Start == nil && b.rng.Count == nil:
		return slices.Clone(cards)
	case b.rng.Start == nil:
		n := max(0, *b.rng.Count)
		return slices.Clone(cards[max(0, len(cards)-n):])
	}
	off := min(len(cards), max(0, *b.rng.Start-b.segmentStart))
	end := len(cards)
	if b.rng.Count != nil {
		end = min(end, off+max(0, *b.rng.Count))
	}
	return slices.Clone(cards[off:end])
}

func fields(rec records.Record) json.RawMessage {
	return append(json.RawMessage(nil), rec.Fields()...)
}
