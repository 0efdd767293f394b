package agent_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/kimigo/kimigo/agent"
	"github.com/kimigo/kimigo/agent/records"
	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/llm/scripted"
)

// models is a resolver over a fixed table of bindings: what the session's
// resolver does with config.toml, without the file.
type models map[string]agent.ModelBinding

func (m models) resolve(r agent.ModelRequest) (agent.ModelBinding, error) {
	b, ok := m[r.Alias]
	if !ok {
		return agent.ModelBinding{}, fmt.Errorf("Model %q is not configured", r.Alias)
	}
	if r.ThinkingEffort != "" {
		b.ThinkingEffort = r.ThinkingEffort
	}
	return b, nil
}

// twoModels are model a (output 1,000 of a 100,000 window) and model b
// (output 5,000 of 200,000), each answering from its own script, plus
// tiny, whose window holds almost nothing.
func twoModels(replies ...string) models {
	script := func(name string) *scripted.Provider {
		var rs []scripted.Response
		for _, r := range replies {
			rs = append(rs, scripted.Text(name+": "+r))
		}
		return scripted.New(scripted.Options{Model: "model-" + name, Responses: rs})
	}
	return models{
		"a": {Alias: "a", Provider: script("a"), Capability: llm.Capability{MaxContextTokens: 100_000},
			Budget: llm.BudgetInputs{MaxOutputSize: 1000}},
		"b": {Alias: "b", Provider: script("b"), Capability: llm.Capability{MaxContextTokens: 200_000},
			Budget: llm.BudgetInputs{MaxOutputSize: 5000}},
		"tiny": {Alias: "tiny", Provider: script("tiny"), Capability: llm.Capability{MaxContextTokens: 5}},
	}
}

