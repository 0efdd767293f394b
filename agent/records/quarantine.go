package records

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strings"

	"github.com/kimigo/kimigo/osenv"
)

// QuarantineSuffix names the side file next to a log that keeps the bytes
// of its corrupt lines: wire.jsonl.quarantine.
const QuarantineSuffix = ".quarantine"

// Quarantined describes a corrupt line of a log that a read skipped.
type Quarantined struct {
	// Path is the log, Line the 1-based line number the line had in it.
	Path string
	Line int
	// Bytes is the length of the line, line ending included.
	Bytes int
	// SideFile holds the line's original bytes, after a header naming the
	// line; "" when they could not be saved there (the line then stays in
	// the log, and the next read skips it again).
	SideFile string
	// Removed reports that the line was taken out of the log.
	Removed bool
	// Reason says why the line's record was refused (RefusedError); ""
	// for a line that is not a record at all.
	Reason string
}

// String is the warning shown to the user.
func (q Quarantined) String() string {
	if q.Reason != "" {
		what := fmt.Sprintf("set aside line %d of %s, a record that cannot be restored (%s)", q.Line, q.Path, q.Reason)
		switch {
		case q.Removed:
			return what + "; its bytes were moved to " + q.SideFile
		case q.SideFile != "":
			return what + "; its bytes were copied to " + q.SideFile
		default:
			return what + "; it stays in the log"
		}
	}
	switch {
	case q.Removed:
		return fmt.Sprintf("skipped corrupt line %d of %s; its bytes were moved to %s", q.Line, q.Path, q.SideFile)
	case q.SideFile != "":
		return fmt.Sprintf("skipped corrupt line %d of %s; its bytes were copied to %s", q.Line, q.Path, q.SideFile)
	default:
		return fmt.Sprintf("skipped corrupt line %d of %s; it stays in the log", q.Line, q.Path)
	}
}

// errLineChanged stops a removal whose lines are no longer where the read
// found them.
var errLineChanged = errors.New("the corrupt line changed since it was read")

// quarantineHeader introduces a line in the side file. It holds no time, so
// the same line saved twice (a removal that failed, then a second read) is
// recognised and saved once.
func quarantineHeader(b badLine) []byte {
	if b.reason != "" {
		return fmt.Appendf(nil, "# quarantined %s line %d (byte offset %d, %d bytes; %s):\n", LogFileName, b.line, b.off,
			len(b.raw), oneLine(b.reason))
	}
	return fmt.Appendf(nil, "# quarantined %s line %d (byte offset %d, %d bytes):\n", LogFileName, b.line, b.off, len(b.raw))
}

// oneLine keeps a reason on the header's line.
func oneLine(s string) string { return strings.ReplaceAll(s, "\n", " ") }

// quarantine handles the corrupt lines one read skipped: it saves their
// bytes in the side file (synced) and only then has the writer take them
// out of the log, so the bytes are always in one of the two. It never
// fails: what it cannot do is logged, and the lines stay in the log.
func (p *FilePersistence) quarantine(bad []badLine) {
	side := p.path + QuarantineSuffix
	saved := true
	if err := p.saveQuarantined(side, bad); err != nil {
		saved = false
		p.logger.Warn("save corrupt record lines", "path", side, "err", err)
	}
	removed := false
	if saved {
		err := p.askWriter(func() error { return p.removeLines(bad) })
		if err != nil {
			p.logger.Warn("take corrupt lines out of the log", "path", p.path, "err", err)
		}
		removed = err == nil
	}
	for _, b := range bad {
		q := Quarantined{Path: p.path, Line: b.line, Bytes: len(b.raw), Removed: removed, Reason: b.reason}
		if saved {
			q.SideFile = side
		}
		p.logger.Warn("skipped corrupt record line", "path", p.path, "line", b.line, "side_file", q.SideFile,
			"removed", removed, "reason", b.reason)
		if p.onQuar != nil {
			p.onQuar(q)
		}
	}
}

