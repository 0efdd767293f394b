package agent

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/kimigo/kimigo/agent/goal"
	"github.com/kimigo/kimigo/agent/history"
	"github.com/kimigo/kimigo/agent/records"
	"github.com/kimigo/kimigo/agent/replay"
	"github.com/kimigo/kimigo/agent/turn"
)

// ResumeResult is what Resume restored besides the state itself.
type ResumeResult struct {
	// Warning is set when the log was written by a newer protocol version
	// and replayed unmigrated.
	Warning string
	// Cards are the replay stream ResumeOptions.Cards asked for, for the
	// UI; nil when it asked for none.
	Cards []replay.Card
	// Records counts the records replayed.
	Records int
	// Unrestored names, once per type, the records of a type whose owner
	// kimigo does not have yet (plan, goal, swarm, …): kept in the log
	// untouched, not restored. Front ends show them as warnings.
	Unrestored []string
	// Refused counts the records that could not be restored and were set
	// aside (records.Refuse): a file log moves their lines to
	// wire.jsonl.quarantine and reports each through
	// FileOptions.OnQuarantine.
	Refused int
}

// ResumeOptions say what a resume builds besides the agent's state.
type ResumeOptions struct {
	// Cards asks for the UI replay stream (spec 02 §6.12). Without it no
	// card is built: a caller without a UI (print mode, a subagent) pays
	// nothing for the stream, and the replay hands over empty the tool
	// outputs that the last full compaction dropped (dropsToolResults),
	// so they are neither decoded nor their blobs read. The agent keeps no
	// card after Resume returns either way.
	Cards bool
	// CardTurns keeps the cards of the last *CardTurns user turns (spec
	// 02 §6.13, replay.LimitByTurns); nil keeps every card.
	CardTurns *int
	// Model, when set, is the model alias this run switches to (a -m given
	// with -r or -c); the switch is recorded. Empty binds the model the
	// records saved. Either goes through Options.Models; without it the
	// agent keeps Options.Model.
	Model string
}

// Resume rebuilds the agent from its records (spec 02 §6.14). Replay calls
// only apply: no model call, no tool, no OS access, no event and no record
// written. A record apply refuses (it does not decode, or would put into
// history what no request can carry, or names a step that never began) is
// set aside like a corrupt line rather than failing the resume. Afterwards, as ordinary live commits: calls left without a
// result are closed with the interrupted-on-resume text (written once, so
// the next resume restores them), input buffered before the process
// stopped is dropped, and the model the records saved (or opts.Model) is
// bound with its own budget, window and strategy; a switch is recorded.
// The next prompt continues the turn numbering. Call it once, on a new
// agent, before anything else.
func (a *Agent) Resume(ctx context.Context, opts ResumeOptions) (ResumeResult, error) {
	var b *replay.Builder
	if opts.Cards {
		b = replay.NewBuilder(replay.Range{})
	}
	res, _, err := a.replay(ctx, b)
	if err != nil {
		return res, err
	}
	for _, m := range res.Unrestored {
		a.logger.Warn("records kept but not restored", "what", m)
	}
	if err := a.finishResume(ctx); err != nil {
		return res, err
	}
	// The model the session had, with its budget and window, or the one
	// asked for: bound once the records told which (spec 06 §1.4).
	if err := a.rebindAfterResume(ctx, opts.Model); err != nil {
		return res, fmt.Errorf("resume agent: %w", err)
	}
	a.mu.Lock()
	if b != nil {
		// A copy, so that the cards cut off do not stay reachable.
		res.Cards = slices.Clone(replay.LimitByTurns(b.Cards(), opts.CardTurns))
	}
	a.cards = nil
	a.mu.Unlock()
	return res, nil
}

// replay applies every record of the log, feeding b when it is not nil.
// It reports whether b stopped the replay early (a complete range).
func (a *Agent) replay(ctx context.Context, b *replay.Builder) (ResumeResult, bool, error) {
	var res ResumeResult
	stopped := false
	a.mu.Lock()
	a.cards = b
	a.pending = unrestored{}
	a.mu.Unlock()
	var opts records.ReplayOptions
	if b == nil { // cards show tool outputs; without cards none before the last compaction is read
		opts.Supersede = &records.Supersede{Type: records.Type(history.TypeApplyCompaction), Accept: dropsToolResults}
	}
	warning, err := a.log.ReplayWith(ctx, opts, func(rec records.Record) error {
		a.mu.Lock()
		defer a.mu.Unlock()
		res.Records++
		if _, _, err := a.apply(rec); err != nil {
			// A record that cannot be restored is set aside like a
			// corrupt line (issue 13): one bad record must not stop
			// every later request of the session. apply changed nothing.
			a.logger.Warn("set aside a record that cannot be restored", "type", rec.Type, "line", rec.Line(),
				"error", err)
			res.Refused++
			if !strings.Contains(err.Error(), string(rec.Type)) {
				err = fmt.Errorf("%s record: %w", rec.Type, err)
			}
			return records.Refuse(err)
		}
		if b != nil && b.Done() {
			stopped = true
			return records.ErrStopReplay
		}
		return nil
	})
	res.Warning = warning
	a.mu.Lock()
	res.Unrestored = a.pending.messages()
	a.pending = nil
	if err != nil {
		a.cards = nil
	}
	if res.Records > 0 {
		a.configPending = false // the log has its configuration
	}
	a.mu.Unlock()
	if err != nil {
		return res, false, fmt.Errorf("resume agent: %w", err)
	}
	return res, stopped, nil
}