func promptAndWait(t *testing.T, a *agent.Agent, text string) event.TurnEnded {
	t.Helper()
	if _, err := a.Prompt(t.Context(), []llm.ContentPart{llm.TextPart(text)}, nil); err != nil {
		t.Fatal(err)
	}
	res, err := a.WaitForCurrentTurn(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return res.Event
}

// requestCaps are the model and completion cap of every llm.request
// record, in order.
func requestCaps(t *testing.T, p *records.MemoryPersistence) []string {
	t.Helper()
	var out []string
	for _, r := range p.Records() {
		if r.Type != records.TypeLLMRequest {
			continue
		}
		var rq struct {
			Kind      string `json:"kind"`
			Model     string `json:"model"`
			MaxTokens int    `json:"maxTokens"`
		}
		if err := records.Decode(r, &rq); err != nil {
			t.Fatal(err)
		}
		out = append(out, fmt.Sprintf("%s %s %d", rq.Kind, rq.Model, rq.MaxTokens))
	}
	return out
}

// The model is agent state: SetModel rebinds the provider with its own
// completion cap, window and compaction, records the switch, and a
// resumed agent binds exactly that model again, or the one a run asks
// for, recorded too.
func TestSetModelRebindsTheModelAndResumeRestoresIt(t *testing.T) {
	m := twoModels("one", "two", "three", "four")
	store := records.NewMemory(records.MemoryOptions{})
	newAgent := func() *agent.Agent {
		store = reopen(t, store) // the closed agent closed it
		return agent.New(agent.Options{Model: m["a"], Models: m.resolve, Persistence: store})
	}
	a := newAgent()
	promptAndWait(t, a, "first")
	if err := a.SetModel(t.Context(), "b"); err != nil {
		t.Fatal(err)
	}
	if st := a.Status(); st.Model != "model-b" || st.MaxContextTokens != 200_000 {
		t.Errorf("status after the switch = %+v", st)
	}
	promptAndWait(t, a, "second")
	if err := a.Compact(t.Context(), ""); err != nil {
		t.Fatal(err)
	}
	if err := a.Close(t.Context()); err != nil {
		t.Fatal(err)
	}
	want := []string{"loop model-a 1000", "loop model-b 5000", "compaction model-b 5000"}
	if got := requestCaps(t, store); !equal(got, want) {
		t.Errorf("requests = %q, want %q", got, want)
	}

	// Resumed as it was: model b with its cap, built with a as the
	// stand-in the session would use before it knows.
	b := newAgent()
	if _, err := b.Resume(t.Context(), agent.ResumeOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := b.Model().Alias; got != "b" {
		t.Errorf("resumed model = %q, want b", got)
	}
	if req, err := b.NextRequest(t.Context()); err != nil || req.Model != "model-b" || req.MaxCompletionTokens != 5000 {
		t.Errorf("next request after resume = %s cap %d, %v; want model-b cap 5000", req.Model, req.MaxCompletionTokens, err)
	}
	updates := len(recordsOfType(store, agent.TypeConfigUpdate))
	b.Close(t.Context())

	// Resumed with a model for this run: the switch is a record.
	c := newAgent()
	if _, err := c.Resume(t.Context(), agent.ResumeOptions{Model: "a"}); err != nil {
		t.Fatal(err)
	}
	if req, err := c.NextRequest(t.Context()); err != nil || req.Model != "model-a" || req.MaxCompletionTokens != 1000 {
		t.Errorf("next request with the override = %s cap %d, %v; want model-a cap 1000", req.Model, req.MaxCompletionTokens, err)
	}
	if n := len(recordsOfType(store, agent.TypeConfigUpdate)); n != updates+1 || c.Config().ModelAlias != "a" {
		t.Errorf("the override wrote %d config updates (want 1), alias %q", n-updates, c.Config().ModelAlias)
	}
	c.Close(t.Context())
}

// Bad input: an unknown alias, or a model too small for the
// conversation, is an error naming the alias, and nothing changes.
func TestSetModelRefusesAndChangesNothing(t *testing.T) {
	m := twoModels("one")
	store := records.NewMemory(records.MemoryOptions{})
	a := agent.New(agent.Options{Model: m["a"], Models: m.resolve, Persistence: store})
	defer a.Close(t.Context())
	promptAndWait(t, a, "a conversation longer than five tokens")
	before := len(store.Records())
	for _, alias := range []string{"nope", "tiny"} {
		err := a.SetModel(t.Context(), alias)
		if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("%q", alias)) {
			t.Errorf("SetModel(%q) = %v; want an error naming it", alias, err)
		}
		if got := a.Model().Alias; got != "a" || a.Config().ModelAlias != "a" || a.Status().Model != "model-a" {
			t.Errorf("after SetModel(%q): model %q, config %q", alias, got, a.Config().ModelAlias)
		}
	}
	if err := a.SetModel(t.Context(), "tiny"); err == nil || !strings.Contains(err.Error(), "window") {
		t.Errorf("SetModel(tiny) = %v; want it to say the window is too small", err)
	}
	if n := len(store.Records()); n != before {
		t.Errorf("the refused switches wrote %d records", n-before)
	}
	fixed := agent.New(agent.Options{Model: m["a"]})
	defer fixed.Close(t.Context())
	if err := fixed.SetModel(t.Context(), "b"); !errors.Is(err, agent.ErrModelFixed) {
		t.Errorf("SetModel without a resolver = %v", err)
	}
}

// A resumed session whose saved model is gone continues on what the
// resolver picks, says so, and records it.
func TestResumeFallsBackWhenTheSavedModelIsGone(t *testing.T) {
	m := twoModels("one")
	store := records.NewMemory(records.MemoryOptions{})
	a := agent.New(agent.Options{Model: m["b"], Models: m.resolve, Persistence: store})
	promptAndWait(t, a, "hi")
	a.Close(t.Context())

	fallback := func(r agent.ModelRequest) (agent.ModelBinding, error) {
		if r.Alias == "b" && r.Saved {
			return m.resolve(agent.ModelRequest{Alias: "a"}) // b was removed from the configuration
		}
		return m.resolve(r)
	}
	bus := event.NewBus(event.BusOptions{})
	sub := bus.Subscribe()
	r := agent.New(agent.Options{Model: m["a"], Models: fallback, Persistence: reopen(t, store), Events: bus})
	defer r.Close(t.Context())
	if _, err := r.Resume(t.Context(), agent.ResumeOptions{}); err != nil {
		t.Fatal(err)
	}
	if r.Model().Alias != "a" || r.Config().ModelAlias != "a" {
		t.Errorf("model %q, recorded %q; want a", r.Model().Alias, r.Config().ModelAlias)
	}
	ev, err := sub.Next(t.Context())
	if n, ok := ev.(event.Notice); err != nil || !ok || !strings.Contains(n.Text, `"b"`) {
		t.Errorf("first event after the resume = %#v, %v; want a notice naming b", ev, err)
	}
}

func recordsOfType(p *records.MemoryPersistence, typ records.Type) []records.Record {
	var out []records.Record
	for _, r := range p.Records() {
		if r.Type == typ {
			out = append(out, r)
		}
	}
	return out
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// reopen is a new in-memory log holding p's records, as a second process
// reads the file the first one wrote.
func reopen(t *testing.T, p *records.MemoryPersistence) *records.MemoryPersistence {
	t.Helper()
	n := records.NewMemory(records.MemoryOptions{})
	if err := n.Rewrite(p.Records()); err != nil {
		t.Fatal(err)
	}
	return n
}

// The thinking effort is agent state like the model: SetThinkingEffort
// rebuilds the provider of the same alias with the effort from the next
// request on, records it, and a resumed agent binds the same effort.
func TestSetThinkingEffortRebindsAndResumeRestoresIt(t *testing.T) {
	m := twoModels("one", "two", "three")
	thinking := func(r agent.ModelRequest) (agent.ModelBinding, error) {
		b, err := m.resolve(r)
		if err == nil && r.ThinkingEffort != "" {
			b.Provider = b.Provider.WithThinking(r.ThinkingEffort)
		}
		return b, err
	}
	store := records.NewMemory(records.MemoryOptions{})
	a := agent.New(agent.Options{Model: m["a"], Models: thinking, Persistence: store})
	promptAndWait(t, a, "first")
	if err := a.SetThinkingEffort(t.Context(), "high"); err != nil {
		t.Fatal(err)
	}
	if a.Model().Alias != "a" || a.Model().ThinkingEffort != "high" || a.Config().ThinkingEffort != "high" {
		t.Errorf("after the switch: alias %q, effort %q, recorded %q", a.Model().Alias, a.Model().ThinkingEffort, a.Config().ThinkingEffort)
	}
	promptAndWait(t, a, "second")
	a.Close(t.Context())
	var efforts []string
	for _, r := range recordsOfType(store, records.TypeLLMRequest) {
		var rq struct {
			Model          string `json:"model"`
			ThinkingEffort string `json:"thinkingEffort"`
		}
		if err := records.Decode(r, &rq); err != nil {
			t.Fatal(err)
		}
		efforts = append(efforts, rq.Model+" "+rq.ThinkingEffort)
	}
	if want := []string{"model-a ", "model-a high"}; !equal(efforts, want) {
		t.Errorf("requests = %q, want %q", efforts, want)
	}

	b := agent.New(agent.Options{Model: m["a"], Models: thinking, Persistence: reopen(t, store)})
	defer b.Close(t.Context())
	if _, err := b.Resume(t.Context(), agent.ResumeOptions{}); err != nil {
		t.Fatal(err)
	}
	if req, err := b.NextRequest(t.Context()); err != nil || req.Model != "model-a" || b.Model().Provider.ThinkingEffort() != "high" {
		t.Errorf("after resume: %s effort %q, %v; want model-a high", req.Model, b.Model().Provider.ThinkingEffort(), err)
	}

	fixed := agent.New(agent.Options{Model: m["a"]})
	defer fixed.Close(t.Context())
	if err := fixed.SetThinkingEffort(t.Context(), "off"); !errors.Is(err, agent.ErrModelFixed) {
		t.Errorf("SetThinkingEffort without a resolver = %v", err)
	}
}
