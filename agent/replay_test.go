package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kimigo/kimigo/agent"
	"github.com/kimigo/kimigo/agent/history"
	"github.com/kimigo/kimigo/agent/records"
	"github.com/kimigo/kimigo/agent/replay"
)

// Spec 02 §8.9 scenarios 61–64: the replay stream through BuildReplay. 65
// (LimitByTurns) is tested in agent/replay.

func TestReplayS61RangeAcrossMixedRecords(t *testing.T) {
	b := newLog(t).
		add(agent.TypeUsageRecord, agent.UsageRecord{Model: "m"}).
		add(agent.TypeConfigUpdate, map[string]any{"systemPrompt": "sys"}).
		add(agent.TypeUsageRecord, agent.UsageRecord{Model: "m"}).
		add("permission.set_mode", map[string]any{"mode": "yolo"}).
		user("hello")
	// An older protocol version would be rewritten by a normal resume.
	b.recs[0] = mustRecord(t, records.TypeMetadata, map[string]any{"protocol_version": "1.3", "created_at": 1})
	p := &countingStore{MemoryPersistence: records.NewMemory(records.MemoryOptions{Records: b.records()})}
	cards, err := agent.BuildReplay(t.Context(), p, replay.Range{Start: intp(1), Count: intp(2)})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"permission_updated:yolo", "message:user:hello"}, describeCards(cards)); d != "" {
		t.Errorf("cards (-want +got):\n%s", d)
	}
	if d := cmp.Diff(b.records(), p.Records()); d != "" {
		t.Errorf("the log changed (-before +after):\n%s", d)
	}
}

func TestReplayS62CountOnly(t *testing.T) {
	t.Run("last two cards", func(t *testing.T) {
		b := newLog(t).user("m1").user("m2").user("m3").add("permission.set_mode", map[string]any{"mode": "auto"})
		cards := buildReplay(t, b, replay.Range{Count: intp(2)})
		if d := cmp.Diff([]string{"message:user:m3", "permission_updated:auto"}, describeCards(cards)); d != "" {
			t.Errorf("cards (-want +got):\n%s", d)
		}
	})
	t.Run("last ten after a clear", func(t *testing.T) {
		b := newLog(t)
		for i := range 50 {
			b.user(fmt.Sprintf("before %d", i))
		}
		b.add(records.Type(history.TypeClear), history.ClearRecord{})
		for i := range 50 {
			b.user(fmt.Sprintf("after %d", i))
		}
		cards := buildReplay(t, b, replay.Range{Count: intp(10)})
		var want []string
		for i := 40; i < 50; i++ {
			want = append(want, fmt.Sprintf("message:user:after %d", i))
		}
		if d := cmp.Diff(want, describeCards(cards)); d != "" {
			t.Errorf("cards (-want +got):\n%s", d)
		}
	})
}

func TestReplayS63StartStopsAtSegmentBoundary(t *testing.T) {
	b := newLog(t).user("m1").user("m2").add(records.Type(history.TypeClear), history.ClearRecord{}).user("m3")
	p := &countingStore{MemoryPersistence: records.NewMemory(records.MemoryOptions{Records: b.records()})}
	cards, err := agent.BuildReplay(t.Context(), p, replay.Range{Start: intp(0), Count: intp(10)})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"message:user:m1", "message:user:m2"}, describeCards(cards)); d != "" {
		t.Errorf("start 0 (-want +got):\n%s", d)
	}
	if p.read != 4 { // metadata, m1, m2, clear
		t.Errorf("read %d records, want 4: reading stops at the clear", p.read)
	}
	cards = buildReplay(t, b, replay.Range{Start: intp(2), Count: intp(10)})
	if d := cmp.Diff([]string{"message:user:m3"}, describeCards(cards)); d != "" {
		t.Errorf("start 2 (-want +got):\n%s", d)
	}
}

func TestReplayS64CompactionCardCarriesResult(t *testing.T) {
	b := newLog(t).
		add("full_compaction.begin", map[string]any{"source": "manual", "instruction": "keep facts"}).
		add(records.Type(history.TypeApplyCompaction), history.ApplyCompactionRecord{Summary: "the summary"}).
		add("permission.set_mode", map[string]any{"mode": "yolo"})
	cards := buildReplay(t, b, replay.Range{Start: intp(0), Count: intp(1)})
	if len(cards) != 1 || cards[0].Type != replay.CardCompaction || cards[0].Instruction != "keep facts" {
		t.Fatalf("cards = %+v", cards)
	}
	res := cards[0].Result
	if res == nil || res.KeptUserMessageCount == nil || *res.KeptUserMessageCount != 0 ||
		res.ContextSummary == nil || *res.ContextSummary != "the summary" {
		t.Errorf("compaction result = %+v", res)
	}
	raw, err := json.Marshal(cards[0])
	if err != nil {
		t.Fatal(err)
	}
	if want := `"instruction":"keep facts","result":{"summary":"the summary"`; !strings.Contains(string(raw), want) {
		t.Errorf("card JSON %s lacks %s", raw, want)
	}
}

func buildReplay(t *testing.T, b *logBuilder, r replay.Range) []replay.Card {
	t.Helper()
	cards, err := agent.BuildReplay(t.Context(), records.NewMemory(records.MemoryOptions{Records: b.records()}), r)
	if err != nil {
		t.Fatal(err)
	}
	return cards
}

// describeCards renders cards as type:detail.
func describeCards(cards []replay.Card) []string {
	var out []string
	for _, c := range cards {
		switch c.Type {
		case replay.CardMessage:
			out = append(out, "message:"+summarize([]history.Message{*c.Message})[0])
		case replay.CardPermissionUpdated:
			out = append(out, "permission_updated:"+c.Mode)
		default:
			out = append(out, string(c.Type))
		}
	}
	return out
}

// countingStore counts the records a replay read.
type countingStore struct {
	*records.MemoryPersistence
	read int
}

func (s *countingStore) Read(ctx context.Context, yield func(records.Record) error) error {
	return s.MemoryPersistence.Read(ctx, func(r records.Record) error {
		s.read++
		return yield(r)
	})
}

func mustRecord(t *testing.T, typ records.Type, fields any) records.Record {
	t.Helper()
	r, err := records.New(typ, fields)
	if err != nil {
		t.Fatal(err)
	}
	return r
}
