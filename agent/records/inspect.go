package records

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sync"

	"github.com/kimigo/kimigo/osenv"
)

// Inspection is a Persistence over the log at a path that only reads, for
// checks such as `kimigo doctor`: a Read skips the corrupt lines and the
// records its reader refuses (Refuse) exactly as FilePersistence does, but
// saves, removes and writes nothing, and takes no lock; Problems lists
// what it skipped. Append, Rewrite and Flush go nowhere. It is safe for
// concurrent use.
type Inspection struct {
	fs   osenv.FS
	path string

	mu    sync.Mutex
	found []Quarantined // guarded by mu
}

var _ Persistence = (*Inspection)(nil)

// Inspect returns an Inspection of the log at path; fsys nil means
// osenv.LocalFS{}.
func Inspect(fsys osenv.FS, path string) *Inspection {
	if fsys == nil {
		fsys = osenv.LocalFS{}
	}
	return &Inspection{fs: fsys, path: path}
}

// Path returns the inspected log's path.
func (i *Inspection) Path() string { return i.path }

// Read yields the log's records like FilePersistence.Read, skipping what
// it would quarantine; Problems then lists those lines, with SideFile
// naming where a resume would move them. A missing log has no records.
func (i *Inspection) Read(ctx context.Context, yield func(Record) error) error {
	f, err := i.fs.OpenFile(i.path, os.O_RDONLY, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read records: %w", err)
	}
	defer func() { _ = f.Close() }() // read-only
	lr := newLineReader(f, i.path)
	err = scanLines(ctx, lr, yield)
	i.mu.Lock()
	defer i.mu.Unlock()
	for _, b := range lr.bad {
		i.found = append(i.found, Quarantined{Path: i.path, Line: b.line, Bytes: len(b.raw),
			SideFile: i.path + QuarantineSuffix, Reason: b.reason})
	}
	return err
}

// Problems returns the lines the reads so far skipped, in order.
func (i *Inspection) Problems() []Quarantined {
	i.mu.Lock()
	defer i.mu.Unlock()
	return append([]Quarantined(nil), i.found...)
}

// Append, Rewrite, Flush and Close do nothing: an inspection never
// writes.
func (*Inspection) Append(Record) error         { return nil }
func (*Inspection) Rewrite([]Record) error      { return nil }
func (*Inspection) Flush(context.Context) error { return nil }
func (*Inspection) Close(context.Context) error { return nil }
