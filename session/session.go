package session

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/kimigo/kimigo/agent"
	"github.com/kimigo/kimigo/agent/records"
	"github.com/kimigo/kimigo/agent/replay"
	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/osenv"
)

// AgentSetup is what the main agent of a session is built for. Options.Agent
// receives it and returns the agent's options.
type AgentSetup struct {
	SessionID  string
	SessionDir string
	// Home is the agent's home directory, <session>/agents/main.
	Home    string
	WorkDir string
	// AdditionalDirs are the session's saved --add-dir directories plus
	// this run's, saved ones first, without repeats.
	AdditionalDirs []string
	// Resuming is set when the agent will be restored from its records;
	// its Config then only applies to a log that has none yet.
	Resuming bool
}

// Options open a Session. They are already resolved: the caller (cmd)
// has read the configuration and picked the model, the profile and the
// tools; the session only puts them on a session directory.
type Options struct {
	// Store is the session store. Required.
	Store *Store
	// Env is the OS seam handed to the agent when its options have none.
	Env osenv.Env
	// WorkDir is the work dir W (the process's working directory), an
	// absolute path. Required.
	WorkDir string
	// AdditionalDirs are this run's --add-dir directories, absolute. A new
	// session records them; a resumed one uses them for this run only.
	AdditionalDirs []string
	// Agent builds the main agent's options; nil means agent.Options{}.
	// The session then sets Persistence (the records in Home; a value the
	// function set is replaced), and, where left empty, HomeDir, Env,
	// Logger and Config.Cwd.
	Agent func(AgentSetup) agent.Options
	// Logger receives the session's logs; nil discards.
	Logger *slog.Logger
	// Cards asks a resume for the main agent's UI replay stream (spec 02
	// §6.12), limited to the last *CardTurns user turns (§6.13; nil keeps
	// all); TakeReplayCards hands it over once. Without Cards (print mode)
	// no card is built.
	Cards     bool
	CardTurns *int
}

// Session hosts a main agent on a session directory: it holds the session
// lock for its lifetime, keeps the agent's records in agents/main, and
// keeps state.json's title and lastPrompt up to date. Every method is safe
// for concurrent use.
type Session struct {
	store      *Store
	id         string
	dir        string
	workDir    string
	additional []string
	agent      *agent.Agent
	resumed    bool
	replay     agent.ResumeResult // without its cards
	logger     *slog.Logger

	closeOnce sync.Once
	closeErr  error
	unlock    func() error

	mu       sync.Mutex
	writeErr error         // guarded by mu: the last failed write of the records
	warnings []string      // guarded by mu: corrupt lines skipped while resuming
	cards    []replay.Card // guarded by mu: the replay stream until taken
}

// Create makes a new session for opts.WorkDir and opens it.
func Create(ctx context.Context, opts Options) (*Session, error) {
	if err := opts.check(); err != nil {
		return nil, err
	}
	sum, err := opts.Store.Create("", opts.WorkDir, opts.AdditionalDirs)
	if err != nil {
		return nil, err
	}
	return open(ctx, opts, sum, false)
}

// Resume opens session id and restores its agent (spec 06 §1.4 rule 1).
// An unknown id is a CodeNotFound error; a session recorded under another
// work dir is a CodeWorkDirMismatch error, whose Hint is the command to
// run instead, and nothing is opened or written. A session open in
// another process is a CodeInUse error.
func Resume(ctx context.Context, id string, opts Options) (*Session, error) {
	if err := opts.check(); err != nil {
		return nil, err
	}
	sum, err := opts.Store.Find(id, opts.WorkDir)
	if err != nil {
		return nil, err
	}
	if !opts.Store.sameDir(sum.WorkDir, opts.WorkDir) {
		return nil, &Error{Code: CodeWorkDirMismatch, ID: id, WorkDir: sum.WorkDir}
	}
	return open(ctx, opts, sum, true)
}

// Continue resumes the most recently updated session of opts.WorkDir, or
// creates a new one when the work dir has none (spec 06 §1.4 rule 3); then
// Resumed is false and the caller prints NoSessionsNotice.
func Continue(ctx context.Context, opts Options) (*Session, error) {
	if err := opts.check(); err != nil {
		return nil, err
	}
	sum, ok, err := opts.Store.Latest(opts.WorkDir)
	if err != nil {
		return nil, err
	}
	if !ok {
		return Create(ctx, opts)
	}
	return open(ctx, opts, sum, true)
}

// NoSessionsNotice is what -c prints when the work dir has no session.
func NoSessionsNotice(workDir string) string {
	return fmt.Sprintf("No sessions to continue under %q; starting a fresh session.", workDir)
}