// dropsToolResults reports whether the context.apply_compaction record rec
// leaves no tool result of the history before it (spec 02 §5 step 8): a
// record with keptUserMessageCount rebuilds history from the kept real
// user inputs (role user) and the summary, and sets the token count from
// tokensAfter or from those alone. Without keptUserMessageCount a legacy
// record may keep a verbatim tail, tool results included. A record that
// does not decode is not accepted (its replay fails as stored).
//
// So the outputs of the tool results before such a record reach nothing
// the resumed agent keeps: they only fill tool messages and token
// estimates that the record discards, and no apply outside history reads
// them. The replay hands them over empty (records.ReplayOptions), which
// spares decoding them and reading their blobs.
func dropsToolResults(rec records.Record) bool {
	p, err := history.DecodeRecord(history.TypeApplyCompaction, rec.Fields())
	if err != nil {
		return false
	}
	r, ok := p.(history.ApplyCompactionRecord)
	return ok && r.KeptUserMessageCount != nil
}

// finishResume is the post-replay phase (spec 02 §6.14 step 3).
func (a *Agent) finishResume(ctx context.Context) error {
	a.mu.Lock()
	a.mem.ForgetOpenSteps()
	closes := a.mem.CloseEvents(history.InterruptedOnResumeText())
	a.usage.current = nil // the running turn's usage is not restored
	a.mu.Unlock()
	normalized, err := a.normalizeGoal(ctx)
	if err != nil {
		return err
	}
	wrote, err := a.resumeRuntime(ctx)
	wrote = wrote || normalized
	if err != nil {
		return err
	}
	for _, ev := range closes {
		if _, err := a.commitPayload(ctx, records.Type(history.TypeAppendLoopEvent),
			history.AppendLoopEventRecord{Event: ev}); err != nil {
			return fmt.Errorf("close interrupted tool call %s: %w", ev.ToolCallID, err)
		}
	}
	a.turns.FinishResume()
	if len(closes) > 0 || wrote {
		if err := a.log.Flush(ctx); err != nil {
			return fmt.Errorf("resume agent: %w", err)
		}
	}
	return nil
}

// BuildReplay reads the records of p into the replay stream limited to r
// (spec 02 §6.12), with a throw-away agent: p is never written (migrated
// records are not rewritten, and nothing the resume would append reaches
// it), and a range that completes early stops reading.
func BuildReplay(ctx context.Context, p records.Persistence, r replay.Range) ([]replay.Card, error) {
	a := New(Options{Persistence: readOnly{p}, KeepOldRecordFormat: true, Compactor: turn.NoCompaction{},
		Goals: goal.New(goal.Options{})}) // goal cards show the goal's snapshot
	defer func() { _ = a.turns.Close(ctx) }() // no turn ever ran; the persistence is not ours to close
	b := replay.NewBuilder(r)
	_, stopped, err := a.replay(ctx, b)
	if err != nil {
		return nil, err
	}
	if !stopped {
		if err := a.finishResume(ctx); err != nil {
			return nil, err
		}
	}
	return b.Cards(), nil
}

// CheckLog replays p as Resume does without cards, with a throw-away agent,
// and writes nothing: no record is appended and nothing is closed. The
// records it cannot restore are refused (records.Refuse), for p to skip
// and report; with a records.Inspection that is what `kimigo doctor`
// lists. It returns how many records were refused, and the error that
// stopped the replay, if any.
func CheckLog(ctx context.Context, p records.Persistence) (refused int, err error) {
	a := New(Options{Persistence: readOnly{p}, KeepOldRecordFormat: true, Compactor: turn.NoCompaction{}})
	defer func() { _ = a.turns.Close(ctx) }() // no turn ever ran; the persistence is not ours to close
	res, _, err := a.replay(ctx, nil)
	return res.Refused, err
}

// readOnly is a persistence whose writes go nowhere: a preview replay must
// not change the log it reads.
type readOnly struct{ p records.Persistence }

func (r readOnly) Read(ctx context.Context, yield func(records.Record) error) error {
	return r.p.Read(ctx, yield)
}

// Path is the path of the log p stores, for messages.
func (r readOnly) Path() string {
	if n, ok := r.p.(interface{ Path() string }); ok {
		return n.Path()
	}
	return "memory"
}

func (readOnly) Append(records.Record) error    { return nil }
func (readOnly) Rewrite([]records.Record) error { return nil }
func (readOnly) Flush(context.Context) error    { return nil }
func (readOnly) Close(context.Context) error    { return nil }
