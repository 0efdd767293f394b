package records

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"

	"github.com/kimigo/kimigo/internal/bug"
	"github.com/kimigo/kimigo/osenv"
)

// writerState belongs to the writer goroutine alone.
type writerState struct {
	f         osenv.File // wire.jsonl open for writing, or nil
	size      int64      // length of the file up to the last batch written whole
	checked   bool       // f's length was checked against size since it was opened
	repaired  bool       // the torn tail left by a crash has been dealt with
	dirSynced bool       // the directory entry of wire.jsonl is durable, or the syncer was asked to make it so
	existed   bool       // wire.jsonl was opened once: it is never created again
	removed   bool       // wire.jsonl went away under the writer: nothing is written any more
	// buf holds the batch being written (encodeBatch); it is kept for
	// the next one unless it grew past maxKeptBatchBuffer.
	buf bytes.Buffer
}

// maxKeptBatchBuffer caps the batch buffer the writer keeps between
// batches: a step's records fit, an image or a long tool output does not
// stay in memory.
const maxKeptBatchBuffer = 256 << 10

// inflight is a batch in the file whose fsync has not completed yet.
type inflight struct {
	recs []Record
	gen  uint64 // rewriteGen when it was taken from the queue
	upto uint64 // appended count it brings written up to
	id   uint64 // its attempt number (started)
	end  int64  // length of the file after it
}

// run is the writer goroutine: it drains the queue whenever woken, until
// Close stops it; then it stops the sync goroutine.
func (p *FilePersistence) run() {
	defer close(p.done)
	defer func() {
		close(p.syncStop)
		<-p.syncDone
		p.fileMu.Lock()
		p.closeFile()
		p.fileMu.Unlock()
	}()
	for {
		select {
		case <-p.wake:
			p.drain()
		case t := <-p.tasks:
			p.fileMu.Lock()
			err := t.fn()
			p.fileMu.Unlock()
			t.done <- err
		case <-p.stop:
			return
		}
	}
}

// drain writes batches until the queue is empty, or until a batch failed
// and no Flush has asked for another attempt. A failed fsync reported by
// the syncer is dealt with first.
func (p *FilePersistence) drain() {
	for {
		p.mu.Lock()
		if p.syncErr != nil {
			p.mu.Unlock()
			p.recoverFromSyncFailure()
			continue
		}
		if (len(p.queue) == 0 && !p.truncate) || (p.failed && !p.retry) {
			p.mu.Unlock()
			return
		}
		p.retry = false
		batch, truncate, gen, upto := p.queue, p.truncate, p.rewriteGen, p.appended
		p.queue, p.truncate = nil, false
		p.started++
		id := p.started
		p.mu.Unlock()

		var err error
		if truncate {
			err = p.replaceBatch(batch, upto)
		} else {
			err = p.appendBatch(batch, inflight{recs: batch, gen: gen, upto: upto, id: id})
		}
		if p.w.buf.Cap() > maxKeptBatchBuffer {
			p.w.buf = bytes.Buffer{}
		}
		if err != nil {
			p.fileMu.Lock()
			p.mu.Lock()
			p.failed, p.lastErr, p.lastErrID = true, err, id
			requeue := p.takeInflightLocked()
			if gen == p.rewriteGen { // no Rewrite superseded the batch: keep it
				requeue = append(requeue, batch...)
				p.truncate = truncate
			}
			p.queue = append(requeue, p.queue...)
			p.mu.Unlock()
			p.closeFile() // the next open cuts the file back to its durable length
			p.fileMu.Unlock()
			// reported before any Flush waiting for this batch returns
			p.logger.Error("records write failed", "path", p.path, "records", len(batch), "err", err)
			if p.onError != nil {
				p.onError(err)
			}
		}
		p.mu.Lock()
		p.broadcastLocked()
		p.mu.Unlock()
	}
}

// broadcastLocked wakes everyone waiting for a change; the caller holds mu.
func (p *FilePersistence) broadcastLocked() {
	close(p.changed)
	p.changed = make(chan struct{})
}

// takeInflightLocked returns the records of the batches written but not
// durable that no Rewrite superseded, and forgets them: the file is to be
// cut back to its durable length. The caller holds fileMu and mu.
func (p *FilePersistence) takeInflightLocked() []Record {
	var recs []Record
	for _, b := range p.inflight {
		if b.gen == p.rewriteGen {
			recs = append(recs, b.recs...)
		}
	}
	p.inflight = nil
	p.written = p.durable
	p.w.size, p.w.checked = p.durableEnd, false
	return recs
}

