package records

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/kimigo/kimigo/osenv"
)

// File names inside an agent's home directory (spec 02 §6.15, ERRATA 7).
const (
	LogFileName  = "wire.jsonl"
	BlobsDirName = "blobs"
	LockFileName = ".lock"
)

// FileOptions configures a FilePersistence.
type FileOptions struct {
	// FS is the file system; nil means osenv.LocalFS{}.
	FS osenv.FS
	// Dir is the agent's home directory, holding wire.jsonl, blobs/ and
	// .lock. It is created (0700) when missing. Required.
	Dir string
	// Logger receives repairs and write failures; nil discards.
	Logger *slog.Logger
	// OnError is called on the writer goroutine after every failed write
	// batch, with an error naming the file and wrapping the cause (errno).
	// The records stay queued; the next Flush retries them.
	OnError func(error)
	// OnQuarantine is called, on the reading goroutine, for every corrupt
	// line a Read skipped, and for every record the reader refused
	// (RefusedError), after it was saved in the side file and taken out of
	// the log, as far as that worked.
	OnQuarantine func(Quarantined)
	// BlobThreshold is the base64 length from which media is stored as a
	// blob; 0 means 4096.
	BlobThreshold int
	// BlobCacheBytes bounds the blob read cache; 0 means 50 MiB.
	BlobCacheBytes int64
	// Parents, when set, makes durable what the log depends on outside its
	// own directory (a new session's directory entries, its state file,
	// its index line): the writer calls it in the first group commit,
	// beside the fsync of the first batch, and no record counts as durable
	// before it succeeded once. A failure fails that commit like a failed
	// fsync; the next attempt calls it again.
	Parents func() error
}

// FilePersistence stores records in <Dir>/wire.jsonl through a writer
// goroutine and a sync goroutine that group-commit in a pipeline: the
// writer takes everything queued and writes it in one batch (Stage
// returns once it is in the file), the syncer fsyncs whatever the writer
// wrote so far while the writer goes on with the next batch, and only then
// completes the Flush calls waiting for it. Write and fsync errors are not
// sticky: the records not yet durable go back to the head of the queue,
// the file is cut back to its durable length, OnError is told, and the
// next Flush retries them. An advisory
// lock on <Dir>/.lock keeps a second process (or a second open in this
// one) from appending to the same log.
type FilePersistence struct {
	fs      osenv.FS
	dir     string
	path    string
	logger  *slog.Logger
	onError func(error)
	onQuar  func(Quarantined)
	blobs   *blobStore
	unlock  func() error
	wake    chan struct{} // capacity 1: "the queue changed or a retry is wanted"
	stop    chan struct{} // closed by Close
	done    chan struct{} // closed when the writer goroutine has exited
	tasks   chan writerTask
	parents func() error

	syncWake chan struct{} // capacity 1: "the writer wrote something"
	syncStop chan struct{} // closed by the writer goroutine when it stops
	syncDone chan struct{} // closed when the sync goroutine has exited
	// fileMu keeps the writer from closing, truncating or replacing the
	// file while the syncer fsyncs it; appending needs no lock.
	fileMu sync.Mutex

	mu         sync.Mutex
	queue      []Record      // guarded by mu: records not yet handed to the writer
	truncate   bool          // guarded by mu: the queue replaces the file (a Rewrite)
	rewriteGen uint64        // guarded by mu: counts Rewrite calls
	appended   uint64        // guarded by mu: Append and Rewrite calls so far
	durable    uint64        // guarded by mu: calls whose records are on stable storage
	written    uint64        // guarded by mu: calls whose records are in the file, maybe not yet durable
	inflight   []inflight    // guarded by mu: batches written but not yet durable, in order
	syncFile   osenv.File    // guarded by mu: the file the syncer fsyncs (the writer's open log)
	dirPending bool          // guarded by mu: the directory entry of wire.jsonl still needs an fsync
	parentsOK  bool          // guarded by mu: Parents succeeded
	syncErr    error         // guarded by mu: a failed fsync the writer has not dealt with yet
	durableEnd int64         // guarded by mu: length of the file up to the last durable batch
	syncWanted uint64        // guarded by mu: durability was asked for the records up to this count
	started    uint64        // guarded by mu: write batches begun
	failed     bool          // guarded by mu: the last batch failed; only a Flush retries
	retry      bool          // guarded by mu: a Flush asked for another attempt
	lastErr    error         // guarded by mu: error of the last failed batch
	lastErrID  uint64        // guarded by mu: which batch that was (see started)
	changed    chan struct{} // guarded by mu: closed and replaced after every batch
	closed     bool          // guarded by mu

	w writerState // owned by the writer goroutine
}