// saveQuarantined appends each line that the side file does not hold yet,
// with its header, and syncs the file and, when it is new, the directory.
func (p *FilePersistence) saveQuarantined(side string, bad []badLine) error {
	existing, err := p.fs.ReadFile(side)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	created := errors.Is(err, fs.ErrNotExist)
	var buf bytes.Buffer
	for _, b := range bad {
		entry := append(quarantineHeader(b), b.raw...)
		if !bytes.HasSuffix(entry, []byte("\n")) {
			entry = append(entry, '\n')
		}
		if !bytes.Contains(existing, entry) {
			buf.Write(entry)
		}
	}
	if buf.Len() == 0 {
		return nil
	}
	f, err := p.fs.OpenFile(side, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	err = osenv.WriteSyncClose(f, buf.Bytes())
	if err == nil && created {
		err = p.fs.SyncDir(p.dir)
	}
	return err
}

// askWriter runs fn on the writer goroutine, between two batches, and
// returns its error.
func (p *FilePersistence) askWriter(fn func() error) error {
	req := writerTask{fn: fn, done: make(chan error, 1)}
	select {
	case p.tasks <- req:
	case <-p.done:
		return ErrClosed
	}
	select {
	case err := <-req.done:
		return err
	case <-p.done:
		return ErrClosed
	}
}

// writerTask is work for the writer goroutine besides batches.
type writerTask struct {
	fn   func() error
	done chan error
}

// removeLines replaces the log by a copy without the bad lines (through
// wire.jsonl.tmp, synced and renamed, like a rewrite). Every line must
// still hold the bytes the read found at its offset; otherwise nothing
// changes. It runs on the writer goroutine.
func (p *FilePersistence) removeLines(bad []badLine) error {
	if p.w.removed {
		return ErrLogRemoved
	}
	p.closeFile()
	src, err := p.fs.OpenFile(p.path, os.O_RDONLY, 0)
	if err != nil {
		return err
	}
	defer func() { _ = src.Close() }() // read-only
	st, err := src.Stat()
	if err != nil {
		return err
	}
	size := st.Size()
	if p.w.repaired && p.w.size < size {
		size = p.w.size // bytes past it are left over from a failed write
	}
	bad = slices.Clone(bad)
	slices.SortFunc(bad, func(a, b badLine) int { return int(a.off - b.off) })
	var removed int64
	for _, b := range bad {
		end := b.off + int64(len(b.raw))
		got := make([]byte, len(b.raw))
		if end > size {
			return errLineChanged
		}
		if _, err := src.ReadAt(got, b.off); err != nil {
			return err
		}
		if !bytes.Equal(got, b.raw) {
			return errLineChanged
		}
		removed += int64(len(b.raw))
	}

	tmp := p.path + ".tmp"
	dst, err := p.fs.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	var pos int64
	for _, b := range bad {
		if _, err = io.Copy(dst, io.NewSectionReader(src, pos, b.off-pos)); err != nil {
			break
		}
		pos = b.off + int64(len(b.raw))
	}
	if err == nil {
		_, err = io.Copy(dst, io.NewSectionReader(src, pos, size-pos))
	}
	err = osenv.SyncClose(dst, err)
	if err == nil {
		err = p.fs.Rename(tmp, p.path)
	}
	if err != nil {
		if rerr := p.fs.Remove(tmp); rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
			p.logger.Debug("remove temporary log copy", "path", tmp, "err", rerr)
		}
		return err
	}
	if p.w.repaired {
		p.w.size = size - removed
	}
	p.w.existed = true
	if err := p.fs.SyncDir(p.dir); err != nil {
		return err
	}
	if p.w.repaired { // the copy holds every batch written so far, synced
		p.mu.Lock()
		p.durable, p.durableEnd, p.inflight = p.written, p.w.size, nil
		p.broadcastLocked()
		p.mu.Unlock()
	}
	return nil
}
