package session

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/kimigo/kimigo/osenv"
)

// IndexFileName is the session index under the data root.
const IndexFileName = "session_index.jsonl"

// indexLine is one line of the index: an entry, or a deletion.
type indexLine struct {
	SessionID  string `json:"sessionId"`
	SessionDir string `json:"sessionDir,omitempty"`
	WorkDir    string `json:"workDir,omitempty"`
	Deleted    bool   `json:"deleted,omitempty"`
}

// indexEntry is where the index says a session lives.
type indexEntry struct {
	ID, Dir, WorkDir string
}

// index is the folded content of the index file: the live entries by id,
// the ids in order of their last entry, and the corrupt lines skipped.
type index struct {
	byID  map[string]indexEntry
	order []string
	bad   []corruptLine
}

// corruptLine is a terminated line of the index that is not JSON.
type corruptLine struct {
	line int    // 1-based
	off  int64  // offset of its first byte
	raw  []byte // its bytes, newline included
}

// parseIndex folds the lines of the index (spec 02 §6.15): unparsable
// lines and lines missing fields are ignored; a deletion removes the id; a
// later entry overrides an earlier one (and re-adds a deleted id); entries
// whose directory is not absolute, not inside sessionsDir, or not named
// after the id are ignored.
func parseIndex(data []byte, sessionsDir string) index {
	idx := index{byID: map[string]indexEntry{}}
	n, off := 0, int64(0)
	for line := range bytes.Lines(data) {
		n++
		start := off
		off += int64(len(line))
		var l indexLine
		if err := json.Unmarshal(line, &l); err != nil {
			// An unterminated last line may be an append in progress;
			// it is skipped, not quarantined.
			if bytes.HasSuffix(line, []byte("\n")) && len(bytes.TrimSpace(line)) > 0 {
				idx.bad = append(idx.bad, corruptLine{line: n, off: start, raw: line})
			}
			continue
		}
		if ValidateID(l.SessionID) != nil {
			continue
		}
		if l.Deleted {
			delete(idx.byID, l.SessionID)
			continue
		}
		if l.SessionDir == "" || l.WorkDir == "" || !validIndexDir(l.SessionDir, l.SessionID, sessionsDir) {
			continue
		}
		idx.byID[l.SessionID] = indexEntry{ID: l.SessionID, Dir: filepath.Clean(l.SessionDir), WorkDir: l.WorkDir}
		idx.order = append(idx.order, l.SessionID)
	}
	return idx
}

func validIndexDir(dir, id, sessionsDir string) bool {
	if !filepath.IsAbs(dir) {
		return false
	}
	dir = filepath.Clean(dir)
	rel, err := filepath.Rel(sessionsDir, dir)
	return err == nil && rel != "." && filepath.IsLocal(rel) && filepath.Base(dir) == id
}

// entries lists the live entries, each once, in order of their last line.
func (idx index) entries() []indexEntry {
	var out []indexEntry
	seen := map[string]bool{}
	for i := len(idx.order) - 1; i >= 0; i-- {
		id := idx.order[i]
		e, ok := idx.byID[id]
		if !ok || seen[id] {
			continue
		}
		seen[id] = true
		out = append(out, e)
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}

// readIndex reads and folds the index file; a missing file is empty.
// Corrupt lines are skipped and their bytes copied to the side file
// (quarantineIndex).
func (s *Store) readIndex() (index, error) {
	b, err := s.fs.ReadFile(s.indexPath())
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return index{}, fmt.Errorf("read session index: %w", err)
	}
	idx := parseIndex(b, s.sessionsDir())
	if len(idx.bad) > 0 {
		if _, err := s.quarantineIndex(idx.bad); err != nil {
			s.logger.Warn("save corrupt session index lines", "path", s.indexPath()+IndexQuarantineSuffix, "err", err)
		}
	}
	return idx, nil
}

// appendIndex appends one line with a single O_APPEND write and syncs it.
// Appends are serialised within the process. If a crash tore the last
// line, the new line starts on a line of its own, so only the torn line is
// lost (and readers skip it).
func (s *Store) appendIndex(l indexLine) error { return s.appendIndexLine(l, true) }

// appendIndexLine appends l; without sync the caller makes the index
// durable later (osenv.SyncFile).
func (s *Store) appendIndexLine(l indexLine, sync bool) error {
	b, err := json.Marshal(l)
	if err != nil {
		return fmt.Errorf("encode session index line: %w", err)
	}
	s.indexMu.Lock()
	defer s.indexMu.Unlock()
	if err := s.fs.MkdirAll(s.root, 0o700); err != nil {
		return fmt.Errorf("append session index: %w", err)
	}
	name := s.indexPath()
	f, err := s.fs.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o600) // read: the torn-tail check
	if err != nil {
		return fmt.Errorf("append session index: %w", err)
	}
	line := append(b, '\n')
	if torn, err := endsTorn(f); err != nil {
		_ = f.Close() // nothing was written
		return fmt.Errorf("append session index %s: %w", name, err)
	} else if torn {
		line = append([]byte{'\n'}, line...)
	}
	_, err = f.Write(line)
	if sync {
		err = osenv.SyncClose(f, err)
	} else {
		err = errors.Join(err, f.Close())
	}
	if err != nil {
		return fmt.Errorf("append session index %s: %w", name, err)
	}
	return nil
}

// endsTorn reports a non-empty file whose last byte is not a newline.
func endsTorn(f osenv.File) (bool, error) {
	fi, err := f.Stat()
	if err != nil || fi.Size() == 0 {
		return false, err
	}
	var last [1]byte
	if _, err := f.ReadAt(last[:], fi.Size()-1); err != nil {
		return false, err
	}
	return last[0] != '\n', nil
}
