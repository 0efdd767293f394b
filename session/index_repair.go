package session

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/kimigo/kimigo/osenv"
)

// IndexQuarantineSuffix names the side file next to the index that keeps
// the bytes of its corrupt lines: session_index.jsonl.quarantine.
const IndexQuarantineSuffix = ".quarantine"

// quarantineIndex copies the corrupt lines the side file does not hold
// yet into it (each after a header naming the line) and syncs it. Readers
// skip the lines and leave them in the index: other processes append to
// the index without a lock, so only RepairIndex rewrites it. It returns
// how many lines were new to the side file; each of those is logged as a
// warning naming the file and the line.
func (s *Store) quarantineIndex(bad []corruptLine) (int, error) {
	side := s.indexPath() + IndexQuarantineSuffix
	existing, err := s.fs.ReadFile(side)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return 0, err
	}
	var buf bytes.Buffer
	var fresh []corruptLine
	for _, b := range bad {
		entry := append(fmt.Appendf(nil, "# quarantined %s line %d (byte offset %d, %d bytes):\n",
			IndexFileName, b.line, b.off, len(b.raw)), b.raw...)
		if !bytes.Contains(existing, entry) {
			buf.Write(entry)
			fresh = append(fresh, b)
		}
	}
	if buf.Len() == 0 {
		return 0, nil
	}
	f, err := s.fs.OpenFile(side, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return 0, err
	}
	err = osenv.WriteSyncClose(f, buf.Bytes())
	if err != nil {
		return 0, err
	}
	for _, b := range fresh {
		s.logger.Warn("skipped corrupt session index line", "path", s.indexPath(), "line", b.line, "side_file", side)
		if s.warn != nil {
			s.warn(fmt.Sprintf("skipped corrupt line %d of %s; its bytes were copied to %s", b.line, s.indexPath(), side))
		}
	}
	return len(fresh), nil
}

// IndexRepair is what RepairIndex found and did.
type IndexRepair struct {
	// Path is the index, SideFile the file that keeps corrupt lines.
	Path, SideFile string
	// Corrupt lists the 1-based numbers of the corrupt lines taken out of
	// the index (their bytes are in SideFile).
	Corrupt []int
	// Reindex counts the entries rebuilt from the session directories.
	Reindex ReindexResult
}

// RepairIndex is the repair behind `kimigo doctor`: it saves the corrupt
// lines of the index in the side file, rewrites the index without them
// (atomically; every other byte stays), then rebuilds missing or stale
// entries from the session directories and their records (Reindex). The
// index is derived data: a line another process appends during the
// rewrite is rebuilt by the Reindex that follows.
func (s *Store) RepairIndex() (IndexRepair, error) {
	rep := IndexRepair{Path: s.indexPath(), SideFile: s.indexPath() + IndexQuarantineSuffix}
	s.indexMu.Lock()
	data, err := s.fs.ReadFile(rep.Path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		s.indexMu.Unlock()
		return rep, fmt.Errorf("read session index %s: %w", rep.Path, err)
	}
	bad := parseIndex(data, s.sessionsDir()).bad
	if len(bad) > 0 {
		if _, err := s.quarantineIndex(bad); err != nil {
			s.indexMu.Unlock()
			return rep, fmt.Errorf("save corrupt session index lines in %s: %w", rep.SideFile, err)
		}
		var kept bytes.Buffer
		pos := int64(0)
		for _, b := range bad {
			kept.Write(data[pos:b.off])
			pos = b.off + int64(len(b.raw))
			rep.Corrupt = append(rep.Corrupt, b.line)
		}
		kept.Write(data[pos:])
		if err := osenv.WriteFileAtomic(s.fs, rep.Path, kept.Bytes(), 0o600); err != nil {
			s.indexMu.Unlock()
			return rep, fmt.Errorf("rewrite session index %s: %w", rep.Path, err)
		}
	}
	s.indexMu.Unlock()
	rep.Reindex = s.Reindex()
	return rep, nil
}
