package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/kimigo/kimigo/config"
	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/osenv"
	"github.com/kimigo/kimigo/sandbox"
	"github.com/kimigo/kimigo/session"
	"github.com/kimigo/kimigo/ui/term"
	"github.com/kimigo/kimigo/ui/tui"
)

// replayTurns is how many user turns a resumed session shows (spec 06
// §5.1).
const replayTurns = 10

// shellRun is one interactive run: kimigo without -p (spec 06 §5).
type shellRun struct {
	o      *options
	env    config.Env
	p      proc
	logs   *logFile
	logger *slog.Logger
	setup  setup
	store  *session.Store
	// notesMu guards notices: sessions opened in the background (the
	// picker, /reload) report theirs while the interface runs.
	notesMu sync.Mutex
	notices []tui.Notice
	// sandbox confines the commands of every session the run opens.
	sandbox session.SandboxOptions
	// cfgMu guards setup.cfg, which /reload replaces while sessions open.
	cfgMu sync.Mutex
}

// runInteractive runs the interactive interface and returns the exit
// code. Everything that can fail before the interface takes the terminal
// (the configuration, the session, the model) is reported in the startup
// error format with nothing drawn.
func runInteractive(o *options, env config.Env, p proc) int {
	logs := &logFile{}
	defer logs.Close()
	level := &slog.LevelVar{}
	r := &shellRun{o: o, env: env, p: p, logs: logs, logger: newLogger(logs, level)}
	in, inOK := p.stdin.(*os.File)
	out, outOK := p.stdout.(*os.File)
	if !inOK || !outOK {
		return printUsageError(p.stderr, needsTerminal())
	}
	if _, err := term.OpenTTY(in, out); err != nil {
		return printUsageError(p.stderr, needsTerminal())
	}
	st, err := loadSetup(p, env, logs, level, r.logger, func(msg string) {
		r.notice(tui.Notice{Text: msg, Warning: true})
	})
	r.setup = st
	if err != nil {
		return r.fail(err)
	}
	r.store = session.NewStore(session.StoreOptions{Root: st.home, Logger: r.logger,
		OnWarning: func(msg string) { r.notice(tui.Notice{Text: msg, Warning: true}) }})
	settings, notes := tui.LoadSettings(filepath.Join(st.home, "tui.toml"), func(k string) string { return env[k] })
	r.notice(notes...)
	r.sandbox = sandboxFor(st.cfg, o, false)
	if o.skipsPermissions() && r.sandbox.Mode == sandbox.ModeOff {
		r.notice(tui.Notice{Text: "--yolo: commands run without a sandbox " +
			"(--sandbox workspace-write keeps it).", Warning: true})
	}

	opts := tui.Options{Store: r.store, Home: st.home, WorkDir: st.workDir, Version: versionString(), TUI: settings,
		Prompt: strings.Join(o.args, " "), Logger: r.logger, Stderr: p.stderr, Models: modelChoices(st.cfg)}
	opts.UserHome, _ = p.userHome()
	opts.Reload = r.reload
	opts.Login = loginIn(st.home)
	opts.Logout = func(name string) (string, error) { return logoutIn(r.setup.home, name) }
	opts.Open = func(ctx context.Context, id string) (tui.Opened, error) {
		s, err := r.open(ctx, id, false, true)
		if err != nil {
			return tui.Opened{}, err
		}
		return r.opened(s), nil
	}
	id, given := o.sessionID()
	if given && id == "" {
		opts.Picker = true // -r or -S without an id
	} else {
		opts.Notices = r.takeNotices()
		opts.Ask = r.trustQuestion(opts.UserHome)
		opts.Start = func(ctx context.Context) (tui.Opened, error) {
			s, err := r.open(ctx, id, o.cont && id == "", false)
			if err != nil {
				return tui.Opened{}, err
			}
			return r.opened(s), nil
		}
	}
	code, err := tui.Run(context.Background(), opts, in, out, p.environ())
	var start *tui.StartError
	switch {
	case errors.As(err, &start):
		r.notice(append(opts.Notices, r.takeNotices()...)...)
		var se *session.Error
		if errors.As(start.Err, &se) && se.Code == session.CodeWorkDirMismatch {
			fmt.Fprintf(p.stderr, "%s\n  %s\n", se.Error(), se.Hint())
		}
		return r.fail(start.Err)
	case err != nil:
		r.logger.Error("interactive run", "err", err)
		if code == tui.ExitCrash {
			fmt.Fprintf(p.stderr, "error: %v\nSee log: %s\n", err, filepath.Join(st.home, "logs", "kimigo.log"))
		}
	}
	return code
}

