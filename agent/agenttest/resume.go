package agenttest

import (
	"context"
	"errors"
	"sync"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/kimigo/kimigo/agent/permission"
	"github.com/kimigo/kimigo/agent/records"
	"github.com/kimigo/kimigo/agent/replay"
	"github.com/kimigo/kimigo/agent/turn"
	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/loop"
	"github.com/kimigo/kimigo/osenv/osenvtest"
)

// ExpectResumeMatches proves that the records are the whole truth (spec 02
// §8.8): a fresh agent resumes from a copy of the log with an OS where
// every side effect fails, a model that fails the test when called, no
// system prompt of its own, and hooks, a gate, an approver and a rule
// writer that fail when used. The resume must emit no event and append no
// record; the fresh agent must reach the same state (history, token count,
// configuration, tool store and table, usage, turn counter, and the
// permission Data — mode and effective rules — and session approvals) and
// build a byte-identical next request. The agent under test must be idle.
//
// It resumes twice: with the replay stream (the UI's resume, whose
// Resumed it returns) and without it (print mode's, which hands the tool
// outputs a later compaction drops over empty, see agent.ResumeOptions);
// both must match.
func (h *Harness) ExpectResumeMatches() *Resumed {
	h.t.Helper()
	if h.host.HasActiveTurn() {
		h.t.Fatal("ExpectResumeMatches: a turn is still running")
	}
	r := h.Resume(h.store.Records())
	h.expectMatchesLive("resumed", r)
	h.expectMatchesLive("resumed without cards", h.ResumeWithoutCards(h.store.Records()))
	return r
}

// expectMatchesLive compares r, named what in failures, with the agent
// under test.
func (h *Harness) expectMatchesLive(what string, r *Resumed) {
	h.t.Helper()
	ctx := context.WithoutCancel(h.t.Context())
	if n := len(r.Store.Records()); n != r.replayed {
		h.t.Errorf("%s: resume appended %d records:\n%v", what, n-r.replayed, r.Store.Records()[r.replayed:])
	}
	if d := cmp.Diff(h.host.State(ctx), r.Agent.State(ctx), stateOpts...); d != "" {
		h.t.Errorf("%s state differs (-live +%s):\n%s", what, what, d)
	}
	live, lerr := h.host.NextRequest(ctx)
	resumed, rerr := r.Agent.NextRequest(ctx)
	switch {
	case (lerr == nil) != (rerr == nil):
		h.t.Errorf("%s: next request: live error %v, resumed error %v", what, lerr, rerr)
	case lerr == nil && string(live) != string(resumed):
		h.t.Errorf("%s: next request differs:\nlive:    %s\nresumed: %s", what, live, resumed)
	}
}

// ExpectResumesAgree proves, for any log recs (no live agent needed), that
// the resume without the replay stream reaches exactly the state of the
// one with it: state, next request, and the records the resume appended.
// It returns the resume with cards.
func (h *Harness) ExpectResumesAgree(recs []records.Record) *Resumed {
	h.t.Helper()
	ctx := context.WithoutCancel(h.t.Context())
	full, bare := h.Resume(recs), h.ResumeWithoutCards(recs)
	if d := cmp.Diff(full.Agent.State(ctx), bare.Agent.State(ctx), stateOpts...); d != "" {
		h.t.Errorf("state differs (-with cards +without):\n%s", d)
	}
	fr, ferr := full.Agent.NextRequest(ctx)
	br, berr := bare.Agent.NextRequest(ctx)
	switch {
	case (ferr == nil) != (berr == nil):
		h.t.Errorf("next request: error %v with cards, %v without", ferr, berr)
	case ferr == nil && string(fr) != string(br):
		h.t.Errorf("next request differs:\nwith cards: %s\nwithout:    %s", fr, br)
	}
	appended := func(r *Resumed) []string {
		var out []string
		for _, rec := range r.Store.Records()[r.replayed:] {
			out = append(out, string(rec.Type)+" "+string(rec.Fields()))
		}
		return out
	}
	if d := cmp.Diff(appended(full), appended(bare)); d != "" {
		h.t.Errorf("appended records differ (-with cards +without):\n%s", d)
	}
	return full
}

// stateOpts compare states: empty and nil collections are equal.
var stateOpts = []cmp.Option{cmpopts.EquateEmpty()}

// Resumed is an agent resumed from a copy of records.
type Resumed struct {
	Agent Host
	// Store holds the copy of the records the agent resumed from, and
	// what it appended afterwards.
	Store *records.MemoryPersistence
	// Env is the denying OS environment it ran on.
	Env *osenvtest.DenyEnv
	// Cards are the replay stream the resume produced.
	Cards   []replay.Card
	Warning string
	// Events are the events it published.
	Events   []event.Event
	replayed int
}