var (
	_ Persistence = (*FilePersistence)(nil)
	_ Rehydrator  = (*FilePersistence)(nil)
)

// OpenFile takes the lock of opts.Dir and starts the writer. It reads
// nothing: Read (through Log.Replay) does, and the torn tail of a crashed
// writer is repaired just before the first append.
func OpenFile(opts FileOptions) (*FilePersistence, error) {
	if opts.Dir == "" {
		return nil, errors.New("open records: no directory given")
	}
	fsys := opts.FS
	if fsys == nil {
		fsys = osenv.LocalFS{}
	}
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	threshold := cmpOr(opts.BlobThreshold, defaultBlobThreshold)
	cacheBytes := cmpOr(opts.BlobCacheBytes, defaultBlobCacheBytes)
	if err := fsys.MkdirAll(opts.Dir, 0o700); err != nil {
		return nil, fmt.Errorf("open records %s: %w", opts.Dir, err)
	}
	unlock, err := lockDir(fsys, opts.Dir, logger)
	if err != nil {
		return nil, err
	}
	path := filepath.Join(opts.Dir, LogFileName)
	p := &FilePersistence{
		fs:      fsys,
		dir:     opts.Dir,
		path:    path,
		logger:  logger,
		onError: opts.OnError,
		onQuar:  opts.OnQuarantine,
		blobs:   newBlobStore(fsys, filepath.Join(opts.Dir, BlobsDirName), path, threshold, cacheBytes, logger),
		unlock:  unlock,
		wake:    make(chan struct{}, 1),
		stop:    make(chan struct{}),
		done:    make(chan struct{}),
		tasks:   make(chan writerTask),
		changed: make(chan struct{}),
		parents: opts.Parents,

		syncWake: make(chan struct{}, 1),
		syncStop: make(chan struct{}),
		syncDone: make(chan struct{}),
	}
	if fi, err := fsys.Stat(path); err == nil && fi.Mode().IsRegular() {
		p.w.existed = true // never create it again once it was seen
	}
	go p.run()
	go p.syncLoop()
	return p, nil
}

func cmpOr[T int | int64](v, def T) T {
	if v > 0 {
		return v
	}
	return def
}

// Path returns the path of wire.jsonl.
func (p *FilePersistence) Path() string { return p.path }

// Read flushes, then yields the records of wire.jsonl in order. A missing
// file has no records. An unparsable unterminated last line (a torn write)
// is skipped. A corrupt terminated line after the metadata record is
// skipped and quarantined once the read is through: its bytes go to
// wire.jsonl.quarantine, then it is taken out of the log, and
// OnQuarantine hears of it. So is the line of a record yield refuses
// (Refuse), with the reason. Before the metadata record, or in a log of a
// newer protocol version, which is never touched, it fails the read with
// a *LineError. Records appended while Read runs may or may not be seen:
// replay first, then append.
func (p *FilePersistence) Read(ctx context.Context, yield func(Record) error) error {
	if err := p.Flush(ctx); err != nil {
		return fmt.Errorf("read %s: %w", p.path, err)
	}
	f, err := p.fs.OpenFile(p.path, os.O_RDONLY, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read records: %w", err)
	}
	defer func() { _ = f.Close() }() // read-only
	lr := newLineReader(f, p.path)
	err = scanLines(ctx, lr, yield)
	if len(lr.bad) > 0 && (err == nil || errors.Is(err, ErrStopReplay)) {
		p.quarantine(lr.bad)
	}
	return err
}

// scanLines yields the records of lr. A corrupt line after the metadata
// record of a log this kimigo writes is skipped into lr.bad, and so is the
// line of a record yield refuses, with the reason.
func scanLines(ctx context.Context, lr *lineReader, yield func(Record) error) error {
	for i := 0; ; i++ {
		if i%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		rec, err := lr.next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if i == 0 { // corrupt lines are skipped only in a log of a version we write
			lr.skipBad = rec.Type == TypeMetadata && !newerMetadata(rec)
		}
		if err := yield(rec); err != nil {
			if r := refusal(err); r != nil && lr.skipBad {
				bad := lr.last
				bad.reason = r.Err.Error()
				lr.bad = append(lr.bad, bad)
				continue
			}
			return err
		}
	}
}

