package records

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/kimigo/kimigo/internal/bug"
)

// ErrStopReplay, returned by a Replay callback, ends the replay early
// without an error: a range-limited replay. Such a replay neither rewrites
// migrated records nor opens the log.
var ErrStopReplay = errors.New("stop replay")

// RefusedError is a record its owner cannot restore: it decodes, or not,
// but applying it fails or would leave state no request can be built from.
// A replay callback returns it (through Refuse) to have the record set
// aside like a corrupt line: a FilePersistence skips it, saves its bytes
// in wire.jsonl.quarantine, takes it out of the log and reports it through
// FileOptions.OnQuarantine with the reason; a MemoryPersistence skips it.
// Any other persistence fails the read with it.
type RefusedError struct {
	Err error
}

func (e *RefusedError) Error() string { return "record refused: " + e.Err.Error() }

func (e *RefusedError) Unwrap() error { return e.Err }

// Refuse wraps err, the reason a replayed record cannot be restored, in a
// *RefusedError.
func Refuse(err error) error { return &RefusedError{Err: err} }

// refusal returns the *RefusedError in err, or nil.
func refusal(err error) *RefusedError {
	var r *RefusedError
	if errors.As(err, &r) {
		return r
	}
	return nil
}

// LogOptions configures a Log; the zero value gives an in-memory log.
type LogOptions struct {
	// Persistence stores the records; nil means a fresh MemoryPersistence.
	Persistence Persistence
	// Now is the clock for record times; nil means time.Now.
	Now func() time.Time
	// Logger receives warnings (a newer protocol version); nil discards.
	Logger *slog.Logger
	// KeepOldFormat turns off the rewrite of a log after its records were
	// migrated from an older protocol version (upstream's
	// rewriteMigratedRecords = false).
	KeepOldFormat bool
}

// Log is the record log of one agent (spec 02 §6.2, §6.9–§6.11): it stamps
// and appends records, writes the metadata record first, replays and
// migrates, and tracks when observability records may be written. Its
// methods are safe for concurrent use.
type Log struct {
	p        Persistence
	now      func() time.Time
	logger   *slog.Logger
	rewrites bool

	mu           sync.Mutex
	replaying    bool     // guarded by mu
	metadataDone bool     // guarded by mu: a metadata record was written or read
	opened       bool     // guarded by mu: see ObservabilityReady
	onOpened     []func() // guarded by mu: callbacks waiting for opened
}

// NewLog returns a log over opts.Persistence.
func NewLog(opts LogOptions) *Log {
	l := &Log{p: opts.Persistence, now: opts.Now, logger: opts.Logger, rewrites: !opts.KeepOldFormat}
	if l.p == nil {
		l.p = NewMemory(MemoryOptions{})
	}
	if l.now == nil {
		l.now = time.Now
	}
	if l.logger == nil {
		l.logger = slog.New(slog.DiscardHandler)
	}
	return l
}

// Record appends rec without waiting for the disk: it stamps the time when
// unset, writes the metadata record first on a log that has none, and opens
// the log. While a replay runs it does nothing, so restoring can never
// write. Durability comes from Flush.
func (l *Log) Record(rec Record) error {
	if rec.Type == "" {
		return errors.New("record: empty type")
	}
	l.mu.Lock()
	if l.replaying {
		l.mu.Unlock()
		return nil
	}
	now := l.now().UnixMilli()
	if rec.Time == 0 && rec.Type != TypeMetadata {
		rec.Time = now
	}
	if !l.metadataDone && rec.Type != TypeMetadata {
		if err := l.p.Append(metadataRecord(now)); err != nil {
			l.mu.Unlock()
			return fmt.Errorf("append %s record: %w", TypeMetadata, err)
		}
		l.metadataDone = true
	}
	if err := l.p.Append(rec); err != nil {
		l.mu.Unlock()
		return fmt.Errorf("append %s record: %w", rec.Type, err)
	}
	if rec.Type == TypeMetadata {
		l.metadataDone = true
	}
	cbs := l.openLocked()
	l.mu.Unlock()
	runAll(cbs)
	return nil
}

func metadataRecord(createdAt int64) Record {
	rec, err := New(TypeMetadata, struct {
		ProtocolVersion string `json:"protocol_version"`
		CreatedAt       int64  `json:"created_at"`
	}{ProtocolVersion, createdAt})
	if err != nil {
		bug.Reportf("encode metadata record: %v", err) // a fixed struct always encodes
		return Record{Type: TypeMetadata}
	}
	return rec
}

// Flush returns nil once every record recorded before the call is on
// stable storage.
func (l *Log) Flush(ctx context.Context) error { return l.p.Flush(ctx) }

// Stage returns once every record recorded before the call is written,
// though maybe not yet on stable storage: a process killed after it
// returned leaves them in the file. The wait it returns waits for those
// records, and no later ones, to be durable; the fsync runs meanwhile. A
// persistence without that distinction (memory) flushes.
func (l *Log) Stage(ctx context.Context) (durable func(context.Context) error, err error) {
	if s, ok := l.p.(stager); ok {
		return s.Stage(ctx)
	}
	if err := l.p.Flush(ctx); err != nil {
		return nil, err
	}
	return func(context.Context) error { return nil }, nil
}

// stager is a persistence whose records reach the file before they are
// durable (FilePersistence).
type stager interface {
	Stage(ctx context.Context) (durable func(context.Context) error, err error)
}

// Close flushes and closes the persistence.
func (l *Log) Close(ctx context.Context) error { return l.p.Close(ctx) }

// ObservabilityReady reports whether observability records may be written:
// once the log is open, after the first live record or a complete replay,
// so a producer never writes before replay restored its dedup cursors.
func (l *Log) ObservabilityReady() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.opened
}

// OnOpened runs cb now if the log is open, else once when it opens. cb
// runs on the goroutine that opened the log (inside Record or Replay) with
// no lock of the Log held; it must not block.
func (l *Log) OnOpened(cb func()) {
	l.mu.Lock()
	if !l.opened {
		l.onOpened = append(l.onOpened, cb)
		l.mu.Unlock()
		return
	}
	l.mu.Unlock()
	cb()
}

// openLocked marks the log open and returns the callbacks to run.
func (l *Log) openLocked() []func() {
	if l.opened {
		return nil
	}
	l.opened = true
	cbs := l.onOpened
	l.onOpened = nil
	return cbs
}

func runAll(cbs []func()) {
	for _, cb := range cbs {
		cb()
	}
}
