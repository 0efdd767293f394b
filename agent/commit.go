package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/kimigo/kimigo/agent/history"
	"github.com/kimigo/kimigo/agent/records"
	"github.com/kimigo/kimigo/agent/turn"
	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/loop"
	"github.com/kimigo/kimigo/tools"
)

// applied is what applying one record did: the history change (for the
// replay stream and callers such as Undo) and whether a status event is
// due.
type applied struct {
	change history.Change
	status bool
}

// commitPayload makes a record of type typ with payload durable-in-order
// and applies it: it is the only way the agent's state changes (STYLE.md
// §5, ERRATA 5). Subsystems build payloads; it appends them to the log and
// applies them under the state lock, then publishes what the apply asked
// for with no lock held. The subsystems reach it through the small
// committer interfaces they declare (turnCommitter, compactionHost,
// permissionRecorder, storeCommitter).
func (a *Agent) commitPayload(_ context.Context, typ records.Type, payload any) (history.Change, error) {
	rec, err := records.New(typ, payload)
	if err != nil {
		return history.Change{}, err
	}
	return a.commit(rec)
}

// commit appends rec and applies it. Durability comes from Flush.
func (a *Agent) commit(rec records.Record) (history.Change, error) {
	a.mu.Lock()
	ap, events, err := a.commitLocked(rec)
	a.mu.Unlock()
	a.publishAll(events)
	return ap.change, err
}

// commitLocked is commit's body; the caller holds mu and publishes the
// returned events once it released it.
func (a *Agent) commitLocked(rec records.Record) (applied, []event.Event, error) {
	var events []event.Event
	if a.configPending { // a new log starts with the agent's initial configuration
		a.configPending = false
		cfg, err := records.New(TypeConfigUpdate, a.config.asUpdate())
		if err == nil {
			var ap applied
			if ap, err = a.appendAndApply(cfg); err == nil && ap.status {
				events = a.appendStatus(events)
			}
		}
		if err != nil {
			a.configPending = true // try again with the next record
			return applied{}, nil, err
		}
	}
	ap, err := a.appendAndApply(rec)
	if err == nil && ap.status {
		events = a.appendStatus(events)
	}
	return ap, events, err
}

// appendStatus adds the status to events when there is one to publish;
// the caller holds mu.
func (a *Agent) appendStatus(events []event.Event) []event.Event {
	if st, ok := a.statusLocked(); ok {
		return append(events, st)
	}
	return events
}

// publishAll publishes events; the caller holds no lock.
func (a *Agent) publishAll(events []event.Event) {
	for _, ev := range events {
		a.events.Publish(ev)
	}
}

// appendAndApply is commit's body; the caller holds mu.
func (a *Agent) appendAndApply(rec records.Record) (applied, error) {
	if rec.Time == 0 {
		rec.Time = a.now().UnixMilli()
	}
	if err := a.log.Record(rec); err != nil {
		return applied{}, fmt.Errorf("append %s: %w", rec.Type, err)
	}
	ap, _, err := a.apply(rec)
	if err != nil {
		return applied{}, fmt.Errorf("apply %s: %w", rec.Type, err)
	}
	return ap, nil
}

// turnCommitter is the agent's commit path as TurnFlow sees it
// (turn.Committer).
type turnCommitter struct{ a *Agent }

// Commit implements turn.Committer.
func (c turnCommitter) Commit(ctx context.Context, typ records.Type, payload any) error {
	_, err := c.a.commitPayload(ctx, typ, payload)
	return err
}

// Flush implements turn.Committer: every committed record is on stable
// storage when it returns nil.
func (c turnCommitter) Flush(ctx context.Context) error { return c.a.log.Flush(ctx) }

func (c turnCommitter) Written(ctx context.Context) error {
	_, err := c.a.log.Stage(ctx)
	return err
}

// apply rebuilds state from one record, live right after its append and on
// resume alike. It never appends and never publishes: what should be
// published comes back in applied. handled is false for record types the
// agent does not know, which are ignored (spec 02 §6.1). The caller holds
// mu.
func (a *Agent) apply(rec records.Record) (ap applied, handled bool, err error) {
	a.recordTime = time.UnixMilli(rec.Time)
	ap, handled, err = a.applyByType(rec)
	if err == nil && a.cards != nil {
		a.cards.Observe(rec, ap.change)
	}
	return ap, handled, err
}

func (a *Agent) applyByType(rec records.Record) (applied, bool, error) {
	if o, ok := recordOwners[rec.Type]; ok {
		ap, err := o.apply(a, rec)
		return ap, true, err
	}
	if _, ok := pendingRecords[rec.Type]; ok {
		if a.pending != nil {
			a.pending[rec.Type]++
		}
		return applied{}, true, nil // kept in the log; the resume reports it
	}
	return applied{}, false, nil // unknown types are ignored (spec 02 §6.1)
}

// applyToolsSnapshot restores the request recorder's write-dedup cursor.
func (a *Agent) applyToolsSnapshot(rec records.Record) (applied, error) {
	hash, err := snapshotHash(rec.Fields())
	if err != nil {
		return applied{}, fmt.Errorf("decode %s record: %w", rec.Type, err)
	}
	a.toolsHashes[hash] = true
	return applied{}, nil
}