func (o Options) check() error {
	if o.Store == nil {
		return errors.New("open session: no store given")
	}
	if !filepath.IsAbs(o.WorkDir) && !isWindowsPath(o.WorkDir) {
		return fmt.Errorf("open session: work dir %q is not absolute", o.WorkDir)
	}
	return nil
}

// open locks the session, then builds (and, resuming, restores) its main
// agent. When the lock is held, or a newer kimigo wrote the records,
// nothing is written.
func open(ctx context.Context, opts Options, sum Summary, resuming bool) (*Session, error) {
	store := opts.Store
	if resuming {
		err := records.CheckVersion(store.fs, filepath.Join(agentHome(sum.Dir, MainAgentID), records.LogFileName))
		var ne *records.NewerVersionError
		if errors.As(err, &ne) {
			return nil, &Error{Code: CodeLogTooNew, ID: sum.ID, Path: ne.Path, Version: ne.Version, Err: err}
		}
		if err != nil {
			return nil, fmt.Errorf("resume session %s: %w", sum.ID, err)
		}
	}
	unlock, err := store.lock(sum.ID, sum.Dir)
	if err != nil {
		return nil, err
	}
	s := &Session{store: store, id: sum.ID, dir: sum.Dir, workDir: sum.WorkDir, resumed: resuming,
		unlock: unlock, logger: opts.Logger}
	if s.logger == nil {
		s.logger = slog.New(slog.DiscardHandler)
	}
	s.logger = s.logger.With("session_id", sum.ID)
	if err := s.start(ctx, opts); err != nil {
		if uerr := unlock(); uerr != nil {
			err = errors.Join(err, fmt.Errorf("unlock session %s: %w", sum.ID, uerr))
		}
		return nil, err
	}
	if resuming {
		s.logger.Info("session resumed", "records", s.replay.Records)
	} else {
		s.logger.Info("session opened")
	}
	return s, nil
}

// start reads the state, opens the records and builds the agent; the
// caller holds the lock.
func (s *Session) start(ctx context.Context, opts Options) error {
	state, err := readState(s.store.fs, s.dir)
	if errors.Is(err, ErrStateNotFound) { // lost in a crash right after mkdir: rebuild it
		state = newState(s.store.now(), s.dir, s.workDir, opts.AdditionalDirs)
		err = writeState(s.store.fs, s.dir, state)
	}
	if err != nil {
		return err
	}
	s.additional = mergeDirs(state.AdditionalDirs, opts.AdditionalDirs)
	setup := AgentSetup{SessionID: s.id, SessionDir: s.dir, Home: agentHome(s.dir, MainAgentID),
		WorkDir: s.workDir, AdditionalDirs: slices.Clone(s.additional), Resuming: s.resumed}
	var ao agent.Options
	if opts.Agent != nil {
		ao = opts.Agent(setup)
	}
	p, err := records.OpenFile(records.FileOptions{FS: s.store.fs, Dir: setup.Home, Logger: s.logger,
		OnError: func(err error) {
			s.logger.Warn("session records write failed", "err", err)
			s.mu.Lock()
			s.writeErr = err
			s.mu.Unlock()
		},
		OnQuarantine: func(q records.Quarantined) {
			s.mu.Lock()
			s.warnings = append(s.warnings, q.String())
			s.mu.Unlock()
		}})
	if err != nil {
		return fmt.Errorf("open session %s: %w", s.id, err)
	}
	ao.Persistence = p
	if ao.HomeDir == "" {
		ao.HomeDir = setup.Home
	}
	if ao.Env == nil {
		ao.Env = opts.Env
	}
	if ao.Logger == nil {
		ao.Logger = s.logger
	}
	if ao.Config.Cwd == "" {
		ao.Config.Cwd = s.workDir
	}
	s.agent = agent.New(ao)
	if !s.resumed {
		return nil
	}
	res, err := s.agent.Resume(ctx, agent.ResumeOptions{Cards: opts.Cards, CardTurns: opts.CardTurns})
	if err != nil {
		if cerr := s.agent.Close(context.WithoutCancel(ctx)); cerr != nil {
			err = errors.Join(err, cerr)
		}
		return fmt.Errorf("resume session %s: %w", s.id, err)
	}
	s.cards, res.Cards = res.Cards, nil
	s.replay = res
	return nil
}

