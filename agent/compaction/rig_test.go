package compaction

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kimigo/kimigo/agent/history"
	"github.com/kimigo/kimigo/agent/history/historytest"
	"github.com/kimigo/kimigo/agent/records"
	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/llm/scripted"
	"github.com/kimigo/kimigo/loop"
)

// rig is a small agent around a FullCompaction: a real history.Memory
// behind a state lock, an in-memory record log applied the way the agent
// applies it, a scripted model, and recorders for events, usage, hooks and
// the turn notifications. It implements every collaborator interface.
type rig struct {
	t testing.TB
	c *FullCompaction

	mu      sync.Mutex
	mem     *history.Memory
	recs    []records.Record // guarded by mu
	events  []event.Event    // guarded by mu
	fails   []error          // guarded by mu: what Failed reported
	types   []event.Type     // guarded by mu: the types published, "error" for a failure
	calls   []call           // guarded by mu
	usage   []llm.TokenUsage // guarded by mu
	hookLog []string         // guarded by mu
	model   Model            // guarded by mu
	hold    chan struct{}    // guarded by mu; requests wait for it when set
	respond func(req llm.Request) scripted.Response
	// onCommit runs before a plain commit, with no lock held; afterBuild
	// runs inside CommitCompaction once build succeeded, under the state
	// lock.
	onCommit   func(typ records.Type)
	afterBuild func()
	todos      []Todo
	injected   []history.Message
	active     atomic.Bool
	turnID     atomic.Int64
	finished   atomic.Int32
	refresh    atomic.Int32
}

// call is one summary request as the model received it.
type call struct {
	at        time.Time
	maxTokens int
	req       llm.Request
	fields    loop.RequestLogFields
}

// newRigWith builds a rig whose model has m's budget and strategy.
func newRigWith(t testing.TB, m Model, replies ...scripted.Response) *rig {
	t.Helper()
	r := newRig(t, Options{}, replies...)
	r.mu.Lock()
	r.model.Budget, r.model.Strategy = m.Budget, m.Strategy
	r.mu.Unlock()
	return r
}

// newRig builds a rig whose model answers with replies in order.
func newRig(t testing.TB, o Options, replies ...scripted.Response) *rig {
	t.Helper()
	r := &rig{t: t, mem: history.New(history.Options{})}
	r.model = Model{Provider: scripted.New(scripted.Options{Model: "test-model", Responses: replies}),
		SystemPrompt: "You are a test agent."}
	o.History, o.Commit, o.Events, o.Usage, o.Hooks = r, r, r, r, r
	if o.Turns == nil {
		o.Turns = r
	}
	o.Model = r.currentModel
	o.Generate = r.generate
	if o.Tools == nil {
		o.Tools = func(context.Context) []llm.Tool {
			return []llm.Tool{{Name: "Read", Description: "Read a file.", Parameters: json.RawMessage(`{"type":"object"}`)}}
		}
	}
	if o.Todos == nil {
		o.Todos = func() []Todo { return r.todos }
	}
	if o.Reinject == nil {
		o.Reinject = r.reinject
	}
	if o.RefreshSystemPrompt == nil {
		o.RefreshSystemPrompt = func(context.Context) error { r.refresh.Add(1); return nil }
	}
	if o.Rand == nil {
		o.Rand = func() float64 { return 0.5 }
	}
	r.c = New(o)
	t.Cleanup(func() {
		if err := r.c.Close(context.Background()); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return r
}

// History, TokenCountWithPending and Messages implement History.
func (r *rig) History() []history.Message {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.mem.History()
}

func (r *rig) TokenCountWithPending() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.mem.TokenCountWithPending()
}

func (r *rig) Messages() []llm.Message {
	return history.Project(r.History(), history.NormalOptions())
}

// Commit and CommitCompaction implement Committer the way the agent
// does: append the record, then apply it under the state lock.
func (r *rig) Commit(_ context.Context, typ records.Type, payload any) error {
	if r.onCommit != nil {
		r.onCommit(typ)
	}
	rec, err := records.New(typ, payload)
	if err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.appendLocked(rec)
}

func (r *rig) CommitCompaction(_ context.Context, build func(m *history.Memory) (history.ApplyCompactionRecord, error)) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	rec, err := build(r.mem)
	if err != nil {
		return err
	}
	if r.afterBuild != nil {
		r.afterBuild()
	}
	envelope, err := records.New(records.Type(history.TypeApplyCompaction), rec)
	if err != nil {
		return err
	}
	return r.appendLocked(envelope)
}

