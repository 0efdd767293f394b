package session

import (
	"cmp"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// wireFileName is an agent's record log (records.LogFileName); the store
// only looks at its modification time.
const wireFileName = "wire.jsonl"

// Summary describes one session for listings and lookups (spec 02 §6.15,
// spec 06 §4.2).
type Summary struct {
	ID string
	// WorkDir is state.json's workDir, else the index's, else the bucket's.
	WorkDir string
	// Dir is the session directory.
	Dir string
	// CreatedAt is state.json's createdAt, else the directory's mtime.
	CreatedAt time.Time
	// UpdatedAt is the latest mtime of the directory, state.json and the
	// agents' wire.jsonl files.
	UpdatedAt  time.Time
	Title      string
	LastPrompt string
	Archived   bool
	// Turns is state.json's count of user prompts; 0 when unknown.
	Turns int
	// Metadata is state.json's custom object (client metadata).
	Metadata map[string]json.RawMessage
}

// Label names the session for a question to the user: `<title> (<id>)`,
// or just the id when it has no title.
func (s Summary) Label() string {
	if s.Title == "" {
		return s.ID
	}
	return s.Title + " (" + s.ID + ")"
}

// ListOptions select the sessions List returns.
type ListOptions struct {
	// WorkDir limits the list to the sessions of one work dir; "" lists
	// every session in the index.
	WorkDir string
	// Archived includes archived sessions.
	Archived bool
}

// List returns sessions ordered by UpdatedAt (newest first), then
// CreatedAt (newest first), then id. By work dir it scans the work dir's
// bucket and adds index entries recorded for the same work dir; otherwise
// it reads the index. Entries it cannot read are skipped.
func (s *Store) List(opts ListOptions) ([]Summary, error) {
	idx, err := s.readIndex()
	if err != nil {
		return nil, err
	}
	var out []Summary
	seen := map[string]bool{}
	// inDir matches a session's work dir with opts.WorkDir: by path first,
	// then as the same directory on disk, so a symbolic link to the work
	// dir (or the real path of a session started through one) finds it.
	// The stat is only paid for entries whose path differs.
	var wdInfo fs.FileInfo
	if opts.WorkDir != "" {
		wdInfo, _ = s.fs.Stat(opts.WorkDir)
	}
	inDir := func(workDir string) bool {
		if opts.WorkDir == "" || SameWorkDir(workDir, opts.WorkDir) {
			return true
		}
		if wdInfo == nil {
			return false
		}
		fi, err := s.fs.Stat(workDir)
		return err == nil && os.SameFile(fi, wdInfo)
	}
	add := func(id, dir, workDir string) {
		if seen[id] {
			return
		}
		seen[id] = true
		sum, err := s.summarize(id, dir, workDir)
		switch {
		case errors.Is(err, ErrNotFound):
		case err != nil:
			s.logger.Warn("skip unreadable session", "session_id", id, "dir", dir, "err", err)
		case !inDir(sum.WorkDir):
		case sum.Archived && !opts.Archived:
		default:
			out = append(out, sum)
		}
	}
	if opts.WorkDir != "" {
		bucket := s.bucketDir(opts.WorkDir)
		entries, err := s.fs.ReadDir(bucket)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		for _, e := range entries {
			if e.IsDir() && ValidateID(e.Name()) == nil {
				dir := filepath.Join(bucket, e.Name())
				wd := NormalizeWorkDir(opts.WorkDir)
				if ie, ok := idx.byID[e.Name()]; ok && ie.Dir == dir {
					wd = ie.WorkDir
				}
				add(e.Name(), dir, wd)
			}
		}
	}
	for _, e := range idx.entries() {
		if inDir(e.WorkDir) {
			add(e.ID, e.Dir, e.WorkDir)
		}
	}
	slices.SortFunc(out, compareSummaries)
	return out, nil
}

// compareSummaries is the listing order of spec 06 §4.2.
func compareSummaries(a, b Summary) int {
	if c := b.UpdatedAt.Compare(a.UpdatedAt); c != 0 {
		return c
	}
	if c := b.CreatedAt.Compare(a.CreatedAt); c != 0 {
		return c
	}
	return cmp.Compare(a.ID, b.ID)
}

// summarize builds the summary of the session in dir. A missing directory
// is a CodeNotFound error; a missing or invalid state.json is tolerated
// (the summary then has what the files say).
func (s *Store) summarize(id, dir, fallbackWorkDir string) (Summary, error) {
	fi, err := s.fs.Stat(dir)
	if errors.Is(err, fs.ErrNotExist) || (err == nil && !fi.IsDir()) {
		return Summary{}, &Error{Code: CodeNotFound, ID: id, Path: dir}
	}
	if err != nil {
		return Summary{}, err
	}
	st, err := readState(s.fs, dir)
	if err != nil {
		s.logger.Debug("session state unreadable", "session_id", id, "err", err)
	}
	sum := Summary{ID: id, Dir: dir, WorkDir: st.WorkDir, Title: st.DisplayTitle(),
		LastPrompt: st.LastPrompt, Archived: st.Archived, Turns: st.Turns, Metadata: st.Custom}
	if sum.WorkDir == "" {
		sum.WorkDir = cmp.Or(fallbackWorkDir, st.legacyCwd())
	}
	sum.CreatedAt = fi.ModTime()
	if t, ok := parseTime(st.CreatedAt); ok {
		sum.CreatedAt = t
	}
	sum.UpdatedAt = s.latestModTime(dir, fi.ModTime())
	return sum, nil
}

// latestModTime is the newest mtime among the directory (given), its
// state.json, a legacy top-level wire.jsonl and agents/*/wire.jsonl.
func (s *Store) latestModTime(dir string, latest time.Time) time.Time {
	consider := func(name string) {
		if fi, err := s.fs.Stat(name); err == nil && fi.ModTime().After(latest) {
			latest = fi.ModTime()
		}
	}
	consider(filepath.Join(dir, StateFileName))
	consider(filepath.Join(dir, wireFileName))
	agents, _ := s.fs.ReadDir(filepath.Join(dir, "agents")) // none yet: nothing to consider
	for _, a := range agents {
		if a.IsDir() && !strings.HasPrefix(a.Name(), ".") {
			consider(filepath.Join(dir, "agents", a.Name(), wireFileName))
		}
	}
	return latest
}
