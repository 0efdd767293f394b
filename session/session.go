package session

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/kimigo/kimigo/agent"
	"github.com/kimigo/kimigo/agent/permission"
	"github.com/kimigo/kimigo/agent/records"
	"github.com/kimigo/kimigo/agent/replay"
	"github.com/kimigo/kimigo/config"
	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/hooks"
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/mcp"
	"github.com/kimigo/kimigo/osenv"
	"github.com/kimigo/kimigo/profile"
	"github.com/kimigo/kimigo/profile/skill"
	"github.com/kimigo/kimigo/tools"
	"github.com/kimigo/kimigo/workspace"
)

// Options open a Session: everything a front end knows when it starts.
// The configuration is read at the edge and handed over loaded; the
// session resolves the model, the profile, the tools, the permission
// rules and the workspace from it, and builds the agent.
type Options struct {
	// Config is the loaded configuration. Required.
	Config *config.Config
	// Home is the data root ($KIMIGO_HOME, else ~/.kimigo): sessions, the
	// user's agent files and "always" rules live under it. Required
	// unless Store is set, whose root it then defaults to.
	Home string
	// Store is the session store; nil means one over Home.
	Store *Store
	// WorkDir is the work dir W (the process's working directory), an
	// absolute path. Required.
	WorkDir string
	// UserHome is the user's home directory, for "~" in local.toml; ""
	// when unknown.
	UserHome string
	// Env is the OS seam of the agent's tools; nil means the local
	// machine, in WorkDir.
	Env osenv.Env
	// TextFiles, when set, is the OS seam of the text-file tools (Read,
	// Write, Edit) only: the ACP server's bridge to an editor's buffers
	// (spec 06 §8.8). Everything else, the session's own files included,
	// uses Env.
	TextFiles osenv.Env

	// Resume is the id of a session to resume (-r, -S). A session recorded
	// under another work dir is a CodeWorkDirMismatch error whose Hint is
	// the command that works, and nothing is opened or written.
	Resume string
	// Continue resumes the work dir's latest session (-c), or creates a
	// new one when it has none (Notify gets NoSessionsNotice).
	Continue bool
	// Model is the model alias of a new session, or the one a resumed
	// session switches to (-m); the switch is recorded. "" means
	// default_model (or the KIMI_MODEL_* model, or the offline model) for a
	// new session and the saved model for a resumed one.
	Model string
	// Agent is the profile of a new session (--agent) and AgentFiles the
	// agent files to load (--agent-file).
	Agent      string
	AgentFiles []string
	// AppendSystemPrompt is added, after a blank line, to a new session's
	// system prompt (--append-system-prompt), which its records keep; a
	// resumed session keeps the prompt it has, and giving it one is an
	// error.
	AppendSystemPrompt string
	// AddDirs are this run's --add-dir directories, absolute or relative
	// to WorkDir; each must exist. A new session records them; a resumed
	// one uses them for this run only.
	AddDirs []string
	// Mode is the permission mode to run in; "" keeps a resumed session's
	// and starts a new one in default_permission_mode (manual when unset).
	// ModeForThisRun restores a resumed session's own mode at Close (print
	// mode, spec 06 §1.4 rule 5).
	Mode           event.PermissionMode
	ModeForThisRun bool
	// Plan turns plan mode on (--plan): a new session starts in it, a
	// resumed one enters it unless it is on already. A new session also
	// starts in it with default_plan_mode.
	Plan bool
	// Requests says who answers approval requests and questions; the zero
	// value, Declined, denies and dismisses them.
	Requests Requests
	// RunRules are permission rules for this run only (--allowedTools,
	// --disallowedTools), ahead of the files' rules. Unlike the files',
	// a malformed one fails Open before anything is written.
	RunRules []config.PermissionRule
	// Sandbox confines the commands the agents run (issue 16); the zero
	// value runs them unconfined.
	Sandbox SandboxOptions
	// Version is kimigo's version, for the providers' User-Agent.
	Version string
	// HTTPClient, when set, sends every model request (an embedder's
	// transport; tests reach an in-memory fake through it). Nil means
	// the configuration's client, which honours its proxy settings.
	HTTPClient *http.Client
	// Cards asks a resume for the main agent's UI replay stream (spec 02
	// §6.12), limited to the last *CardTurns user turns (§6.13; nil keeps
	// all); TakeReplayCards hands it over once. Without Cards no card is
	// built.
	Cards     bool
	CardTurns *int

	// SkillsDirs are the --skills-dir directories: they replace the
	// project and user skill roots (spec 05 §9.1).
	SkillsDirs []string
	// MCPServers are servers the caller hands over (an ACP client's); they
	// shadow the configured ones of the same name (spec 06 §7.1) and start
	// when the session opens, without blocking it (WaitMCP waits for them).
	MCPServers []mcp.Server

	// Logger receives the session's logs; nil discards.
	Logger *slog.Logger
	// LogTo, when set, is called with the session's log file
	// (<session>/logs/kimigo.log) as soon as the session is known, before
	// its agent logs anything: the caller points its handler there.
	LogTo func(path string)
	// Notify, when set, gets what the user should hear while the session
	// opens: load warnings, the offline-model notice, the -c notice.
	Notify func(Notice)
}

