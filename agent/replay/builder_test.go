package replay_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kimigo/kimigo/agent/history"
	"github.com/kimigo/kimigo/agent/records"
	"github.com/kimigo/kimigo/agent/replay"
	"github.com/kimigo/kimigo/llm"
)

func rec(t *testing.T, typ records.Type, fields any) records.Record {
	t.Helper()
	r, err := records.New(typ, fields)
	if err != nil {
		t.Fatal(err)
	}
	r.Time = 42
	return r
}

func pushed(seq uint64, text string) history.Change {
	return history.Change{Pushed: []history.Message{{Message: llm.UserMessage(text), Seq: seq}}}
}

func TestBuilderFollowsHistoryChanges(t *testing.T) {
	b := replay.NewBuilder(replay.Range{})
	appendMsg := rec(t, records.Type(history.TypeAppendMessage), map[string]any{})
	b.Observe(appendMsg, pushed(1, "one"))
	b.Observe(appendMsg, pushed(2, "two"))
	grown := history.Change{Updated: []history.Message{{Message: llm.UserMessage("two, grown"), Seq: 2}}}
	b.Observe(rec(t, records.Type(history.TypeAppendLoopEvent), map[string]any{}), grown)
	b.Observe(rec(t, "plan_mode.enter", map[string]any{"id": "p"}), history.Change{})
	b.Observe(rec(t, records.Type(history.TypeUndo), map[string]any{"count": 1}),
		history.Change{Removed: []history.Message{{Seq: 1}}})
	if d := cmp.Diff([]string{"two, grown", "plan_updated"}, texts(b.Cards())); d != "" {
		t.Errorf("cards (-want +got):\n%s", d)
	}
	if c := b.Cards()[0]; c.Time != 42 {
		t.Errorf("card time = %d, want the record's", c.Time)
	}
	if !b.Cards()[1].Enabled {
		t.Error("plan_mode.enter made a disabled plan card")
	}
}

func TestBuilderCompactionCardIsPatched(t *testing.T) {
	b := replay.NewBuilder(replay.Range{})
	b.Observe(rec(t, "full_compaction.begin", map[string]any{"source": "manual"}), history.Change{})
	b.Observe(rec(t, "full_compaction.cancel", nil), history.Change{})
	raw, err := b.Cards()[0].MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"type":"compaction","time":42,"result":"cancelled"}`; string(raw) != want {
		t.Errorf("card = %s, want %s", raw, want)
	}
}