// trustQuestion asks, before the session opens, whether to trust a
// project whose own files ask for more than the project (ERRATA 38;
// spec 06 §7.1's prompt: "Trust this folder" or "Don't trust", the
// latter by default). Trusting it records the project root in the trust
// store under the data root (what `kimigo trust` does), so the session
// then opens with those files in effect; not trusting it opens the
// session without them and asks again next time. Nothing is asked when
// the project is trusted or its files ask for nothing.
func (r *shellRun) trustQuestion(userHome string) []tui.Ask {
	fsys := osenv.LocalFS{}
	files := session.Widening(fsys, r.setup.home, r.setup.workDir, userHome)
	if len(files) == 0 {
		return nil
	}
	root := config.ProjectRoot(fsys, r.setup.workDir)
	return []tui.Ask{{
		Title: "Trust this folder?",
		Detail: fmt.Sprintf("%s is not trusted. %s would add directories outside it or start MCP servers. "+
			"Trust it only if you trust its author.", root, strings.Join(files, ", ")),
		Choices: []string{"Trust this folder", "Don't trust"},
		Default: 1,
		Answer: func(choice int) error {
			if choice != 0 {
				r.logger.Info("workspace not trusted", "root", root)
				r.notice(tui.Notice{Warning: true, Text: fmt.Sprintf("%s is not trusted: %s take no effect "+
					"(`kimigo trust` trusts it).", root, strings.Join(files, ", "))})
				return nil
			}
			if err := session.Trust(fsys, r.setup.home, root); err != nil {
				r.logger.Warn("trust the workspace", "root", root, "err", err)
				r.notice(tui.Notice{Warning: true, Text: fmt.Sprintf("%v; the folder stays untrusted.", err)})
				return nil
			}
			r.logger.Info("workspace trusted", "root", root)
			r.notice(tui.Notice{Text: "Trusted " + root + "."})
			return nil
		},
	}}
}

// reload reads config.toml and tui.toml again (/reload, spec 06 §2.8):
// the sessions opened from now on use them. A file error, or any
// warning, keeps the configuration loaded before (§2.2).
func (r *shellRun) reload() (tui.Reloaded, error) {
	cfg, warnings, err := config.Load(config.LoadOptions{Home: r.setup.home, Env: r.env, Logger: r.logger})
	if err != nil {
		return tui.Reloaded{}, err
	}
	var out tui.Reloaded
	for _, w := range warnings {
		out.Notices = append(out.Notices, tui.Notice{Text: w.Message, Warning: true})
	}
	r.cfgMu.Lock()
	if len(warnings) == 0 {
		r.setup.cfg = cfg
	} else {
		out.Notices = append(out.Notices, tui.Notice{Text: "config.toml has errors; keeping the previously loaded configuration.", Warning: true})
	}
	out.Models = modelChoices(r.setup.cfg)
	r.cfgMu.Unlock()
	settings, notes := tui.LoadSettings(filepath.Join(r.setup.home, "tui.toml"), func(k string) string { return r.env[k] })
	out.TUI = settings
	out.Notices = append(out.Notices, notes...)
	return out, nil
}

// needsTerminal is the error of kimigo without -p off a terminal.
func needsTerminal() error {
	return usagef(`the interactive interface needs a terminal on stdin and stdout; use -p "<prompt>" to run one prompt`)
}

// open opens session id, the latest one (cont) or a new one. fresh says
// the user asked for it from inside the interface (/new, the picker):
// the command line's --agent does not carry over.
func (r *shellRun) open(ctx context.Context, id string, cont, fresh bool) (*session.Session, error) {
	userHome, _ := r.p.userHome()
	r.cfgMu.Lock()
	cfg := r.setup.cfg
	r.cfgMu.Unlock()
	so := session.Options{Config: cfg, Store: r.store, Home: r.setup.home, WorkDir: r.setup.workDir,
		UserHome: userHome, Resume: id, Continue: cont, Model: r.o.model, AddDirs: r.o.addDirs, Mode: interactiveMode(r.o),
		Sandbox: r.sandbox, RunRules: flagRules(r.o), SkillsDirs: r.o.skillsDirs,
		Plan: r.o.plan, Requests: session.Answered, Version: versionString(), Cards: true, CardTurns: new(replayTurns),
		Logger: r.logger, LogTo: r.logs.switchTo,
		Notify: func(n session.Notice) { r.notice(tui.Notice{Text: n.Text, Warning: n.Warning}) }}
	if !fresh {
		so.Agent, so.AgentFiles = r.o.agent, r.o.agentFiles
	}
	if fresh && id != "" {
		so.Model = "" // a session the picker resumes keeps its own model
	}
	return session.Open(ctx, so)
}

