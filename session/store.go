package session

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/kimigo/kimigo/internal/runes"
	"github.com/kimigo/kimigo/osenv"
)

// SessionsDirName is the directory of the work-dir buckets under the data
// root.
const SessionsDirName = "sessions"

// maxTitleRunes caps titles, custom or taken from a prompt (spec 06 §4.3).
const maxTitleRunes = 200

// StoreOptions configure a Store.
type StoreOptions struct {
	// FS is the file system; nil means osenv.LocalFS{}.
	FS osenv.FS
	// Root is the data root ($KIMIGO_HOME, else ~/.kimigo), an absolute
	// path. It is created (0700) when a session is first created.
	Root string
	// Now is the clock of state.json timestamps; nil means time.Now.
	Now func() time.Time
	// NewID mints session ids; nil means NewID.
	NewID func() string
	// Logger receives skipped entries and repairs; nil discards.
	Logger *slog.Logger
	// OnWarning, when set, hears what the user should see about the
	// store: a corrupt index line skipped (and copied to the side file),
	// naming the file and the line; once per line.
	OnWarning func(msg string)
}

// Store is the session store under one data root (spec 02 §6.15, spec 06
// §4): the session directories <root>/sessions/<workDirKey>/<id>/, their
// state.json, and the append-only index <root>/session_index.jsonl. Only
// RepairIndex (kimigo doctor) rewrites the index, atomically, keeping the
// corrupt lines it takes out in a side file; it writes state.json only
// whole (temp file + rename). Every method is safe for concurrent use.
type Store struct {
	fs     osenv.FS
	root   string
	now    func() time.Time
	newID  func() string
	logger *slog.Logger
	warn   func(string)

	indexMu sync.Mutex // serialises index appends within the process
	stateMu sync.Mutex // serialises state.json read-modify-write within the process
}

// NewStore returns the store under opts.Root. It touches nothing.
func NewStore(opts StoreOptions) *Store {
	s := &Store{fs: opts.FS, root: filepath.Clean(opts.Root), now: opts.Now, newID: opts.NewID, logger: opts.Logger,
		warn: opts.OnWarning}
	if s.fs == nil {
		s.fs = osenv.LocalFS{}
	}
	if s.now == nil {
		s.now = time.Now
	}
	if s.newID == nil {
		s.newID = NewID
	}
	if s.logger == nil {
		s.logger = slog.New(slog.DiscardHandler)
	}
	return s
}

// Root is the data root.
func (s *Store) Root() string { return s.root }

func (s *Store) sessionsDir() string { return filepath.Join(s.root, SessionsDirName) }
func (s *Store) indexPath() string   { return filepath.Join(s.root, IndexFileName) }

// bucketDir is the directory of a work dir's sessions.
func (s *Store) bucketDir(workDir string) string {
	return filepath.Join(s.sessionsDir(), WorkDirKey(workDir))
}

// Create makes the directory of a new session id for workDir (0700),
// writes its state.json and appends its index entry. It fails with
// CodeAlreadyExists when the index has id with an existing directory or
// the target directory exists; an index entry pointing to a missing
// directory does not count. id "" mints a new one.
func (s *Store) Create(id, workDir string, additionalDirs []string) (Summary, error) {
	sum, durable, err := s.create(id, workDir, additionalDirs)
	if err != nil {
		return Summary{}, err
	}
	if err := durable(); err != nil {
		return Summary{}, fmt.Errorf("create session %s: %w", sum.ID, err)
	}
	return sum, nil
}

