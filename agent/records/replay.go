package records

import (
	"context"
	"errors"
	"fmt"

	"github.com/kimigo/kimigo/llm/plainjson"
)

// Replay reads every record and hands it to yield, in order (spec 02
// §6.9). The first record must be metadata; its protocol version decides
// what happens:
//
//   - same version: records are yielded as stored;
//   - older: each record is migrated (§6.5) before yield, and after a
//     complete replay the log is rewritten in the current format (unless
//     LogOptions.KeepOldFormat) and flushed;
//   - newer: records are yielded unmigrated, nothing is rewritten, and the
//     returned warning says so.
//
// Media references are rehydrated per record when the persistence stores
// blobs. Record does nothing while Replay runs. A complete replay opens the
// log; yield returning ErrStopReplay ends a range-limited replay that does
// neither. An empty or missing log yields nothing and writes nothing.
func (l *Log) Replay(ctx context.Context, yield func(Record) error) (warning string, err error) {
	return l.ReplayWith(ctx, ReplayOptions{}, yield)
}

// ReplayWith is Replay tuned by opts (supersede.go).
func (l *Log) ReplayWith(ctx context.Context, opts ReplayOptions, yield func(Record) error) (warning string, err error) {
	l.mu.Lock()
	if l.replaying {
		l.mu.Unlock()
		return "", errors.New("replay records: a replay is already running")
	}
	l.replaying = true
	l.mu.Unlock()

	r := replayer{log: l, path: persistencePath(l.p), yield: yield}
	r.rehydrator, _ = l.p.(Rehydrator)
	if f, ok := l.p.(boundaryFinder); ok && opts.Supersede != nil {
		at, found, ferr := f.findLast(ctx, opts.Supersede.Type, opts.Supersede.Accept)
		if found {
			r.sup = &superseder{at: at}
		}
		err = ferr
	}
	if err == nil {
		err = l.p.Read(ctx, r.next)
	}
	completed := true
	if r.stopped && errors.Is(err, ErrStopReplay) {
		completed, err = false, nil
	}
	if err == nil && completed && r.rewrite {
		err = l.rewriteMigrated(ctx, r.kept)
	}

	l.mu.Lock()
	l.replaying = false
	var cbs []func()
	if err == nil && completed {
		cbs = l.openLocked()
	}
	l.mu.Unlock()
	runAll(cbs)
	return r.warning, err
}

func (l *Log) rewriteMigrated(ctx context.Context, recs []Record) error {
	if err := l.p.Rewrite(recs); err != nil {
		return fmt.Errorf("rewrite migrated records: %w", err)
	}
	if err := l.p.Flush(ctx); err != nil {
		return fmt.Errorf("rewrite migrated records: %w", err)
	}
	return nil
}

// replayer is the state of one Replay.
type replayer struct {
	log        *Log
	path       string
	yield      func(Record) error
	rehydrator Rehydrator

	seen       bool        // the first record was handled
	migrations []migration // lift records to ProtocolVersion
	rewrite    bool        // keep migrated records and rewrite the log afterwards
	kept       []Record    // the migrated log, when rewrite
	warning    string
	stopped    bool // yield returned ErrStopReplay
	// sup elides superseded tool outputs; nil when ReplayOptions asked
	// for no elision or the log is not of the current version.
	sup *superseder
}

func (r *replayer) next(rec Record) error {
	if !r.seen {
		r.seen = true
		if err := r.handleMetadata(rec); err != nil {
			return err
		}
		if len(r.migrations) > 0 || r.warning != "" {
			r.sup = nil // elision reads records of the current version only
		}
	}
	rec = migrate(rec, r.migrations)
	if r.rewrite {
		if rec.Type == TypeMetadata {
			rec = withVersion(rec, ProtocolVersion)
		}
		r.kept = append(r.kept, rec)
	}
	elided := false
	if r.sup != nil {
		rec, elided = r.sup.elide(rec)
	}
	if r.rehydrator != nil && !elided { // an elided record has no media left
		rec = r.rehydrator.Rehydrate(rec)
	}
	if err := r.yield(rec); err != nil {
		if errors.Is(err, ErrStopReplay) {
			r.stopped = true
			return err
		}
		if refusal(err) != nil && r.rewrite {
			r.kept = r.kept[:len(r.kept)-1] // the persistence sets the line aside
		}
		return fmt.Errorf("replay %s record (line %d of %s): %w", rec.Type, rec.Line(), r.path, err)
	}
	return nil
}

// handleMetadata checks the first record and decides on migrations.
func (r *replayer) handleMetadata(rec Record) error {
	if rec.Type != TypeMetadata {
		return fmt.Errorf("AgentRecords replay expected metadata as the first record (line %d of %s is %q)",
			rec.Line(), r.path, rec.Type)
	}
	r.log.mu.Lock()
	r.log.metadataDone = true
	r.log.mu.Unlock()

	version := "1.0" // a metadata record without a version predates versioning
	o, _ := parseObject(rec.encode())
	if raw, ok := o.get(metadataVersionKey); ok {
		v, isString := decodeString(raw)
		if !isString || !validVersion(v) {
			return fmt.Errorf("replay %s: metadata (line %d) has protocol_version %.40s; want digits separated by dots",
				r.path, rec.Line(), raw)
		}
		version = v
	}
	switch c := compareVersions(version, ProtocolVersion); {
	case c > 0:
		r.warning = fmt.Sprintf("Session wire protocol version %s is newer than the current version %s. "+
			"Records will be replayed without migration.", version, ProtocolVersion)
		r.log.logger.Warn("records from a newer protocol version", "path", r.path, "version", version)
	case c < 0:
		ms, err := migrationsFrom(version)
		if err != nil {
			return fmt.Errorf("%w (metadata at line %d of %s)", err, rec.Line(), r.path)
		}
		r.migrations = ms
		r.rewrite = r.log.rewrites
	}
	return nil
}

// withVersion returns the metadata record with its protocol version set.
func withVersion(rec Record, v string) Record {
	o, ok := parseObject(rec.encode())
	if !ok {
		return rec
	}
	o.set(metadataVersionKey, plainjson.Quote(v))
	nr, err := parseRecord(o.bytes())
	if err != nil {
		return rec
	}
	nr.lineNo = rec.lineNo
	return nr
}

// persistencePath names the storage in errors.
func persistencePath(p Persistence) string {
	if n, ok := p.(interface{ Path() string }); ok {
		return n.Path()
	}
	return "memory"
}