// Notice is something the user should hear while a session opens.
// Warnings are printed as "Warning: <Text>", notices as they are.
type Notice struct {
	Text    string
	Warning bool
}

// Session hosts the agents of one session on its directory: it holds the
// session lock for its lifetime, keeps the main agent's records in
// agents/main and state.json's title and lastPrompt up to date, and is the
// one way a front end drives the agents (see the package doc). Every
// method is safe for concurrent use.
type Session struct {
	store      *Store
	id         string
	dir        string
	workDir    string
	additional []string
	agent      *agent.Agent
	bus        *event.Bus
	broker     *broker
	models     *models
	resumed    bool
	replay     agent.ResumeResult // without its cards
	rt         *agentRuntime      // the main agent's reminders, background tasks and cron
	cfg        *config.Config
	settle     settleState // Settle's count and deadline; one front end calls it
	// mcp is the session's MCP connections; the main agent's tool manager
	// follows them (mcpFollow stops it) and mcpUnsub stops their events.
	mcp       *mcp.Manager
	mcpCaller []mcp.Server // the caller's servers, for ReconnectMCP
	mcpFollow func()
	mcpUnsub  func()
	mcpWait   sync.Once
	// skills are the skills the user (/skill:<name>) and the Skill tool
	// load.
	skills *skill.Registry
	// hooks runs the user's lifecycle hooks; nil when none is configured.
	hooks  *hooks.Engine
	logger *slog.Logger
	// restoreMode is the mode Close restores (ModeForThisRun); "" none.
	restoreMode permission.Mode
	// sandbox confines the agents' commands; nil when none was asked for.
	sandbox *commandSandbox
	// side are the open side conversations (btw.go).
	side sideChannels

	// What subagents are built from (subagent.go): the main agent's
	// subagent host, the registry of children, and the main agent's OS
	// seam, workspace, request routing, file seam, fetcher, prompt's
	// sandbox statement and data root, which children share.
	host        *subagentHost
	subs        subagents
	env         osenv.Env
	ws          workspace.Dirs
	requests    Requests
	textFiles   osenv.Env
	fetcher     tools.URLFetcher
	sandboxInfo profile.SandboxInfo
	home        string

	closeOnce sync.Once
	closeErr  error
	unlock    func() error

	mu       sync.Mutex
	writeErr error         // guarded by mu: the last failed write of the records
	warnings []string      // guarded by mu: corrupt lines skipped while resuming
	cards    []replay.Card // guarded by mu: the replay stream until taken
}