// newerMetadata reports a metadata record of a protocol version newer than
// ProtocolVersion.
func newerMetadata(rec Record) bool {
	o, ok := parseObject(rec.encode())
	if !ok {
		return false
	}
	raw, ok := o.get(metadataVersionKey)
	if !ok {
		return false
	}
	v, ok := decodeString(raw)
	return ok && validVersion(v) && compareVersions(v, ProtocolVersion) > 0
}

// Rehydrate replaces blob references in rec by their data URLs.
func (p *FilePersistence) Rehydrate(rec Record) Record { return p.blobs.rehydrate(rec) }

// Append queues rec for the writer; it never waits for I/O.
func (p *FilePersistence) Append(rec Record) error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return ErrClosed
	}
	p.queue = append(p.queue, rec)
	p.appended++
	p.mu.Unlock()
	p.signal()
	return nil
}

// Rewrite queues a replacement of the whole file by recs (written to
// wire.jsonl.tmp, synced and renamed over the log). Queued records not yet
// written are dropped; later appends follow recs.
func (p *FilePersistence) Rewrite(recs []Record) error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return ErrClosed
	}
	p.queue = slices.Clone(recs)
	p.truncate = true
	p.rewriteGen++
	p.appended++
	p.mu.Unlock()
	p.signal()
	return nil
}

func (p *FilePersistence) signal() {
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// Flush waits until everything appended before the call is durable. If a
// batch fails, Flush retries once (a write attempt that starts after the
// call) and returns that attempt's error; the records stay queued.
func (p *FilePersistence) Flush(ctx context.Context) error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return ErrClosed
	}
	p.mu.Unlock()
	return p.flush(ctx)
}

func (p *FilePersistence) flush(ctx context.Context) error {
	p.mu.Lock()
	target := p.appended
	p.mu.Unlock()
	return p.wait(ctx, target, true)
}

// Stage waits until everything appended before the call is written to
// the file, though maybe not yet durable, and returns a wait for those
// records alone to become durable. A process killed after Stage returned
// leaves them in the file; the fsync runs meanwhile, beside the caller's
// work. Errors are Flush's.
func (p *FilePersistence) Stage(ctx context.Context) (durable func(context.Context) error, err error) {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil, ErrClosed
	}
	target := p.appended
	p.mu.Unlock()
	if err := p.wait(ctx, target, false); err != nil {
		return nil, err
	}
	p.mu.Lock()
	p.wantSyncLocked(target) // the fsync starts now, beside the caller's work
	p.mu.Unlock()
	return func(ctx context.Context) error {
		return p.wait(ctx, target, true)
	}, nil
}

// wait waits until the records appended up to target are durable, or
// only written. A batch that fails is retried once (an attempt that starts
// after the call), and that attempt's error is returned; the records stay
// queued. The syncer fsyncs only what someone asked to be durable (a
// Flush, a Stage), so everything written in between (a step's records)
// shares one fsync.
func (p *FilePersistence) wait(ctx context.Context, target uint64, durable bool) error {
	reached := func() uint64 { return p.written }
	if durable {
		reached = func() uint64 { return p.durable }
	}
	p.mu.Lock()
	if reached() >= target {
		p.mu.Unlock()
		return nil
	}
	if durable {
		p.wantSyncLocked(target)
	}
	since := p.started // an attempt numbered above this began after the call
	p.retry = true
	p.signal()
	for {
		ch := p.changed
		p.mu.Unlock()
		select {
		case <-ch:
		case <-p.done: // Close stopped the writer
			p.mu.Lock()
			ok := reached() >= target
			p.mu.Unlock()
			if ok {
				return nil
			}
			return fmt.Errorf("flush %s: %w", p.path, ErrClosed)
		case <-ctx.Done():
			return fmt.Errorf("flush %s: %w", p.path, context.Cause(ctx))
		}
		p.mu.Lock()
		if reached() >= target {
			p.mu.Unlock()
			return nil
		}
		if p.lastErr != nil && p.lastErrID > since {
			err := p.lastErr
			p.mu.Unlock()
			return err
		}
	}
}

// Close flushes, stops the writer and waits for it, and releases the lock.
// Records that could not be written are counted in the error.
func (p *FilePersistence) Close(ctx context.Context) error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	p.mu.Unlock()
	err := p.flush(ctx)
	close(p.stop)
	<-p.done
	if err != nil {
		p.mu.Lock()
		n := len(p.queue)
		p.mu.Unlock()
		err = fmt.Errorf("close records %s: %d records not written: %w", p.path, n, err)
	}
	if uerr := p.unlock(); uerr != nil && err == nil {
		err = fmt.Errorf("close records %s: unlock: %w", p.path, uerr)
	}
	return err
}