// recoverFromSyncFailure puts the records of a failed fsync (the syncer
// reported it) back at the head of the queue and closes the file; reopening it cuts it back to its
// durable length, so the records are written again, and only an fsync of
// that new write makes them durable (after a failed fsync the kernel may
// have dropped the pages it could not write).
func (p *FilePersistence) recoverFromSyncFailure() {
	p.fileMu.Lock()
	p.mu.Lock()
	p.syncErr = nil
	// Every batch in the file goes back to the queue, those written while
	// the fsync ran or after it failed too: the failure is theirs as well,
	// so a Flush whose retry one of them took hears of it.
	if n := len(p.inflight); n > 0 {
		p.lastErrID = max(p.lastErrID, p.inflight[n-1].id)
	}
	p.queue = append(p.takeInflightLocked(), p.queue...)
	p.broadcastLocked()
	p.mu.Unlock()
	p.closeFile()
	p.fileMu.Unlock()
}

// syncLoop is the sync goroutine: while records someone asked to be
// durable are written and not yet synced, it fsyncs the log (and, the first time, its
// directory and Parents), then completes the waits for the batches that
// were in the file when the fsync began.
func (p *FilePersistence) syncLoop() {
	defer close(p.syncDone)
	for {
		select {
		case <-p.syncWake:
			p.syncOnce()
		case <-p.syncStop:
			return
		}
	}
}