// mergeDirs is saved followed by the run's directories not already in it.
func mergeDirs(saved, run []string) []string {
	out := slices.Clone(saved)
	for _, d := range run {
		if !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	return out
}

// sameDir compares work dirs after path resolution: equal once
// normalized, or the same directory on disk (a symbolic link to it).
func (s *Store) sameDir(a, b string) bool {
	if SameWorkDir(a, b) {
		return true
	}
	fa, errA := s.fs.Stat(a)
	fb, errB := s.fs.Stat(b)
	return errA == nil && errB == nil && os.SameFile(fa, fb)
}

// ID is the session id.
func (s *Session) ID() string { return s.id }

// Dir is the session directory.
func (s *Session) Dir() string { return s.dir }

// WorkDir is the session's recorded work dir.
func (s *Session) WorkDir() string { return s.workDir }

// AdditionalDirs are the session's saved directories plus this run's.
func (s *Session) AdditionalDirs() []string { return slices.Clone(s.additional) }

// Agent is the main agent.
func (s *Session) Agent() *agent.Agent { return s.agent }

// Resumed reports whether the session existed before this open.
func (s *Session) Resumed() bool { return s.resumed }

// Replay is what resuming restored: the records replayed. Its Cards are
// always nil: TakeReplayCards hands the replay stream over. (A log of a
// newer version never gets here: open refuses it.) It is empty for a new
// session.
func (s *Session) Replay() agent.ResumeResult { return s.replay }

// TakeReplayCards returns the UI replay stream the resume built when
// Options.Cards asked for it, and forgets it: the session does not keep
// the cards (and the messages they show) alive for its lifetime. Later
// calls, and a session opened without Cards, return nil.
func (s *Session) TakeReplayCards() []replay.Card {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.cards
	s.cards = nil
	return c
}

// Warnings are what the user should hear about the open: corrupt lines of
// the records that were skipped and quarantined, naming file and line.
func (s *Session) Warnings() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.warnings)
}

// WriteError is the last failed write of the main agent's records (a
// *records.WriteError naming the file and the errno), or nil when none
// failed. A turn that failed with records.write_failed carries only its
// text; this keeps the error itself, for what-to-do hints.
func (s *Session) WriteError() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.writeErr
}

// LogPath is the per-session diagnostic log, <session>/logs/kimigo.log
// (ERRATA 7). The caller configures the handler; nothing creates it
// before something is logged.
func (s *Session) LogPath() string { return filepath.Join(s.dir, sessionLogPath) }

// ResumeCommand is the command that resumes this session.
func (s *Session) ResumeCommand() string { return ResumeCommand(s.id) }

// State reads the session's state.json.
func (s *Session) State() (State, error) { return readState(s.store.fs, s.dir) }

// Prompt sends the user's input to the main agent: a turn starts with
// it, or it waits for a running compaction. While a turn runs it is
// refused with an agent.BusyError (code turn.agent_busy). Once accepted,
// state.json's lastPrompt, title and updatedAt are updated from it; a
// failure to write them is logged, not returned: the prompt already runs.
func (s *Session) Prompt(ctx context.Context, input []llm.ContentPart) error {
	l, err := s.agent.Prompt(ctx, input, nil)
	if err != nil {
		return err
	}
	if !l.Launched && !l.Buffered {
		return &agent.BusyError{Op: "prompt", TurnID: l.TurnID}
	}
	if err := s.RecordPrompt(PromptText(input)); err != nil {
		s.logger.Warn("update session state after prompt", "err", err)
	}
	return nil
}

// Cancel cancels the main agent's running turn, if any.
func (s *Session) Cancel(ctx context.Context) error { return s.agent.Cancel(ctx, nil, nil) }

// Subscribe returns a subscription to the events of the session's agents
// (package event): read it with Next, close it when done.
func (s *Session) Subscribe() *event.Subscription { return s.agent.Events().Subscribe() }

// RecordPrompt updates lastPrompt, title (while it is the default) and
// updatedAt for a user prompt whose text is text (spec 06 §4.3); callers
// that deliver prompts another way (a skill or plugin command:
// "/<name> <args>") call it themselves. Text that sanitizes to nothing
// changes nothing. state.json is replaced whole or not at all; an invalid
// one is an error naming it, and is left as it is.
func (s *Session) RecordPrompt(text string) error {
	return s.store.UpdateState(s.dir, func(st *State) error {
		if !applyPrompt(st, text, formatTime(s.store.now())) {
			return errUnchanged
		}
		return nil
	})
}

// Rename sets a custom title (/title): trimmed, cut to 200 characters;
// empty is a CodeTitleEmpty error.
func (s *Session) Rename(title string) error { return s.store.rename(s.id, s.dir, title) }

// Close cancels the running turn, waits for it, closes the agent (its
// records are flushed) and releases the session lock. Later calls return
// the first call's error.
func (s *Session) Close(ctx context.Context) error {
	s.closeOnce.Do(func() {
		err := s.agent.Close(ctx)
		if uerr := s.unlock(); uerr != nil {
			err = errors.Join(err, fmt.Errorf("unlock session %s: %w", s.id, uerr))
		}
		if err != nil {
			err = fmt.Errorf("close session %s: %w", s.id, err)
		}
		s.closeErr = err
		s.logger.Info("session closed")
	})
	return s.closeErr
}