// snapshotHash reads the "hash" member of a tools snapshot. The snapshot
// writes it before the table, which only the log needs, so the table (tens
// of kilobytes at every session start) is not read; a member it does not
// know is skipped, and without a hash the hash is "", as decoding the whole
// snapshot into a struct would give.
func snapshotHash(fields []byte) (string, error) {
	dec := json.NewDecoder(bytes.NewReader(fields))
	if t, err := dec.Token(); err != nil {
		return "", err
	} else if t != json.Delim('{') {
		return "", fmt.Errorf("a tools snapshot is %v, not an object", t)
	}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return "", err
		}
		if k == "hash" {
			var h string
			err := dec.Decode(&h)
			return h, err
		}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return "", err
		}
	}
	return "", nil
}

// applyInput raises the turn counter to the turn a prompt or steer
// launched.
func (a *Agent) applyInput(rec records.Record) (applied, error) {
	var r turn.InputRecord
	if err := records.Decode(rec, &r); err != nil {
		return applied{}, err
	}
	if id, ok := r.LaunchedTurn(); ok {
		a.turns.ObserveTurnID(id)
	}
	return applied{}, nil
}

// applyLaunch raises the turn counter to a launched turn.
func (a *Agent) applyLaunch(rec records.Record) (applied, error) {
	var r turn.LaunchRecord
	if err := records.Decode(rec, &r); err != nil {
		return applied{}, err
	}
	a.turns.ObserveTurnID(r.TurnID)
	return applied{}, nil
}

// applyConfig is the apply of config.update. The model binding follows
// the recorded alias: live, SetModel binds it with the record; on resume,
// the post-replay phase binds the alias the records left.
func (a *Agent) applyConfig(rec records.Record) (applied, error) {
	return decoded(rec, func(u ConfigUpdate) applied { a.config.apply(u); return applied{} })
}

// applyUsage is the apply of usage.record.
func (a *Agent) applyUsage(rec records.Record) (applied, error) {
	return decoded(rec, func(u UsageRecord) applied { a.usage.apply(u); return applied{status: true} })
}

// applyStore is the apply of tools.update_store.
func (a *Agent) applyStore(rec records.Record) (applied, error) {
	return decoded(rec, func(u tools.UpdateStore) applied { a.store.Apply(u); return applied{} })
}

// decoded decodes rec's payload as a T and applies it with f.
func decoded[T any](rec records.Record, f func(T) applied) (applied, error) {
	var v T
	if err := records.Decode(rec, &v); err != nil {
		return applied{}, err
	}
	return f(v), nil
}

// applyHistory hands a context.* record to history.
func (a *Agent) applyHistory(rec records.Record) (applied, error) {
	p, err := history.DecodeRecord(history.RecordType(rec.Type), rec.Fields())
	if err != nil {
		return applied{}, err
	}
	ch, err := a.mem.Apply(p)
	if err != nil {
		return applied{}, err
	}
	status := false
	switch r := p.(type) {
	case history.AppendLoopEventRecord:
		if id, ok := loopEventTurnID(r.Event); ok {
			a.turns.ObserveTurnID(id) // authoritative for turns without turn.prompt
		}
	case history.AppendMessageRecord:
	default: // token count, clear, undo, compaction change what the status shows
		status = true
	}
	return applied{change: ch, status: status}, nil
}

// applyActiveTools applies tools.set_active_tools when names is an array;
// a record without it is a foreign "all active" and changes nothing.
func (a *Agent) applyActiveTools(rec records.Record) (applied, error) {
	var r struct {
		Names      json.RawMessage `json:"names"`
		Disallowed []string        `json:"disallowedNames"`
		Legacy     []string        `json:"disallowed"`
	}
	if err := records.Decode(rec, &r); err != nil {
		return applied{}, err
	}
	if len(r.Names) == 0 || r.Names[0] != '[' || a.manager == nil {
		return applied{}, nil
	}
	var names []string
	if err := json.Unmarshal(r.Names, &names); err != nil {
		return applied{}, err
	}
	a.manager.SetActiveTools(tools.ActiveTools{Names: names, Disallowed: append(r.Disallowed, r.Legacy...)})
	return applied{}, nil
}

// loopEventTurnID is the turn id a recorded loop event carries.
func loopEventTurnID(ev loop.RecordedEvent) (int, bool) {
	var s string
	switch e := ev.(type) {
	case loop.StepBeginEvent:
		s = e.TurnID
	case *loop.StepBeginEvent:
		s = e.TurnID
	case loop.ContentPartEvent:
		s = e.TurnID
	case *loop.ContentPartEvent:
		s = e.TurnID
	case loop.ToolCallEvent:
		s = e.TurnID
	case *loop.ToolCallEvent:
		s = e.TurnID
	case loop.StepEndEvent:
		s = e.TurnID
	case *loop.StepEndEvent:
		s = e.TurnID
	default:
		return 0, false
	}
	n, err := strconv.Atoi(s)
	return n, err == nil
}

// toolsReset tells the tool manager that loaded dynamic tools are gone
// (history was cleared or compacted).
func (a *Agent) toolsReset() {
	if a.manager != nil {
		a.manager.ClearPendingLoaded()
	}
}

// storeCommitter records tool-store updates for the tool manager.
type storeCommitter struct{ a *Agent }

// CommitStoreUpdate commits a tools.update_store record.
func (c storeCommitter) CommitStoreUpdate(ctx context.Context, u tools.UpdateStore) error {
	_, err := c.a.commitPayload(ctx, tools.UpdateStoreRecordType, u)
	return err
}