// Open opens a session for a front end: the one Options.Resume names, the
// work dir's latest (Options.Continue), or a new one; its main agent is
// built from the configuration and, when resumed, restored from its
// records with the model it had. What can fail (the model, the agent
// files, the profile, local.toml, the --add-dir dirs) is resolved before
// anything is written, so a failed Open of a new session creates nothing.
// A session open in another process is a CodeInUse error; a log written by
// a newer kimigo a CodeLogTooNew error.
func Open(ctx context.Context, o Options) (*Session, error) {
	if err := o.check(); err != nil {
		return nil, err
	}
	o = o.withDefaults()
	builtin := startBuiltinProfiles()
	defer func() { _, _ = builtin() }() // the parse ends before Open returns
	sum, resuming, err := o.selectSession()
	if err != nil {
		return nil, err
	}
	p, err := prepare(ctx, o, resuming, builtin)
	if err != nil {
		return nil, err
	}
	if !resuming {
		// Nothing of the new session is fsynced here: the main agent's
		// first records commit makes it durable (Store.create).
		if sum, p.created, err = o.Store.create("", o.WorkDir, p.addDirs); err != nil {
			return nil, err
		}
	}
	return open(ctx, o, sum, resuming, p)
}

// NoSessionsNotice is what -c prints when the work dir has no session.
func NoSessionsNotice(workDir string) string {
	return fmt.Sprintf("No sessions to continue under %q; starting a fresh session.", workDir)
}

func (o Options) check() error {
	switch {
	case o.Config == nil:
		return errors.New("open session: no configuration given")
	case o.Store == nil && o.Home == "":
		return errors.New("open session: no data root given")
	case !filepath.IsAbs(o.WorkDir) && !isWindowsPath(o.WorkDir):
		return fmt.Errorf("open session: work dir %q is not absolute", o.WorkDir)
	case o.Resume != "" && o.Continue:
		return errors.New("open session: both a session id and continue given")
	case o.AppendSystemPrompt != "" && (o.Resume != "" || o.Continue):
		return errors.New("open session: a system prompt addition is for a new session only")
	}
	return nil
}

func (o Options) withDefaults() Options {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Notify == nil {
		o.Notify = func(Notice) {}
	}
	if o.Store == nil {
		o.Store = NewStore(StoreOptions{Root: o.Home, Logger: o.Logger,
			OnWarning: func(msg string) { o.Notify(Notice{Text: msg, Warning: true}) }})
	}
	if o.Home == "" {
		o.Home = o.Store.root
	}
	if o.Env == nil {
		o.Env = osenv.NewLocal(osenv.LocalOptions{Cwd: o.WorkDir})
	}
	return o
}

// selectSession picks the session to resume, or none for a new one (spec
// 06 §1.4 rules 1, 3 and 4).
func (o Options) selectSession() (Summary, bool, error) {
	switch {
	case o.Resume != "":
		sum, err := o.Store.Find(o.Resume, o.WorkDir)
		if err != nil {
			return Summary{}, false, err
		}
		if !o.Store.sameDir(sum.WorkDir, o.WorkDir) {
			return Summary{}, false, &Error{Code: CodeWorkDirMismatch, ID: o.Resume, WorkDir: sum.WorkDir}
		}
		return sum, true, nil
	case o.Continue:
		sum, ok, err := o.Store.Latest(o.WorkDir)
		if err != nil {
			return Summary{}, false, err
		}
		if !ok {
			o.Notify(Notice{Text: NoSessionsNotice(o.WorkDir)})
		}
		return sum, ok, nil
	}
	return Summary{}, false, nil
}

// open locks the session, then builds (and, resuming, restores) its main
// agent. When the lock is held, or a newer kimigo wrote the records,
// nothing is written.
func open(ctx context.Context, o Options, sum Summary, resuming bool, p plan) (*Session, error) {
	store := o.Store
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
		unlock: unlock, logger: o.Logger.With("session_id", sum.ID), cfg: o.Config}
	if o.LogTo != nil {
		o.LogTo(s.LogPath())
	}
	if err := s.start(ctx, o, p); err != nil {
		if s.agent != nil {
			if cerr := s.agent.Close(context.WithoutCancel(ctx)); cerr != nil {
				err = errors.Join(err, cerr)
			}
		}
		if cerr := s.closeMCP(context.WithoutCancel(ctx)); cerr != nil {
			err = errors.Join(err, cerr)
		}
		if serr := s.sandbox.Close(); serr != nil {
			err = errors.Join(err, serr)
		}
		if s.mcp != nil {
			if cerr := s.closeMCP(context.WithoutCancel(ctx)); cerr != nil {
				err = errors.Join(err, cerr)
			}
		}
		if uerr := unlock(); uerr != nil {
			err = errors.Join(err, fmt.Errorf("unlock session %s: %w", sum.ID, uerr))
		}
		return nil, err
	}
	if resuming {
		s.logger.Info("session resumed", "records", s.replay.Records, "model", s.agent.Model().Alias)
	} else {
		s.logger.Info("session opened", "model", s.agent.Model().Alias)
	}
	return s, nil
}

