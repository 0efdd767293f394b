package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"time"

	"github.com/kimigo/kimigo/config"
	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/internal/print"
	"github.com/kimigo/kimigo/session"
)

// cleanupTimeout bounds the cleanup after a run (spec 06 §1.6.7): past it
// kimigo exits anyway.
const cleanupTimeout = 8 * time.Second

// printRun is one `kimigo -p` run (spec 06 §1.6.1): configuration, the
// session, the run and its cleanup.
type printRun struct {
	o       *options
	prompt  string // the command line's prompt with piped input
	env     config.Env
	p       proc
	workDir string
	home    string
	logs    *logFile
	level   *slog.LevelVar // KIMI_LOG_LEVEL, once the configuration is loaded
	logger  *slog.Logger
	cfg     *config.Config

	// sess is the open session, nil until it opened.
	sess *session.Session
}

// runPrint runs print mode and returns the exit code.
func runPrint(o *options, prompt string, env config.Env, p proc) int {
	ctx, sigs, stop := watchSignals(context.Background())
	defer stop()
	logs := &logFile{}
	defer logs.Close()
	level := &slog.LevelVar{}
	r := &printRun{o: o, prompt: prompt, env: env, p: p, logs: logs, level: level, logger: newLogger(logs, level)}
	s, err := r.open(ctx)
	if err == nil {
		err = r.run(ctx, s)
		if cerr := r.cleanup(s); err == nil && cerr != nil && sigs.exitCode() == 0 {
			err = cerr
		}
	}
	if code := sigs.exitCode(); code != 0 {
		r.logger.Info("print run stopped by a signal", "exit_code", code)
		return code
	}
	if err != nil {
		return r.fail(err)
	}
	return exitOK
}

// open loads the configuration and opens (or creates) the session (spec
// 06 §1.4) in auto permission mode for this run; the session resolves the
// model, the profile, the rules and the tools, and builds the agent.
func (r *printRun) open(ctx context.Context) (*session.Session, error) {
	if err := r.configure(); err != nil {
		return nil, err
	}
	id, _ := r.o.sessionID()
	userHome, _ := r.p.userHome() // unknown only matters for "~" in local.toml
	s, err := session.Open(ctx, session.Options{
		Config: r.cfg, Home: r.home, WorkDir: r.workDir, UserHome: userHome,
		Resume: id, Continue: r.o.cont && id == "", Model: r.o.model, Agent: r.o.agent, AgentFiles: r.o.agentFiles,
		AddDirs: r.o.addDirs, Mode: event.ModeAuto, ModeForThisRun: true, Version: versionString(),
		Logger: r.logger, LogTo: r.logs.switchTo,
		Notify: func(n session.Notice) { r.warn(n.Text, n.Warning) },
	})
	var se *session.Error
	if errors.As(err, &se) && se.Code == session.CodeWorkDirMismatch {
		fmt.Fprintf(r.p.stderr, "%s\n  %s\n", se.Error(), se.Hint())
	}
	if err != nil {
		return nil, err
	}
	r.sess = s
	for _, w := range s.Warnings() { // corrupt lines skipped and quarantined
		r.warn(w, true)
	}
	return s, nil
}

// run sends the prompt and renders the run.
func (r *printRun) run(ctx context.Context, s *session.Session) error {
	r.logger.Info("print run", "session_id", s.ID(), "resumed", s.Resumed(), "model", s.Model().Alias)
	return print.Run(ctx, print.Options{
		Host: s, Prompt: r.prompt, Format: outputFormat(r.o, r.env), Version: versionString(),
		SessionID: s.ID(), ResumeCommand: s.ResumeCommand(),
		Stdout: r.p.stdout, Stderr: r.p.stderr, StdoutWidth: r.p.stdoutWidth, StderrWidth: r.p.stderrWidth,
		Logger: r.logger,
	})
}

// cleanup closes the session, which restores a resumed session's
// permission mode, waiting at most cleanupTimeout (spec 06 §1.6.7).
func (r *printRun) cleanup(s *session.Session) error {
	ctx, cancel := context.WithTimeout(context.Background(), cleanupTimeout)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- s.Close(ctx) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		r.logger.Warn("session cleanup timed out", "session_id", s.ID(), "timeout_ms", cleanupTimeout.Milliseconds())
		return fmt.Errorf("close session %s: still busy after %v", s.ID(), cleanupTimeout)
	}
}

// fail reports a failed run in the startup error format and returns its
// exit code. The error is also written to the global log it points to.
func (r *printRun) fail(err error) int {
	logPath := ""
	if r.home != "" {
		logPath = filepath.Join(r.home, "logs", "kimigo.log")
		r.logs.switchTo(logPath)
		r.logger.Error("print run failed", "err", err)
	}
	var f *print.Failure
	var se *session.Error
	var st *startupError
	sessionID := ""
	if r.sess != nil {
		sessionID = r.sess.ID()
	}
	switch {
	case errors.As(err, &f) && f.Code == event.CodeRecordsWriteFailed && r.sess != nil:
		err = &startupError{op: "run prompt", err: err, hint: session.StorageHint(r.sess.WriteError(), r.home, sessionID)}
	case errors.As(err, &f):
		var m config.Model
		if r.sess != nil {
			m = r.sess.Model()
		}
		err = &startupError{op: "run prompt", err: err, hint: providerHint(f, m, r.home)}
	case errors.As(err, &st):
	case errors.As(err, &se) && se.Code != session.CodeWorkDirMismatch && se.Hint() != "":
		err = &startupError{op: "run prompt", err: err, hint: se.Hint()}
	default:
		if hint := session.StorageHint(err, r.home, sessionID); hint != "" {
			err = &startupError{op: "run prompt", err: err, hint: hint}
		}
	}
	return report(r.p.stderr, err, logPath, r.p.stderrColour)
}

// warn writes a warning or notice to stderr: "Warning: <msg>" for load
// warnings (spec 06 §1.6.1 step 2), the bare text for notices.
func (r *printRun) warn(msg string, prefixed bool) {
	if prefixed {
		msg = "Warning: " + msg
	}
	fmt.Fprintln(r.p.stderr, msg)
}