func (r *rig) appendLocked(rec records.Record) error {
	r.recs = append(r.recs, rec)
	return applyRecord(r.mem, rec)
}

// applyRecord is the agent's apply for the records this package sees.
func applyRecord(mem *history.Memory, rec records.Record) error {
	if slices.Contains(history.RecordTypes(), history.RecordType(rec.Type)) {
		p, err := history.DecodeRecord(history.RecordType(rec.Type), rec.Fields())
		if err != nil {
			return err
		}
		_, err = mem.Apply(p)
		return err
	}
	return nil // compaction and usage records restore nothing in history
}

// HasActiveTurn, CurrentID and OnCompactionFinished implement Turns.
func (r *rig) HasActiveTurn() bool { return r.active.Load() }
func (r *rig) CurrentID() int      { return int(r.turnID.Load()) }
func (r *rig) OnCompactionFinished(context.Context) {
	r.finished.Add(1)
}

// Publish implements EventSink.
func (r *rig) Publish(ev event.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, ev)
	r.types = append(r.types, ev.EventType())
}

// Failed implements EventSink.
func (r *rig) Failed(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.fails = append(r.fails, err)
	r.types = append(r.types, event.TypeError)
}

// lastFailure is the last failure reported to Failed.
func (r *rig) lastFailure() (error, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.fails) == 0 {
		return nil, false
	}
	return r.fails[len(r.fails)-1], true
}

// RecordUsage implements UsageRecorder with a usage.record.
func (r *rig) RecordUsage(ctx context.Context, model string, u llm.TokenUsage) error {
	r.mu.Lock()
	r.usage = append(r.usage, u)
	r.mu.Unlock()
	return r.Commit(ctx, "usage.record", map[string]any{"model": model, "usage": u, "usageScope": "session"})
}

// PreCompact and PostCompact implement Hooks.
func (r *rig) PreCompact(_ context.Context, trigger Source, tokens int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.hookLog = append(r.hookLog, fmt.Sprintf("PreCompact %s %d", trigger, tokens))
}

func (r *rig) PostCompact(trigger Source, tokens int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.hookLog = append(r.hookLog, fmt.Sprintf("PostCompact %s %d", trigger, tokens))
}

func (r *rig) reinject(ctx context.Context) error {
	for _, m := range r.injected {
		if err := r.Commit(ctx, records.Type(history.TypeAppendMessage), history.AppendMessageRecord{Message: m}); err != nil {
			return err
		}
	}
	return nil
}

func (r *rig) currentModel() (Model, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.model, nil
}

// setCapability changes the model's capability.
func (r *rig) setCapability(c llm.Capability) {
	r.mu.Lock()
	r.model.Capability = c
	r.mu.Unlock()
}

// generate records the request and answers it from the script, after the
// hold is released when one is set.
func (r *rig) generate(ctx context.Context, p llm.Provider, req llm.Request, cb llm.Callbacks,
	f loop.RequestLogFields) (*llm.Result, error) {
	// Every summary request is a conversation strict services accept: it
	// starts with a user message, answers every call right after it and
	// keeps the Anthropic turn rules (ERRATA 28).
	if err := historytest.CheckWire(req.Messages); err != nil {
		r.t.Errorf("summary request %d is not a valid conversation: %v\n%s", len(r.requests())+1, err, texts(req.Messages))
	}
	r.mu.Lock()
	r.calls = append(r.calls, call{at: time.Now(), maxTokens: p.MaxCompletionTokens(), req: req, fields: f})
	hold, respond := r.hold, r.respond
	r.mu.Unlock()
	if hold != nil {
		select {
		case <-hold:
		case <-ctx.Done():
			return nil, llm.Aborted(ctx)
		}
	}
	if respond != nil {
		p = scripted.New(scripted.Options{Model: p.ModelName(), Responses: []scripted.Response{respond(req)}})
	}
	return llm.Generate(ctx, p, req, cb)
}

// holdRequests makes the next requests wait until the returned function
// is called.
func (r *rig) holdRequests() (release func()) {
	ch := make(chan struct{})
	r.mu.Lock()
	r.hold = ch
	r.mu.Unlock()
	return sync.OnceFunc(func() { close(ch) })
}