// interactiveMode is the permission mode the interface starts a session
// in: --auto, --yolo (and its aliases, bypassPermissions among them) or
// --permission-mode; none keeps the session's own (a new one's is
// default_permission_mode).
func interactiveMode(o *options) event.PermissionMode {
	switch {
	case o.auto:
		return event.ModeAuto
	case o.skipsPermissions():
		return event.ModeYolo
	case o.safety.modeSet:
		mode, _, _ := permissionMode(o.safety.permissionMode)
		return mode
	}
	return ""
}

// opened is what the interface shows of a session it opened.
func (r *shellRun) opened(s *session.Session) tui.Opened {
	o := tui.Opened{Session: s, Replay: s.TakeTranscript(), Resumed: s.Resumed(), Notices: r.takeNotices(),
		Model: s.Model().Alias}
	o.Effort, o.Thinking = thinkingOf(s.Model())
	for _, w := range s.Warnings() {
		o.Notices = append(o.Notices, tui.Notice{Text: w, Warning: true})
	}
	return o
}

// notice keeps n for the interface to show with the next session opened.
func (r *shellRun) notice(n ...tui.Notice) {
	r.notesMu.Lock()
	r.notices = append(r.notices, n...)
	r.notesMu.Unlock()
}

// takeNotices returns the notices kept so far and forgets them.
func (r *shellRun) takeNotices() []tui.Notice {
	r.notesMu.Lock()
	defer r.notesMu.Unlock()
	n := r.notices
	r.notices = nil
	return n
}

// fail reports a failure before the interface started.
func (r *shellRun) fail(err error) int {
	for _, n := range r.takeNotices() { // the load warnings came before the failure
		if n.Warning {
			fmt.Fprintln(r.p.stderr, "Warning: "+n.Text)
		} else {
			fmt.Fprintln(r.p.stderr, n.Text)
		}
	}
	logPath := ""
	if r.setup.home != "" {
		logPath = filepath.Join(r.setup.home, "logs", "kimigo.log")
		r.logs.switchTo(logPath)
		r.logger.Error("interactive start failed", "err", err)
	}
	var se *session.Error
	if errors.As(err, &se) && se.Code != session.CodeWorkDirMismatch && se.Hint() != "" {
		err = &startupError{op: "start shell", err: err, hint: se.Hint()}
	} else if hint := session.StorageHint(err, r.setup.home, ""); hint != "" {
		err = &startupError{op: "start shell", err: err, hint: hint}
	} else {
		var st *startupError
		if !errors.As(err, &st) {
			err = &startupError{op: "start shell", err: err}
		}
	}
	return report(r.p.stderr, err, logPath, r.p.stderrColour)
}

// thinkingOf is what the footer says of a model's thinking: a level when
// the model has levels, else only whether it is on.
func thinkingOf(m config.Model) (effort string, on bool) {
	e := m.InitialThinking()
	if slices.Contains(m.SupportEfforts, e) {
		return e, true
	}
	return "", e != "" && e != "off"
}

// modelChoices are the configured models /model offers, by alias, and
// the built-in offline model.
func modelChoices(cfg *config.Config) []tui.ModelChoice {
	var out []tui.ModelChoice
	aliases := make([]string, 0, len(cfg.Models))
	for a := range cfg.Models {
		aliases = append(aliases, a)
	}
	slices.Sort(aliases)
	for _, a := range aliases {
		m, err := cfg.Resolve(a)
		if err != nil {
			continue
		}
		out = append(out, tui.ModelChoice{Alias: a, Display: m.DisplayName, Efforts: m.SupportEfforts})
	}
	if m, err := cfg.Resolve(config.OfflineAlias); err == nil && !slices.ContainsFunc(out, func(c tui.ModelChoice) bool { return c.Alias == m.Alias }) {
		out = append(out, tui.ModelChoice{Alias: m.Alias, Display: m.DisplayName})
	}
	return out
}
