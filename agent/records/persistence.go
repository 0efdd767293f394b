package records

import (
	"context"
	"errors"
	"slices"
	"sync"
)

// Persistence stores the records of one agent (spec 02 §6.7). Every method
// is safe for concurrent use.
type Persistence interface {
	// Read writes out what is pending, then yields the stored records in
	// order. An error from yield stops the read and is returned.
	Read(ctx context.Context, yield func(Record) error) error
	// Append queues rec and returns at once; it never waits for I/O. It
	// fails only after Close.
	Append(rec Record) error
	// Rewrite replaces the whole stored content with recs; records queued
	// but not yet written are dropped, records appended later follow recs.
	Rewrite(recs []Record) error
	// Flush returns nil once everything appended or rewritten before the
	// call is on stable storage. On failure the records stay queued and the
	// next Flush tries again.
	Flush(ctx context.Context) error
	// Close flushes, then releases the persistence. Later calls fail with
	// ErrClosed.
	Close(ctx context.Context) error
}

// Rehydrator is implemented by persistences that move large media out of
// the log (FilePersistence). Rehydrate returns rec with every stored media
// reference replaced by its data URL, or by MediaMissing when the blob is
// gone. It never modifies rec.
type Rehydrator interface {
	Rehydrate(rec Record) Record
}

// ErrClosed is returned by a persistence used after Close.
var ErrClosed = errors.New("records persistence is closed")

// MemoryOptions configures a MemoryPersistence; the zero value is ready.
type MemoryOptions struct {
	// Records is the initial content.
	Records []Record
	// OnRecord, when set, is called with every appended record, on the
	// appending goroutine, after the record is stored.
	OnRecord func(Record)
}

// MemoryPersistence keeps records in a slice: for tests, side-question
// children and previews. Flush has nothing to do.
type MemoryPersistence struct {
	onRecord func(Record)

	mu      sync.Mutex
	records []Record // guarded by mu
	closed  bool     // guarded by mu
}

var _ Persistence = (*MemoryPersistence)(nil)

// NewMemory returns an in-memory persistence.
func NewMemory(opts MemoryOptions) *MemoryPersistence {
	return &MemoryPersistence{onRecord: opts.OnRecord, records: slices.Clone(opts.Records)}
}

// Records returns a copy of the stored records.
func (m *MemoryPersistence) Records() []Record {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.records)
}

// Read yields a snapshot of the stored records; yield may append. A
// record yield refuses (Refuse) is skipped; it stays stored.
func (m *MemoryPersistence) Read(ctx context.Context, yield func(Record) error) error {
	for _, rec := range m.Records() {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := yield(rec); err != nil && refusal(err) == nil {
			return err
		}
	}
	return nil
}

// Append stores rec.
func (m *MemoryPersistence) Append(rec Record) error {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return ErrClosed
	}
	m.records = append(m.records, rec)
	m.mu.Unlock()
	if m.onRecord != nil {
		m.onRecord(rec)
	}
	return nil
}

// Rewrite replaces the stored records.
func (m *MemoryPersistence) Rewrite(recs []Record) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return ErrClosed
	}
	m.records = slices.Clone(recs)
	return nil
}

// Flush does nothing: memory is as durable as this persistence gets.
func (m *MemoryPersistence) Flush(context.Context) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return ErrClosed
	}
	return nil
}

// Close marks the persistence closed; the records stay readable.
func (m *MemoryPersistence) Close(context.Context) error {
	m.mu.Lock()
	m.closed = true
	m.mu.Unlock()
	return nil
}