// create is Create without a single fsync: the directories, state.json
// and the index line are written (a killed process leaves them), and
// durable makes them durable. A new session's Open hands durable to the
// main agent's records, whose first group commit calls it beside its own
// fsync, off the path to the first request.
func (s *Store) create(id, workDir string, additionalDirs []string) (sum Summary, durable func() error, err error) {
	fail := func(err error) (Summary, func() error, error) { return Summary{}, nil, err }
	chosen := id != ""
	if !chosen {
		id = s.newID()
	}
	if err := ValidateID(id); err != nil {
		return fail(err)
	}
	if !filepath.IsAbs(workDir) && !isWindowsPath(workDir) {
		return fail(fmt.Errorf("create session %s: work dir %q is not absolute", id, workDir))
	}
	if !filepath.IsAbs(s.root) {
		return fail(fmt.Errorf("create session %s: data root %q is not absolute", id, s.root))
	}
	workDir = NormalizeWorkDir(workDir)
	// A chosen id may name a session of another work dir, which only the
	// index finds. A new random id cannot (122 random bits), and reading
	// the index would make every start cost in proportion to the sessions
	// ever made; the directory check below still guards it.
	if chosen {
		idx, err := s.readIndex()
		if err != nil {
			return fail(fmt.Errorf("create session %s: %w", id, err))
		}
		if e, ok := idx.byID[id]; ok && s.isDir(e.Dir) {
			return fail(&Error{Code: CodeAlreadyExists, ID: id, Path: e.Dir})
		}
	}
	dir := filepath.Join(s.bucketDir(workDir), id)
	if _, err := s.fs.Lstat(dir); err == nil {
		return fail(&Error{Code: CodeAlreadyExists, ID: id, Path: dir})
	}
	// Every directory MkdirAll creates needs its entry in its parent
	// synced; the session dir itself holds state.json's.
	syncDirs := []string{dir}
	for d := dir; ; {
		parent := filepath.Dir(d)
		syncDirs = append(syncDirs, parent)
		if _, err := s.fs.Lstat(parent); err == nil || parent == d {
			break
		}
		d = parent
	}
	if err := s.fs.MkdirAll(dir, 0o700); err != nil {
		return fail(fmt.Errorf("create session %s: %w", id, err))
	}
	if err := writeStateNoSync(s.fs, dir, newState(s.now(), dir, workDir, additionalDirs)); err != nil {
		_ = s.fs.Remove(dir) // still empty: the state write leaves nothing behind
		return fail(fmt.Errorf("create session %s: %w", id, err))
	}
	_, err = s.fs.Lstat(s.indexPath())
	newIndex := err != nil
	if err := s.appendIndexLine(indexLine{SessionID: id, SessionDir: dir, WorkDir: workDir}, false); err != nil {
		// The directory stays: listing by work dir scans buckets, and
		// Reindex adds the missing line.
		return fail(fmt.Errorf("create session %s: %w", id, err))
	}
	s.logger.Info("session created", "session_id", id, "dir", dir)
	sum, err = s.summarize(id, dir, workDir)
	if err != nil {
		return fail(err)
	}
	durable = func() error {
		if err := osenv.SyncFile(s.fs, filepath.Join(dir, StateFileName)); err != nil {
			return err
		}
		if err := osenv.SyncFile(s.fs, s.indexPath()); err != nil {
			return err
		}
		dirs := slices.Clone(syncDirs) // a retry after a failure starts over
		if newIndex {
			dirs = append(dirs, s.root)
		}
		for _, d := range slices.Compact(dirs) {
			if err := s.fs.SyncDir(d); err != nil {
				return err
			}
		}
		return nil
	}
	return sum, durable, nil
}

// Get returns the summary of session id, wherever the index says it
// lives, or a CodeNotFound error.
func (s *Store) Get(id string) (Summary, error) {
	if err := ValidateID(id); err != nil {
		return Summary{}, err
	}
	idx, err := s.readIndex()
	if err != nil {
		return Summary{}, err
	}
	e, ok := idx.byID[id]
	if !ok {
		return Summary{}, &Error{Code: CodeNotFound, ID: id}
	}
	return s.summarize(id, e.Dir, e.WorkDir)
}

// Find looks session id up first in workDir's bucket, then in the index
// (spec 06 §1.4). It does not compare work dirs: Resume does.
func (s *Store) Find(id, workDir string) (Summary, error) {
	if err := ValidateID(id); err != nil {
		return Summary{}, err
	}
	if workDir != "" {
		dir := filepath.Join(s.bucketDir(workDir), id)
		if s.isDir(dir) {
			fallback := NormalizeWorkDir(workDir)
			if idx, err := s.readIndex(); err == nil {
				if e, ok := idx.byID[id]; ok && e.Dir == dir {
					fallback = e.WorkDir
				}
			}
			return s.summarize(id, dir, fallback)
		}
	}
	return s.Get(id)
}