// Resume builds a fresh agent on recs the way ExpectResumeMatches does
// and resumes it with the replay stream, failing the test if the resume
// fails, emits an event or touches the OS. The agent is closed when the
// test ends.
func (h *Harness) Resume(recs []records.Record) *Resumed {
	h.t.Helper()
	return h.resume(recs, true)
}

// ResumeWithoutCards is Resume without the replay stream, the way print
// mode resumes; its Cards are nil.
func (h *Harness) ResumeWithoutCards(recs []records.Record) *Resumed {
	h.t.Helper()
	return h.resume(recs, false)
}

func (h *Harness) resume(recs []records.Record, withCards bool) *Resumed {
	h.t.Helper()
	ctx := context.WithoutCancel(h.t.Context())
	r := &Resumed{Store: records.NewMemory(records.MemoryOptions{Records: recs}), Env: osenvtest.DenyOver(h.env),
		replayed: len(recs)}
	s := h.setup
	s.SystemPrompt = "" // restored from the records
	s.Provider = nil
	if p := h.liveProvider(); p != nil {
		s.Provider = failingProvider{t: h.t, inner: p}
	}
	s.Persistence = r.Store
	s.Env = r.Env
	s.Gate = failingGate{h}
	s.Hooks = failingHooks{h}
	if s.Permission != nil {
		s.Permission = h.failingPermission(*s.Permission, r.Env)
	}
	var events eventList
	s.OnEvent = events.add
	r.Agent = h.factory(s)
	h.t.Cleanup(func() { _ = r.Agent.Close(ctx) }) // the copy is in memory
	warning, cards, err := r.Agent.Resume(ctx, withCards)
	if err != nil {
		h.t.Fatalf("resume: %v", err)
	}
	r.Warning, r.Cards, r.Events = warning, cards, events.list()
	if len(r.Events) > 0 {
		h.t.Errorf("resume published %d events, first %s", len(r.Events), r.Events[0].EventType())
	}
	if a := r.Env.Attempts(); len(a) > 0 {
		h.t.Errorf("resume touched the OS: %v", a)
	}
	return r
}

// liveProvider is the provider of the agent under test, nil without one.
func (h *Harness) liveProvider() llm.Provider {
	if !h.noModel {
		return h.model.Provider()
	}
	return h.setup.Provider
}

type eventList struct {
	mu     sync.Mutex
	events []event.Event // guarded by mu
}

func (l *eventList) add(ev event.Event) {
	l.mu.Lock()
	l.events = append(l.events, ev)
	l.mu.Unlock()
}

func (l *eventList) list() []event.Event {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]event.Event(nil), l.events...)
}

// failingPermission is o with every collaborator that acts replaced by one
// that fails the test when used: resume asks nothing, runs no hook and
// writes no rule. The manager's own rules and mode options are kept, so
// the resumed agent must rebuild the rest from the records.
func (h *Harness) failingPermission(o permission.Options, env *osenvtest.DenyEnv) *permission.Options {
	o.Approver = failingApprover{h}
	if o.Hooks != nil {
		o.Hooks = failingPermissionHooks{h}
	}
	if o.RuleWriter != nil {
		o.RuleWriter = failingRuleWriter{h}
	}
	if o.Env != nil {
		o.Env = env
	}
	return &o
}

type failingApprover struct{ h *Harness }

func (a failingApprover) RequestApproval(context.Context, permission.ApprovalRequest) (permission.ApprovalResponse, error) {
	a.h.t.Errorf("the resumed agent asked for an approval")
	return permission.ApprovalResponse{}, errors.New("resume must not ask")
}

type failingPermissionHooks struct{ h *Harness }

func (f failingPermissionHooks) Block(context.Context, permission.HookEvent, string, map[string]any) ([]permission.HookResult, error) {
	f.h.t.Errorf("the resumed agent ran a permission hook")
	return nil, nil
}

func (f failingPermissionHooks) Fire(permission.HookEvent, string, map[string]any) {
	f.h.t.Errorf("the resumed agent fired a permission hook")
}

type failingRuleWriter struct{ h *Harness }

func (w failingRuleWriter) AddUserAllowRule(string) error {
	w.h.t.Errorf("the resumed agent wrote a permission rule")
	return errors.New("resume must not write rules")
}

// failingGate and failingHooks fail the test when a resumed agent uses
// them: resume runs no tool and no hook.
type failingGate struct{ h *Harness }

func (g failingGate) Authorize(context.Context, loop.ToolCtx) (loop.Authorization, error) {
	g.h.t.Errorf("the resumed agent asked for a tool approval")
	return loop.Authorization{}, errors.New("resume must not run tools")
}

type failingHooks struct{ h *Harness }

func (f failingHooks) Block(context.Context, turn.HookEvent, string, map[string]any) ([]turn.HookResult, error) {
	f.h.t.Errorf("the resumed agent ran a hook")
	return nil, nil
}

func (f failingHooks) Fire(turn.HookEvent, string, map[string]any) {
	f.h.t.Errorf("the resumed agent fired a hook")
}
