package records

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/kimigo/kimigo/internal/bug"
	"github.com/kimigo/kimigo/osenv"
)

// writerState belongs to the writer goroutine alone.
type writerState struct {
	f         osenv.File // wire.jsonl open for writing, or nil
	size      int64      // length of the file up to the last durable batch
	checked   bool       // f's length was checked against size since it was opened
	repaired  bool       // the torn tail left by a crash has been dealt with
	dirSynced bool       // the directory entry of wire.jsonl is durable
	existed   bool       // wire.jsonl was opened once: it is never created again
	removed   bool       // wire.jsonl went away under the writer: nothing is written any more
}

// run is the writer goroutine: it drains the queue whenever woken, until
// Close stops it.
func (p *FilePersistence) run() {
	defer close(p.done)
	defer p.closeFile()
	for {
		select {
		case <-p.wake:
			p.drain()
		case t := <-p.tasks:
			t.done <- t.fn()
		case <-p.stop:
			return
		}
	}
}

// drain writes batches until the queue is empty, or until a batch failed
// and no Flush has asked for another attempt.
func (p *FilePersistence) drain() {
	for {
		p.mu.Lock()
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

		err := p.writeBatch(batch, truncate)

		p.mu.Lock()
		if err == nil {
			if upto < p.durable {
				bug.Reportf("records durable count went back from %d to %d", p.durable, upto)
			}
			p.durable, p.failed, p.retry, p.lastErr = upto, false, false, nil
		} else {
			p.failed, p.lastErr, p.lastErrID = true, err, id
			if gen == p.rewriteGen { // no Rewrite superseded the batch: keep it
				p.queue = append(batch, p.queue...)
				p.truncate = truncate
			}
		}
		p.mu.Unlock()

		if err != nil { // reported before any Flush waiting for this batch returns
			p.logger.Error("records write failed", "path", p.path, "records", len(batch), "err", err)
			if p.onError != nil {
				p.onError(err)
			}
		}
		p.mu.Lock()
		close(p.changed)
		p.changed = make(chan struct{})
		p.mu.Unlock()
	}
}

// writeBatch offloads media, encodes the batch and either appends it or
// replaces the file with it. On error nothing of the batch counts as
// written: a retry starts again from the last durable length.
func (p *FilePersistence) writeBatch(batch []Record, truncate bool) error {
	if !truncate { // a log that went away fails before blobs are written beside it
		if err := p.openForAppend(); err != nil {
			return &WriteError{Path: p.path, Err: err}
		}
	}
	var buf bytes.Buffer
	newBlobs := false
	for _, rec := range batch {
		out, wrote, err := p.blobs.offload(rec)
		if err != nil {
			return &WriteError{Path: p.path, Err: err}
		}
		newBlobs = newBlobs || wrote
		buf.Write(out.encode())
		buf.WriteByte('\n')
	}
	if newBlobs { // blobs must be durable before a line refers to them
		if err := p.fs.SyncDir(p.blobs.dir); err != nil {
			return &WriteError{Path: p.path, Err: err}
		}
		if err := p.fs.SyncDir(p.dir); err != nil {
			return &WriteError{Path: p.path, Err: err}
		}
	}
	var err error
	if truncate {
		err = p.replaceFile(buf.Bytes())
	} else {
		err = p.appendFile(buf.Bytes())
	}
	if err != nil {
		return &WriteError{Path: p.path, Err: err}
	}
	return nil
}

// appendFile writes data at the durable end of the log and fsyncs.
func (p *FilePersistence) appendFile(data []byte) error {
	if err := p.openForAppend(); err != nil {
		return err
	}
	f := p.w.f
	_, err := f.Seek(p.w.size, io.SeekStart)
	if err == nil {
		_, err = f.Write(data)
	}
	if err == nil {
		err = f.Sync()
	}
	if err != nil {
		// A partial write may be in the file; the next attempt reopens,
		// finds the file longer than size and cuts it back.
		_ = f.Truncate(p.w.size) // best effort; openForAppend checks again
		p.closeFile()
		return err
	}
	p.w.size += int64(len(data))
	return nil
}

// openForAppend opens wire.jsonl when needed, makes its directory entry
// durable, repairs a torn tail once, and checks that the file ends where
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
	if !p.w.dirSynced {
		if err := p.fs.SyncDir(p.dir); err != nil {
			return err
		}
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

func (p *FilePersistence) closeFile() {
	if p.w.f == nil {
		return
	}
	if err := p.w.f.Close(); err != nil {
		p.logger.Debug("close records file", "path", p.path, "err", err)
	}
	p.w.f, p.w.checked = nil, false
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
