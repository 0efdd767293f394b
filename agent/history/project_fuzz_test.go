package history_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kimigo/kimigo/agent/history"
	ht "github.com/kimigo/kimigo/agent/history/historytest"
	"github.com/kimigo/kimigo/llm"
)

// FuzzProject builds possibly broken histories from the fuzz bytes and
// checks every guarantee of spec 02 §8.1 on them (checkViews).
func FuzzProject(f *testing.F) {
	for _, seed := range [][]byte{
		{ht.OpUser, ht.OpCalls2, ht.OpResult, ht.OpUser},                              // second result missing mid-history
		{ht.OpUser, ht.OpCalls1, ht.OpNotification, ht.OpResult},                      // displaced result
		{ht.OpUser, ht.OpCalls3, ht.OpResultsReversed},                                // parallel results out of order
		{ht.OpUser, ht.OpCalls1, ht.OpResult, ht.OpReuseCall, ht.OpResult, ht.OpUser}, // reused id
		{ht.OpUser, ht.OpEarlyResult, ht.OpCalls1},                                    // result before its call
		{ht.OpAssistantText, ht.OpOrphan, ht.OpUser, ht.OpCalls2},                     // leading non-user, open tail
		{ht.OpUser, ht.OpEmptyIDCall, ht.OpEmptyIDResult, ht.OpEmptyIDResult, ht.OpUser},
		{ht.OpUser, ht.OpUserMedia, ht.OpUserAudioVideo, ht.OpCalls1, ht.OpResultMedia, ht.OpMissingMedia},
		{ht.OpUser, ht.OpAssistantText, ht.OpPartial, ht.OpAssistantBlankThink, ht.OpAssistantSignedThink, ht.OpUser},
		{ht.OpUser, ht.OpRepeatInMessage, ht.OpResult, ht.OpDuplicateResult, ht.OpSchema, ht.OpUserWhitespace},
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, ops []byte) {
		if err := checkViews(ht.Build(ops)); err != nil {
			t.Fatalf("%v\nops=%v", err, ops)
		}
	})
}

// TestS1toS6GeneratedHistories runs generator G with fixed seeds through
// the same checks as the fuzzer: strict validity (S1), the provider-merge
// rules (S2), normal validity (S3), purity and determinism (S4), the
// media-degraded view (S5) and, for well-formed input, no anomaly (S6 is
// TestS6WellFormedUntouched).
func TestS1toS6GeneratedHistories(t *testing.T) {
	const runs = 4000
	for seed := range uint64(runs) {
		h := ht.Generate(seed)
		if err := checkViews(h); err != nil {
			t.Fatalf("seed %d: %v\nhistory:\n%s", seed, err, dump(h))
		}
	}
}

type projection struct {
	msgs  []llm.Message
	anoms []history.Anomaly
}

func project(h []history.Message, opts history.ProjectOptions) projection {
	var p projection
	opts.OnAnomaly = func(a history.Anomaly) { p.anoms = append(p.anoms, a) }
	p.msgs = history.Project(h, opts)
	return p
}

// checkViews checks every view of h.
func checkViews(h []history.Message) error {
	before := ht.Clone(h)
	strict := project(h, history.StrictOptions())
	if err := ht.CheckWire(strict.msgs); err != nil {
		return fmt.Errorf("strict view: %w\n%s", err, dumpLLM(strict.msgs))
	}
	// Scenario 2: what a model without dynamic tools (every Anthropic
	// model) gets is valid on the Anthropic wire.
	plain := project(history.StripDynamicToolContext(h), history.StrictOptions())
	if err := ht.CheckAnthropic(plain.msgs); err != nil {
		return fmt.Errorf("strict view without dynamic tools: %w\n%s", err, dumpLLM(plain.msgs))
	}
	normal := project(h, history.NormalOptions())
	if err := ht.CheckNormal(normal.msgs); err != nil {
		return fmt.Errorf("normal view: %w\n%s", err, dumpLLM(normal.msgs))
	}
	for _, a := range normal.anoms {
		if a.Kind == history.AnomalyResultSynthesized && a.Trailing {
			return fmt.Errorf("normal view closed the trailing exchange: %+v", a)
		}
	}
	if err := checkOpenTail(h, normal.msgs); err != nil {
		return err
	}
	for _, v := range []struct {
		name string
		opts history.ProjectOptions
		got  projection
	}{{"strict", history.StrictOptions(), strict}, {"normal", history.NormalOptions(), normal}} {
		again := project(h, v.opts)
		// Equal values, strings compared byte by byte: placeholders and
		// rendered texts are byte-identical across runs.
		if d := diff(v.got.msgs, again.msgs); d != "" {
			return fmt.Errorf("%s view is not deterministic:\n%s", v.name, d)
		}
		re := project(ht.Wrap(v.got.msgs), v.opts)
		if d := diff(v.got.msgs, re.msgs); d != "" {
			return fmt.Errorf("%s view is not idempotent:\n%s", v.name, d)
		}
		if len(re.anoms) > 0 {
			return fmt.Errorf("%s view of the %s view repaired again: %+v", v.name, v.name, re.anoms)
		}
	}
	if err := ht.CheckMediaDegraded(normal.msgs, history.DegradeOlderMedia(normal.msgs, history.RecentMediaKept)); err != nil {
		return fmt.Errorf("media-degraded view: %w", err)
	}
	stripped := history.NewMediaSnapshot(normal.msgs).Strip(normal.msgs)
	for i, m := range stripped {
		for _, p := range m.Content {
			if p.IsMedia() {
				return fmt.Errorf("media-stripped view keeps media in message %d", i)
			}
		}
	}
	_ = history.Project(h, history.ProjectOptions{}) // the fragment view must not mutate either
	if d := diff(before, h); d != "" {
		return fmt.Errorf("projection mutated its input:\n%s", d)
	}
	return nil
}

// checkOpenTail: when h ends with an assistant whose calls have no result,
// the normal view ends with that exchange still open.
func checkOpenTail(h []history.Message, normal []llm.Message) error {
	if len(h) == 0 {
		return nil
	}
	last := h[len(h)-1]
	if last.Role != llm.RoleAssistant || last.Partial || len(last.ToolCalls) == 0 {
		return nil
	}
	if len(normal) == 0 {
		return errors.New("normal view dropped the open tail call")
	}
	got := normal[len(normal)-1]
	if got.Role != llm.RoleAssistant || !cmp.Equal(got.ToolCalls, last.ToolCalls) {
		return fmt.Errorf("normal view does not end with the open tail call: %+v", got)
	}
	return nil
}

// diff is cmp.Diff behind a cheap reflect.DeepEqual, which agrees with it
// on these types; the property tests compare thousands of histories.
func diff(want, got any) string {
	if reflect.DeepEqual(want, got) {
		return ""
	}
	return cmp.Diff(want, got)
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

func dump(h []history.Message) string {
	var b bytes.Buffer
	for i, m := range h {
		fmt.Fprintf(&b, "%3d %s\n", i, mustJSON(m))
	}
	return b.String()
}

func dumpLLM(msgs []llm.Message) string {
	var b bytes.Buffer
	for i, m := range msgs {
		fmt.Fprintf(&b, "%3d %s\n", i, mustJSON(m))
	}
	return b.String()
}