// Latest is the most recently updated unarchived session of workDir, the
// one -c continues (spec 06 §1.4); ok is false when there is none.
func (s *Store) Latest(workDir string) (sum Summary, ok bool, err error) {
	list, err := s.List(ListOptions{WorkDir: workDir})
	if err != nil || len(list) == 0 {
		return Summary{}, false, err
	}
	return list[0], true, nil
}

// Rename sets a custom title: trimmed, cut to 200 characters; an empty
// one is a CodeTitleEmpty error.
func (s *Store) Rename(id, title string) error {
	if strings.TrimSpace(title) == "" {
		return &Error{Code: CodeTitleEmpty, ID: id}
	}
	sum, err := s.Get(id)
	if err != nil {
		return err
	}
	return s.rename(id, sum.Dir, title)
}

func (s *Store) rename(id, dir, title string) error {
	title = strings.TrimSpace(title)
	if title == "" {
		return &Error{Code: CodeTitleEmpty, ID: id}
	}
	return s.UpdateState(dir, func(st *State) error {
		st.Title, st.IsCustomTitle = runes.Prefix(title, maxTitleRunes), true
		return nil
	})
}

// Archive marks session id archived; listings then hide it unless asked.
func (s *Store) Archive(id string) error {
	sum, err := s.Get(id)
	if err != nil {
		return err
	}
	return s.UpdateState(sum.Dir, func(st *State) error {
		st.Archived = true
		st.UpdatedAt = formatTime(s.now())
		return nil
	})
}

// Delete removes session id's directory tree and appends a deletion line
// to the index. It refuses while the session is open.
func (s *Store) Delete(id string) error {
	sum, err := s.Get(id)
	if err != nil {
		return err
	}
	unlock, err := s.lock(id, sum.Dir)
	if err != nil {
		return err
	}
	err = removeAll(s.fs, sum.Dir)
	if uerr := unlock(); uerr != nil && err == nil && !errors.Is(uerr, fs.ErrNotExist) {
		err = uerr
	}
	if err != nil {
		return fmt.Errorf("delete session %s: %w", id, err)
	}
	if err := s.appendIndex(indexLine{SessionID: id, Deleted: true}); err != nil {
		return fmt.Errorf("delete session %s: %w", id, err)
	}
	s.logger.Info("session deleted", "session_id", id)
	return nil
}

// errUnchanged tells UpdateState that fn changed nothing to write.
var errUnchanged = errors.New("state unchanged")

// UpdateState reads <dir>/state.json, lets fn change it and writes it
// back whole. A missing or invalid file is an error naming it
// (CodeStateNotFound, CodeStateInvalid) and is left untouched, as it is
// when fn fails. Updates are serialised within the process.
func (s *Store) UpdateState(dir string, fn func(*State) error) error {
	s.stateMu.Lock()
	defer s.stateMu.Unlock()
	st, err := readState(s.fs, dir)
	if err != nil {
		return err
	}
	if err := fn(&st); errors.Is(err, errUnchanged) {
		return nil
	} else if err != nil {
		return err
	}
	return writeState(s.fs, dir, st)
}

// ReadState reads <dir>/state.json.
func (s *Store) ReadState(dir string) (State, error) { return readState(s.fs, dir) }

func (s *Store) isDir(name string) bool {
	fi, err := s.fs.Stat(name)
	return err == nil && fi.IsDir()
}

// removeAll removes name and everything below it.
func removeAll(fsys osenv.FS, name string) error {
	fi, err := fsys.Lstat(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if fi.IsDir() {
		entries, err := fsys.ReadDir(name)
		if err != nil {
			return err
		}
		for _, e := range entries {
			if err := removeAll(fsys, filepath.Join(name, e.Name())); err != nil {
				return err
			}
		}
	}
	if err := fsys.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}
