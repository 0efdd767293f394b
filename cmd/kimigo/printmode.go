package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"time"

	"github.com/kimigo/kimigo/config"
	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/internal/print"
	"github.com/kimigo/kimigo/loop"
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
	// started is when the run began; ran says print.Run wrote the run's
	// ending (the result object of the JSON formats).
	started time.Time
	ran     bool
	// goal is the goal a `-p "/goal <objective>"` run starts; nil runs the
	// prompt.
	goal *print.Goal
}

// parseGoal reads a /goal prompt (spec 06 §1.6.1 step 6): the forms that
// start a goal run it; every other /goal form goes to the model as the
// prompt it is.
func (r *printRun) parseGoal() error {
	cmd, ok, err := session.ParseGoalCommand(r.prompt)
	switch {
	case !ok:
		return nil
	case err != nil:
		return &usageError{msg: err.Error()}
	case cmd.Starts():
		r.goal = &print.Goal{Objective: cmd.Objective, Replace: cmd.Kind == session.GoalReplace}
	}
	return nil
}

// runPrint runs print mode and returns the exit code.
func runPrint(o *options, prompt string, env config.Env, p proc) int {
	ctx, sigs, stop := watchSignals(context.Background())
	defer stop()
	logs := &logFile{}
	defer logs.Close()
	level := &slog.LevelVar{}
	r := &printRun{o: o, prompt: prompt, env: env, p: p, logs: logs, level: level, logger: newLogger(logs, level),
		started: time.Now()}
	s, err := r.open(ctx)
	if err == nil {
		err = r.run(ctx, s)
		if cerr := r.cleanup(s); err == nil && cerr != nil && sigs.exitCode() == 0 {
			err = cerr
		}
	}
	if code := sigs.exitCode(); code != 0 {
		r.logger.Info("print run stopped by a signal", "exit_code", code)
		r.failedHint()
		return code
	}
	var stopped *print.GoalStopped
	if errors.As(err, &stopped) { // the summary and the resume hint are written
		return stopped.Code
	}
	if err != nil {
		return r.fail(err)
	}
	return exitOK
}

// open loads the configuration and opens (or creates) the session (spec
// 06 §1.4) with this run's permission mode and sandbox (safety.go); the
// session resolves the model, the profile, the rules and the tools, and
// builds the agent. A /goal prompt that does not parse fails first:
// nothing is opened.
func (r *printRun) open(ctx context.Context) (*session.Session, error) {
	if err := r.configure(); err != nil {
		return nil, err
	}
	if n := r.o.maxSteps; n > 0 { // this run's limit, over config.toml's
		lc := r.cfg.LoopControl
		lc.MaxStepsPerTurn = &n
		r.cfg.LoopControl = lc
		r.logger.Info("print run step limit", "flag", r.o.maxStepsFlag, "max_steps", n)
	}
	if err := r.parseGoal(); err != nil {
		return nil, err
	}
	id, _ := r.o.sessionID()
	userHome, _ := r.p.userHome() // unknown only matters for "~" in local.toml
	safety := headlessSettings(r.o, r.cfg)
	r.printSafetyWarning(safety)
	s, err := session.Open(ctx, session.Options{
		Config: r.cfg, Home: r.home, WorkDir: r.workDir, UserHome: userHome,
		Resume: id, Continue: r.o.cont && id == "", Model: r.o.model, Agent: r.o.agent, AgentFiles: r.o.agentFiles,
		AppendSystemPrompt: r.o.appendPrompt, SkillsDirs: r.o.skillsDirs,
		AddDirs: r.o.addDirs, Mode: safety.mode, ModeForThisRun: true, Plan: r.o.plan, Sandbox: safety.sandbox, RunRules: safety.rules,
		Version: versionString(), Logger: r.logger, LogTo: r.logs.switchTo,
		Notify: func(n session.Notice) { r.warn(n.Text, n.Warning) },
	})
	var se *session.Error
	if errors.As(err, &se) && se.Code == session.CodeWorkDirMismatch {
		fmt.Fprintf(r.p.stderr, "%s\n  %s\n", se.Error(), se.Hint()+" -p "+r.nextPrompt())
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
	r.ran = true
	return print.Run(ctx, print.Options{
		Host: s, Prompt: r.prompt, Format: outputFormat(r.o, r.env), Version: versionString(),
		SessionID: s.ID(), ResumeCommand: resumeCommand(s.ID()),
		Stdout: r.p.stdout, Stderr: r.p.stderr, StdoutWidth: r.p.stdoutWidth, StderrWidth: r.p.stderrWidth,
		Progress: r.p.stderrTTY || r.o.verbose, Goal: r.goal, Logger: r.logger,
	})
}

// resumeCommand is the command that runs the next prompt in session id:
// print mode's form until the interactive interface exists (issue 15
// item 5).
func resumeCommand(id string) string {
	return session.ResumeCommand(id) + ` -p "…"`
}

// nextPrompt is the -p argument of a hint that reruns this run: the
// prompt itself when it came from the command line and is short, else a
// placeholder.
func (r *printRun) nextPrompt() string {
	if p := r.o.promptText(); p != "" && p != "-" && p == r.prompt && len(p) <= 200 && !strings.ContainsAny(p, "\n\r") {
		return shellQuote(p)
	}
	return `"…"`
}

// failedHint writes the resume hint of a failed or interrupted run in the
// text format, after its error; the JSON formats carry it in the result
// object. A run whose session never opened has none.
func (r *printRun) failedHint() {
	if r.sess == nil || outputFormat(r.o, r.env) != print.FormatText {
		return
	}
	fmt.Fprintf(r.p.stderr, "To resume this session: %s\n", resumeCommand(r.sess.ID()))
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
		if !r.logs.written() { // a read-only data root, or KIMI_LOG_LEVEL=off: no log to see
			logPath = ""
		}
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
	case errors.As(err, &f) && f.Code == loop.CodeMaxStepsExceeded && r.o.maxSteps > 0:
		err = &startupError{op: "run prompt", err: err,
			hint: fmt.Sprintf("this run's limit is %s %d: give a larger one, or leave it out", r.o.maxStepsFlag, r.o.maxSteps)}
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
	if !r.ran && outputFormat(r.o, r.env) != print.FormatText {
		// The run never started: the result object still ends the output.
		var id, cmd string
		if r.sess != nil {
			id, cmd = r.sess.ID(), resumeCommand(r.sess.ID())
		}
		if werr := print.WriteResult(r.p.stdout, print.FailedResult(err, id, cmd, time.Since(r.started))); werr != nil {
			r.logger.Warn("write the result object", "err", werr)
		}
	}
	code := report(r.p.stderr, err, logPath, r.p.stderrColour)
	r.failedHint()
	return code
}

// warn writes a warning or notice to stderr: "Warning: <msg>" for load
// warnings (spec 06 §1.6.1 step 2), the bare text for notices.
func (r *printRun) warn(msg string, prefixed bool) {
	if prefixed {
		msg = "Warning: " + msg
	}
	fmt.Fprintln(r.p.stderr, msg)
}