// append commits one context.append_message.
func (r *rig) append(m history.Message) {
	r.t.Helper()
	if err := r.Commit(context.Background(), records.Type(history.TypeAppendMessage), history.AppendMessageRecord{Message: m}); err != nil {
		r.t.Fatalf("append: %v", err)
	}
}

// setTokens commits a reported context size covering all of history.
func (r *rig) setTokens(n int) {
	r.t.Helper()
	if err := r.Commit(context.Background(), records.Type(history.TypeUpdateTokenCount), history.UpdateTokenCountRecord{TokenCount: n}); err != nil {
		r.t.Fatalf("token count: %v", err)
	}
}

func (r *rig) requests() []call {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.calls)
}

// eventTypes lists the events so far.
func (r *rig) eventTypes() []event.Type {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.types)
}

// recordTypes lists the records so far, history appends left out.
func (r *rig) recordTypes() []records.Type {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []records.Type
	for _, rec := range r.recs {
		if rec.Type != records.Type(history.TypeAppendMessage) && rec.Type != records.Type(history.TypeUpdateTokenCount) {
			out = append(out, rec.Type)
		}
	}
	return out
}

// records returns the log so far.
func (r *rig) log() []records.Record {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.recs)
}

// lastEvent returns the last event of type T.
func lastEvent[T event.Event](r *rig) (T, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := len(r.events) - 1; i >= 0; i-- {
		if ev, ok := r.events[i].(T); ok {
			return ev, true
		}
	}
	var zero T
	return zero, false
}

// appliedRecord decodes the log's context.apply_compaction.
func (r *rig) appliedRecord() (history.ApplyCompactionRecord, bool) {
	r.t.Helper()
	for _, rec := range r.log() {
		if rec.Type == records.Type(history.TypeApplyCompaction) {
			var a history.ApplyCompactionRecord
			if err := records.Decode(rec, &a); err != nil {
				r.t.Fatalf("decode apply: %v", err)
			}
			return a, true
		}
	}
	return history.ApplyCompactionRecord{}, false
}

// resumed replays the log into a fresh memory, as Resume does.
func (r *rig) resumed() *history.Memory {
	r.t.Helper()
	mem := history.New(history.Options{})
	for _, rec := range r.log() {
		line, err := json.Marshal(rec)
		if err != nil {
			r.t.Fatal(err)
		}
		var back records.Record
		if err := json.Unmarshal(line, &back); err != nil {
			r.t.Fatal(err)
		}
		if err := applyRecord(mem, back); err != nil {
			r.t.Fatalf("replay %s: %v", back.Type, err)
		}
	}
	return mem
}

// Message builders in the notation of spec 02 §8: U user prompt, N
// background notification, A assistant (calling ids), T tool result.

func U(text string) history.Message {
	return history.Message{Message: llm.UserMessage(text), Origin: history.UserOrigin()}
}

func N(text string) history.Message {
	return history.Message{Message: llm.UserMessage(text), Origin: &history.Origin{Kind: history.OriginBackgroundTask,
		TaskID: "t1", Status: "completed", NotificationID: "task:t1:completed"}}
}

func A(text string, ids ...string) history.Message {
	var calls []llm.ToolCall
	for _, id := range ids {
		calls = append(calls, llm.ToolCall{ID: id, Name: "Read", Arguments: `{"path":"a.go"}`})
	}
	return history.Message{Message: llm.AssistantMessage(text, calls...)}
}

func T(id, text string) history.Message {
	return history.Message{Message: llm.ToolMessage(id, llm.TextPart(text))}
}

// text returns the message texts of msgs, joined per message.
func texts(msgs []llm.Message) []string {
	var out []string
	for _, m := range msgs {
		out = append(out, llm.ExtractText(m, "|"))
	}
	return out
}

// status is a provider error with a real status and body.
func status(code int, body string) scripted.Response {
	return scripted.Response{Err: llm.NormalizeStatus(llm.StatusError(code, nil, []byte(body)))}
}

// overflowBody is the real context-length 400 of an OpenAI-compatible
// service.
const overflowBody = `{"error":{"message":"This model's maximum context length is 1000 tokens. However, your messages resulted in 2000 tokens. Please reduce the length of the messages.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}`

func overflow() scripted.Response { return status(400, overflowBody) }

func tooLarge() scripted.Response {
	return status(413, `{"error":{"message":"Request exceeds the maximum size","type":"invalid_request_error"}}`)
}