func (p *FilePersistence) syncOnce() {
	p.fileMu.Lock()
	defer p.fileMu.Unlock()
	p.mu.Lock()
	if p.syncErr != nil || p.written <= p.durable || len(p.inflight) == 0 || p.syncWanted <= p.durable {
		p.mu.Unlock()
		return
	}
	target, f, dir := p.written, p.syncFile, p.dirPending
	parents := p.parents != nil && !p.parentsOK
	last := p.inflight[len(p.inflight)-1]
	p.mu.Unlock()

	var err error
	if f != nil {
		err = f.Sync()
	}
	if err == nil && dir {
		err = p.fs.SyncDir(p.dir)
	}
	if err == nil && parents {
		err = p.parents()
	}

	var werr *WriteError
	if err != nil { // reported before any Flush waiting for these records returns
		werr = &WriteError{Path: p.path, Err: err}
		p.logger.Error("records sync failed", "path", p.path, "err", werr)
		if p.onError != nil {
			p.onError(werr)
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if err != nil {
		p.syncErr, p.failed, p.lastErr, p.lastErrID = werr, true, werr, last.id
		p.broadcastLocked()
		p.signal() // the writer puts the records back
		return
	}
	if target < p.durable {
		bug.Reportf("records durable count went back from %d to %d", p.durable, target)
	}
	p.durable, p.durableEnd = target, last.end
	p.failed, p.lastErr = false, nil
	p.inflight = slices.DeleteFunc(p.inflight, func(b inflight) bool { return b.upto <= target })
	p.dirPending = p.dirPending && !dir
	p.parentsOK = p.parentsOK || parents
	p.broadcastLocked()
}

// appendBatch offloads media, encodes the batch and appends it at the end
// of what was written; the syncer makes it durable. On error nothing of
// the batch counts as written.
func (p *FilePersistence) appendBatch(batch []Record, b inflight) error {
	// A log that went away fails before blobs are written beside it. An
	// open, checked log that is still in place needs no lock: only
	// closing, cutting or replacing it waits for a running fsync.
	if p.w.f == nil || !p.w.checked || p.checkSameFile() != nil {
		p.fileMu.Lock()
		err := p.openForAppend()
		p.fileMu.Unlock()
		if err != nil {
			return &WriteError{Path: p.path, Err: err}
		}
	}
	data, err := p.encodeBatch(batch)
	if err != nil {
		return &WriteError{Path: p.path, Err: err}
	}
	f := p.w.f
	_, err = f.Seek(p.w.size, io.SeekStart)
	if err == nil {
		_, err = f.Write(data)
	}
	if err != nil {
		// A partial write may be in the file; the caller closes it, and
		// the next open finds the file longer and cuts it back.
		return &WriteError{Path: p.path, Err: err}
	}
	p.w.size += int64(len(data))
	b.end = p.w.size
	p.mu.Lock()
	if b.upto < p.written {
		bug.Reportf("records written count went back from %d to %d", p.written, b.upto)
	}
	p.written, p.syncFile = b.upto, f
	p.inflight = append(p.inflight, b)
	p.broadcastLocked()
	if p.syncWanted > p.durable {
		p.wakeSyncer()
	}
	p.mu.Unlock()
	return nil
}

// wantSyncLocked asks for the records up to target to be made durable;
// the caller holds mu.
func (p *FilePersistence) wantSyncLocked(target uint64) {
	p.syncWanted = max(p.syncWanted, target)
	if p.written > p.durable {
		p.wakeSyncer()
	}
}

// wakeSyncer asks the syncer for an fsync of what is written.
func (p *FilePersistence) wakeSyncer() {
	select {
	case p.syncWake <- struct{}{}:
	default:
	}
}

// replaceBatch replaces the file with the batch (a Rewrite): durable when
// it returns nil, with whatever was written before it superseded.
func (p *FilePersistence) replaceBatch(batch []Record, upto uint64) error {
	data, err := p.encodeBatch(batch)
	if err != nil {
		return &WriteError{Path: p.path, Err: err}
	}
	p.fileMu.Lock()
	defer p.fileMu.Unlock()
	err = p.replaceFile(data)
	p.mu.Lock()
	parents := p.parents != nil && !p.parentsOK
	p.mu.Unlock()
	if err == nil && parents {
		err = p.parents()
	}
	if err != nil {
		return &WriteError{Path: p.path, Err: err}
	}
	p.mu.Lock()
	p.durable, p.written, p.durableEnd = upto, upto, int64(len(data))
	p.inflight, p.dirPending, p.parentsOK = nil, false, true
	p.failed, p.lastErr = false, nil
	p.mu.Unlock()
	return nil
}

// encodeBatch offloads media and encodes the batch as lines, in the
// writer's buffer: the bytes are good until the next batch.
func (p *FilePersistence) encodeBatch(batch []Record) ([]byte, error) {
	buf := &p.w.buf
	buf.Reset()
	size := 0
	for _, rec := range batch {
		size += rec.encodedSize() + 1
	}
	buf.Grow(size)
	newBlobs := false
	for _, rec := range batch {
		out, wrote, err := p.blobs.offload(rec)
		if err != nil {
			return nil, err
		}
		newBlobs = newBlobs || wrote
		out.writeTo(buf)
		buf.WriteByte('\n')
	}
	if newBlobs { // blobs must be durable before a line refers to them
		if err := p.fs.SyncDir(p.blobs.dir); err != nil {
			return nil, err
		}
		if err := p.fs.SyncDir(p.dir); err != nil {
			return nil, err
		}
	}
	return buf.Bytes(), nil
}

// openForAppend opens wire.jsonl when needed, has the syncer make its
// directory entry durable, repairs a torn tail once, and checks that the file ends where
// the last durable batch ended. A log that disappeared or was replaced
// under the open file (its session directory deleted while kimigo runs) is
// an ErrLogRemoved failure: writing on would land in an unlinked file, and
// creating it again would resurrect a session the user deleted.
func (p *FilePersistence) openForAppend() error {
	if p.w.removed {
		return &fs.PathError{Op: "open", Path: p.path, Err: ErrLogRemoved}
	}
	if p.w.f != nil {
		if err := p.checkSameFile(); err != nil {
			p.closeFile()
			return err
		}
	}
	if p.w.f != nil && p.w.checked {
		return nil
	}
	if p.w.f == nil {
		flag := os.O_RDWR | os.O_CREATE
		if p.w.existed {
			flag = os.O_RDWR
		}
		f, err := p.fs.OpenFile(p.path, flag, 0o600)
		if errors.Is(err, fs.ErrNotExist) && p.w.existed {
			p.w.removed = true
			return &fs.PathError{Op: "open", Path: p.path, Err: ErrLogRemoved}
		}
		if err != nil {
			return err
		}
		p.w.f, p.w.checked, p.w.existed = f, false, true
	}
	if !p.w.dirSynced { // the syncer makes the entry durable with the first batch
		p.mu.Lock()
		p.dirPending = true
		p.mu.Unlock()
		p.w.dirSynced = true
	}
	st, err := p.w.f.Stat()
	if err != nil {
		return err
	}
	switch {
	case !p.w.repaired:
		size, err := repairTail(p.w.f, st.Size())
		if err != nil {
			return err
		}
		if size != st.Size() {
			p.logger.Warn("repaired torn last line", "path", p.path, "from", st.Size(), "to", size)
		}
		p.w.size, p.w.repaired = size, true
		p.mu.Lock()
		p.durableEnd = size
		p.mu.Unlock()
	case st.Size() > p.w.size: // left over from a failed write
		if err := p.w.f.Truncate(p.w.size); err != nil {
			return err
		}
	case st.Size() < p.w.size:
		p.logger.Error("records file shrank under the writer", "path", p.path, "want", p.w.size, "have", st.Size())
		p.w.size = st.Size()
	}
	p.w.checked = true
	return nil
}

// repairTail makes the file end with "\n" before anything is appended: an
// unterminated last line that is a record gets its newline, anything else
// after the last "\n" (a torn write) is cut off. It returns the new size.
func repairTail(f osenv.File, size int64) (int64, error) {
	if size == 0 {
		return 0, nil
	}
	var last [1]byte
	if _, err := f.ReadAt(last[:], size-1); err != nil {
		return 0, err
	}
	if last[0] == '\n' {
		return size, nil
	}
	start, err := lastNewline(f, size)
	if err != nil {
		return 0, err
	}
	tail := make([]byte, size-start)
	if _, err := f.ReadAt(tail, start); err != nil {
		return 0, err
	}
	if tailIsRecord(tail, start) {
		if _, err := f.Seek(size, io.SeekStart); err != nil {
			return 0, err
		}
		if _, err := f.Write([]byte{'\n'}); err != nil {
			return 0, err
		}
		size++
	} else {
		if err := f.Truncate(start); err != nil {
			return 0, err
		}
		size = start
	}
	return size, f.Sync()
}

// lastNewline returns the offset just after the last "\n" in the first
// size bytes of f, or 0 when there is none.
func lastNewline(f osenv.File, size int64) (int64, error) {
	buf := make([]byte, 64<<10)
	end := size
	for end > 0 {
		n := min(int64(len(buf)), end)
		chunk := buf[:n]
		if _, err := f.ReadAt(chunk, end-n); err != nil {
			return 0, err
		}
		if i := bytes.LastIndexByte(chunk, '\n'); i >= 0 {
			return end - n + int64(i) + 1, nil
		}
		end -= n
	}
	return 0, nil
}

// replaceFile writes data to wire.jsonl.tmp, syncs it and renames it over
// the log, then syncs the directory: after a crash the log is either the
// old content or the new, never a mix.
func (p *FilePersistence) replaceFile(data []byte) error {
	p.closeFile()
	tmp := p.path + ".tmp"
	f, err := p.fs.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	err = osenv.WriteSyncClose(f, data)
	if err == nil {
		err = p.fs.Rename(tmp, p.path)
	}
	if err == nil {
		err = p.fs.SyncDir(p.dir)
	}
	if err != nil {
		return err
	}
	p.w.size, p.w.repaired, p.w.dirSynced, p.w.existed = int64(len(data)), true, true, true
	return nil
}

// checkSameFile reports ErrLogRemoved when the path of the log no longer
// names the open file.
func (p *FilePersistence) checkSameFile() error {
	at, err := p.fs.Stat(p.path)
	if errors.Is(err, fs.ErrNotExist) {
		p.w.removed = true
		return &fs.PathError{Op: "stat", Path: p.path, Err: ErrLogRemoved}
	}
	if err != nil {
		return err
	}
	open, err := p.w.f.Stat()
	if err != nil {
		return err
	}
	if at.Sys() != nil && open.Sys() != nil && !os.SameFile(at, open) {
		p.w.removed = true
		return &fs.PathError{Op: "stat", Path: p.path, Err: ErrLogRemoved}
	}
	return nil
}

// closeFile closes the log; the caller holds fileMu.
func (p *FilePersistence) closeFile() {
	if p.w.f == nil {
		return
	}
	if err := p.w.f.Close(); err != nil {
		p.logger.Debug("close records file", "path", p.path, "err", err)
	}
	p.w.f, p.w.checked = nil, false
	p.mu.Lock()
	p.syncFile = nil
	p.mu.Unlock()
}

// ErrLogRemoved reports a log whose file was deleted or replaced while it
// was open. Nothing is created in its place.
var ErrLogRemoved = errors.New("the log was removed or replaced while it was open; nothing was written in its place")

// WriteError is a failed write of records. It names the log and wraps the
// cause; its text spells out the errno (ENOSPC, EIO, EDQUOT, EROFS, …).
// The records stay queued and the next Flush retries them.
type WriteError struct {
	Path string
	Err  error
}

func (e *WriteError) Error() string {
	msg := e.Err.Error()
	var pe *fs.PathError
	if errors.As(e.Err, &pe) && pe.Path == e.Path {
		msg = pe.Op + ": " + pe.Err.Error()
	}
	if name := osenv.ErrnoName(e.Err); name != "" {
		msg += " (" + name + ")"
	}
	return fmt.Sprintf("write records %s: %s", e.Path, msg)
}

// Unwrap returns the cause.
func (e *WriteError) Unwrap() error { return e.Err }
