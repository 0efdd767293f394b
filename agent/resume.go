package agent

import (
	"context"
	"fmt"

	"github.com/kimigo/kimigo/agent/history"
	"github.com/kimigo/kimigo/agent/records"
	"github.com/kimigo/kimigo/agent/replay"
)

// ResumeResult is what Resume restored besides the state itself.
type ResumeResult struct {
	// Warning is set when the log was written by a newer protocol version
	// and replayed unmigrated.
	Warning string
	// Cards are the replay stream of the whole log, for the UI.
	Cards []replay.Card
	// Records counts the records replayed.
	Records int
}

// Resume rebuilds the agent from its records (spec 02 §6.14). Replay calls
// only apply: no model call, no tool, no OS access, no event and no record
// written. Afterwards, as ordinary live commits: calls left without a
// result are closed with the interrupted-on-resume text (written once, so
// the next resume restores them), and input buffered before the process
// stopped is dropped. The next prompt continues the turn numbering. Call it
// once, on a new agent, before anything else.
func (a *Agent) Resume(ctx context.Context) (ResumeResult, error) {
	b := replay.NewBuilder(replay.Range{})
	res, stopped, err := a.replay(ctx, b)
	if err != nil || stopped {
		return res, err
	}
	if err := a.finishResume(ctx); err != nil {
		return res, err
	}
	a.mu.Lock()
	res.Cards, a.cards = b.Cards(), nil
	a.mu.Unlock()
	return res, nil
}

// replay applies every record of the log, feeding b. It reports whether b
// stopped the replay early (a complete range).
func (a *Agent) replay(ctx context.Context, b *replay.Builder) (ResumeResult, bool, error) {
	var res ResumeResult
	stopped := false
	a.mu.Lock()
	a.cards = b
	a.mu.Unlock()
	warning, err := a.log.Replay(ctx, func(rec records.Record) error {
		a.mu.Lock()
		defer a.mu.Unlock()
		res.Records++
		if _, _, err := a.apply(rec); err != nil {
			if rec.Line() > 0 {
				return fmt.Errorf("restore %s record (line %d): %w", rec.Type, rec.Line(), err)
			}
			return fmt.Errorf("restore %s record: %w", rec.Type, err)
		}
		if b.Done() {
			stopped = true
			return records.ErrStopReplay
		}
		return nil
	})
	res.Warning = warning
	a.mu.Lock()
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

// finishResume is the post-replay phase (spec 02 §6.14 step 3).
func (a *Agent) finishResume(ctx context.Context) error {
	a.mu.Lock()
	a.mem.ForgetOpenSteps()
	closes := a.mem.CloseEvents(history.InterruptedOnResumeText())
	a.usage.current = nil // the running turn's usage is not restored
	a.mu.Unlock()
	// TODO(goal, background, cron): goal normalisation, undelivered
	// background notifications and cron jobs join here with their
	// subsystems.
	for _, ev := range closes {
		if _, err := a.commitPayload(ctx, records.Type(history.TypeAppendLoopEvent),
			history.AppendLoopEventRecord{Event: ev}); err != nil {
			return fmt.Errorf("close interrupted tool call %s: %w", ev.ToolCallID, err)
		}
	}
	a.turns.FinishResume()
	if len(closes) > 0 {
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
	a := New(Options{Persistence: readOnly{p}, KeepOldRecordFormat: true})
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

// readOnly is a persistence whose writes go nowhere: a preview replay must
// not change the log it reads.
type readOnly struct{ p records.Persistence }

func (r readOnly) Read(ctx context.Context, yield func(records.Record) error) error {
	return r.p.Read(ctx, yield)
}
func (readOnly) Append(records.Record) error    { return nil }
func (readOnly) Rewrite([]records.Record) error { return nil }
func (readOnly) Flush(context.Context) error    { return nil }
func (readOnly) Close(context.Context) error    { return nil }