// start reads the state, opens the records, builds the agent and, for a
// resumed session, restores it; then the run's permission mode. The
// caller holds the lock.
func (s *Session) start(ctx context.Context, o Options, p plan) error {
	state, err := readState(s.store.fs, s.dir)
	if errors.Is(err, ErrStateNotFound) { // lost in a crash right after mkdir: rebuild it
		state = newState(s.store.now(), s.dir, s.workDir, p.addDirs)
		err = writeState(s.store.fs, s.dir, state)
	}
	if err != nil {
		return err
	}
	s.additional = union(state.AdditionalDirs, p.addDirs) // saved ones first, without repeats
	var parents func() error
	if p.created != nil {
		agents := filepath.Dir(agentHome(s.dir, MainAgentID))
		parents = func() error { // the session, and the agents dir's entry for the main agent's home
			if err := p.created(); err != nil {
				return err
			}
			return s.store.fs.SyncDir(agents)
		}
	}
	persistence, err := records.OpenFile(records.FileOptions{FS: s.store.fs, Dir: agentHome(s.dir, MainAgentID),
		Logger: s.logger, Parents: parents,
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
	s.bus = event.NewBus(event.BusOptions{})
	s.broker = newBroker(s.bus)
	s.models = newModels(o.Config, o.Version, s.id, s.logger, o.HTTPClient)
	s.mcp = newMCP(o.Config, o.Env, o.Version, s)
	s.mcpCaller = o.MCPServers
	s.hooks = newHooks(o.Config, o.Env, s)
	s.skills = p.skills
	s.startMCP(p.mcpServers)
	ao, err := s.agentOptions(o, p, persistence)
	if err != nil {
		_ = persistence.Close(ctx) // nothing was written through it
		return err
	}
	s.agent = agent.New(ao)
	s.host.agent = s.agent
	if s.mcp != nil {
		s.mcp.Start(o.MCPServers)
	}
	if s.resumed {
		res, err := s.agent.Resume(ctx, agent.ResumeOptions{Cards: o.Cards, CardTurns: o.CardTurns, Model: o.Model})
		if err != nil {
			return fmt.Errorf("resume session %s: %w", s.id, err)
		}
		s.host.bind(s.agent.Config())
		s.cards, res.Cards = res.Cards, nil
		s.replay = res
		s.mu.Lock()
		s.warnings = append(s.warnings, res.Unrestored...)
		s.mu.Unlock()
	} else if err := s.agent.SetActiveTools(ctx, p.active); err != nil {
		return err
	}
	if err := s.startPlan(ctx, o); err != nil {
		return err
	}
	if err := s.runMode(ctx, o); err != nil {
		return err
	}
	s.sessionStart(ctx)
	return nil
}

// runMode switches to the run's permission mode (spec 06 §1.4 rules 4–5).
func (s *Session) runMode(ctx context.Context, o Options) error {
	mode := permission.Mode(o.Mode)
	if mode == "" && !s.resumed {
		mode = permission.Mode(o.Config.DefaultPermissionMode)
	}
	current := s.agent.Permission().Mode()
	if mode == "" || mode == current {
		return nil
	}
	if s.resumed && o.ModeForThisRun {
		s.restoreMode = current
	}
	return s.agent.SetPermissionMode(ctx, mode)
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
// the records that were skipped and quarantined, naming file and line, and
// records of a kind this kimigo cannot restore yet (kept in the log).
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
// refused with an agent.BusyError (code turn.agent_busy) and an error
// event. Once accepted, state.json's lastPrompt, title and updatedAt are
// updated from it; a failure to write them is logged, not returned: the
// prompt already runs. What the turn does arrives as events.
func (s *Session) Prompt(ctx context.Context, input []llm.ContentPart) error {
	if err := s.checkPromptSize(input); err != nil {
		return err
	}
	if err := s.waitMCP(ctx); err != nil {
		return err
	}
	parts, origin, err := s.promptInput(ctx, input)
	if err != nil {
		return err
	}
	l, err := s.agent.Prompt(ctx, parts, origin)
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

// Steer gives the user's input to the running turn at its next step
// boundary, or starts a turn with it when the main agent is idle.
func (s *Session) Steer(ctx context.Context, input []llm.ContentPart) error {
	if err := s.waitMCP(ctx); err != nil {
		return err
	}
	_, err := s.agent.Steer(ctx, input, nil)
	return err
}

// Cancel cancels the main agent's running turn, if any, with cause (nil:
// the user cancelled it); the turn ends with turn.ended {cancelled}.
func (s *Session) Cancel(ctx context.Context, cause error) error {
	return s.agent.Cancel(ctx, nil, cause)
}

// Compact compacts the main agent's conversation now (/compact),
// optionally focused by instruction, and returns when it ended; see
// agent.Agent.Compact.
func (s *Session) Compact(ctx context.Context, instruction string) error {
	return s.agent.Compact(ctx, instruction)
}

// SetMode switches the main agent's permission mode; the switch is
// recorded. An unknown mode is an error naming it.
func (s *Session) SetMode(ctx context.Context, mode event.PermissionMode) error {
	m, err := permission.ParseMode(string(mode))
	if err != nil {
		return err
	}
	return s.agent.SetPermissionMode(ctx, m)
}

// SetModel switches the main agent to the configured model alias names
// (/model): provider, completion cap, window and compaction change
// together and the switch is recorded. An alias that is not configured,
// or a model whose window is smaller than the conversation, is an error
// naming the alias, and nothing changes.
func (s *Session) SetModel(ctx context.Context, alias string) error {
	return s.agent.SetModel(ctx, alias)
}

// SetThinkingEffort switches the main agent's thinking ("off", "on" or
// one of the model's efforts) from the next request on (/effort, the ACP
// thinking option); the switch is recorded, so a resume keeps it. A value
// the model does not take (any for a model that cannot think, "off" for
// one that always thinks, an effort it does not list) is an error naming
// it, and nothing changes.
func (s *Session) SetThinkingEffort(ctx context.Context, effort string) error {
	m := s.Model()
	switch {
	case !m.Capability.Thinking:
		return fmt.Errorf("model %q cannot think", m.Alias)
	case effort == "off" && m.AlwaysThinking:
		return fmt.Errorf("model %q always thinks; thinking cannot be turned off", m.Alias)
	case effort != "off" && effort != "on" && len(m.SupportEfforts) > 0 && !slices.Contains(m.SupportEfforts, effort):
		return fmt.Errorf("model %q has no thinking effort %q (it has %s)", m.Alias, effort, strings.Join(m.SupportEfforts, ", "))
	case effort == "":
		return fmt.Errorf("model %q: no thinking effort given", m.Alias)
	}
	return s.agent.SetThinkingEffort(ctx, effort)
}

// ThinkingEffort is the main agent's thinking setting in effect, as its
// provider reports it: "off", "on", an effort, or "" when the model
// cannot think.
func (s *Session) ThinkingEffort() string {
	b := s.agent.Model()
	if b.Provider == nil {
		return b.ThinkingEffort
	}
	return b.Provider.ThinkingEffort()
}

// AnswerApproval answers the open approval request id (from an
// event.ApprovalRequested). An unknown choice is an error naming it, and
// a request that is not open an ErrNoRequest error.
func (s *Session) AnswerApproval(id string, a event.ApprovalAnswer) error {
	if _, err := permission.Response(a); err != nil {
		return fmt.Errorf("answer request %q: %w", id, err)
	}
	return s.broker.answer(id, answerMsg{approval: a})
}

// AnswerQuestion answers the open question request id (from an
// event.QuestionRequested) with the chosen labels keyed by question text;
// nil dismisses the questions. A request that is not open is an
// ErrNoRequest error.
func (s *Session) AnswerQuestion(id string, answers map[string]string) error {
	return s.broker.answer(id, answerMsg{answers: maps.Clone(answers)})
}

// Subscribe returns a subscription to the events of the session's agents
// (package event); read it with Next from one goroutine and close it when
// done. Events published before it are not in it: Status gives the
// current state to start from.
func (s *Session) Subscribe() *event.Subscription { return s.bus.Subscribe() }

// Status is the main agent's status now (agent.status.updated).
func (s *Session) Status() event.Status { return s.agent.Status() }

// Model is the configuration's view of the main agent's model now, for
// what-to-check hints; the zero Model when none is bound.
func (s *Session) Model() config.Model { return s.models.model(s.agent.Model().Alias) }

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

// Close restores the permission mode a run switched away from
// (ModeForThisRun), closes the open side conversations, cancels the
// running turn, waits for it, closes the
// agent (its records are flushed), ends every subscription after what is
// queued, and releases the session lock. Later calls return the first
// call's error.
func (s *Session) Close(ctx context.Context) error {
	s.closeOnce.Do(func() {
		var err error
		if s.restoreMode != "" {
			if err = s.agent.SetPermissionMode(ctx, s.restoreMode); err != nil {
				err = fmt.Errorf("restore the permission mode of session %s: %w", s.id, err)
			}
		}
		err = errors.Join(err, s.closeBtw(ctx))
		err = errors.Join(err, s.agent.Close(ctx))
		err = errors.Join(err, s.closeChildren(ctx))
		err = errors.Join(err, s.sessionEnd(ctx))
		err = errors.Join(err, s.closeMCP(ctx))
		if serr := s.sandbox.Close(); serr != nil {
			err = errors.Join(err, serr)
		}
		s.bus.Close()
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

// CodePromptTooLarge is the error code of a prompt that cannot fit the
// model's window with the conversation it joins.
const CodePromptTooLarge = "prompt.too_large"

// PromptTooLargeError refuses a prompt that, with the system prompt and
// the conversation so far, is larger than the model's window: no
// compaction can make room for it, so it is not sent.
type PromptTooLargeError struct {
	Prompt, Context, Window int // estimated tokens
}

func (e *PromptTooLargeError) Error() string {
	return fmt.Sprintf("the prompt is too large: about %d tokens, which with the %d of the system prompt and the "+
		"conversation is %d over the model's %d-token window; shorten it, or save the text to a file and ask "+
		"about the file", e.Prompt, e.Context, e.Prompt+e.Context-e.Window, e.Window)
}

// Code returns CodePromptTooLarge.
func (e *PromptTooLargeError) Code() string { return CodePromptTooLarge }

// Details are the estimates.
func (e *PromptTooLargeError) Details() map[string]any {
	return map[string]any{"promptTokens": e.Prompt, "contextTokens": e.Context, "windowTokens": e.Window}
}

// checkPromptSize refuses input that cannot fit the window (issue 15
// item 11): estimated, so only a prompt that is over by the estimate is
// refused.
func (s *Session) checkPromptSize(input []llm.ContentPart) error {
	window := s.agent.Model().Capability.MaxContextTokens
	if window <= 0 {
		return nil
	}
	prompt := 0
	for _, p := range input {
		prompt += llm.EstimatePart(p)
	}
	if prompt <= window/2 { // the common case: no need to count the rest
		return nil
	}
	used := s.agent.TokenCount() + llm.EstimateTokens(s.agent.Config().SystemPrompt)
	if prompt+used <= window {
		return nil
	}
	return &PromptTooLargeError{Prompt: prompt, Context: used, Window: window}
}
