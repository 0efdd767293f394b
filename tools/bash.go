package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/loop"
	"github.com/kimigo/kimigo/osenv"
	"github.com/kimigo/kimigo/workspace"
)

// Bash limits (spec 05 §4.6; output: ERRATA 22, §6.4).
const (
	BashForegroundDefault = 60 * time.Second
	BashForegroundMax     = 300 * time.Second
	BashBackgroundDefault = 600 * time.Second
	BashBackgroundMax     = 86_400 * time.Second
	// BashOutputLimit is how much output a result keeps inline: the first
	// 40 % and the last 60 % of it when the command prints more.
	BashOutputLimit = 50_000
	// BashOutputCeiling stops a command that prints more than this.
	BashOutputCeiling = 16 << 20
	// bashKillGrace is how long a timed-out command gets between SIGTERM
	// and SIGKILL; a cancelled one gets bashCancelGrace, which stays under
	// the loop's 2 s grace so the kill finishes before the call settles.
	bashKillGrace   = 5 * time.Second
	bashCancelGrace = 1500 * time.Millisecond
	// bashDrainWait bounds how long output is still read after the shell
	// exited (a grandchild may hold the pipes open).
	bashDrainWait = 250 * time.Millisecond
	// bashLabelRunes is how much of a command a call's label shows.
	bashLabelRunes = 50
)

//go:embed bash.md
var bashMD string

const bashSchema = `{
  "type": "object",
  "properties": {
    "command": {"type": "string", "minLength": 1, "description": "Shell command to run."},
    "cwd": {"type": "string", "description": "Directory to run in (default: the working directory)."},
    "timeout": {"type": "integer", "exclusiveMinimum": 0, "default": %d, "description": "Seconds before the command is stopped."},
    "description": {"type": "string", "description": "What the command does, in a few words."},
    "run_in_background": {"type": "boolean", "default": false%s},
    "disable_timeout": {"type": "boolean", "default": false, "description": "Background only: no timeout."}
  },
  "required": ["command"],
  "additionalProperties": false
}`

// BashOptions configure NewBash.
type BashOptions struct {
	Base
	// Background runs run_in_background commands. With nil, or with
	// AllowBackground false, background execution is unavailable.
	Background BackgroundTasks
	// AllowBackground says the task tools (TaskList, TaskOutput, TaskStop)
	// are enabled, so the model can follow a background task.
	AllowBackground bool
	// BackgroundTimeout is the default timeout of background commands:
	// 0 means BashBackgroundDefault, a negative value means none.
	BackgroundTimeout time.Duration
	// NoAutoBackground kills a foreground command at its timeout instead
	// of moving it to the background (config
	// background.bash_auto_background_on_timeout = false).
	NoAutoBackground bool
	// LogDir receives the full output of commands whose inline output was
	// cut; "" means the environment's temp dir.
	LogDir string
	// Starter, when set, gives the osenv.Starter each command starts with
	// (the session's sandbox, issue 16): a nil Starter runs the command
	// unconfined, an error refuses to start it and is what the model
	// reads. Foreground and background commands both go through it.
	Starter CommandStarter
}

// CommandStarter returns the osenv.Starter a command starts with; nil
// means this machine's own fork and exec. An error means the command must
// not run (a promised sandbox is unavailable). Safe for concurrent use.
type CommandStarter func() (osenv.Starter, error)

// Bash is the Bash tool: a command string in a fresh shell.
type Bash struct {
	opts BashOptions
	def  llm.Tool
	// second is the unit of the timeout argument; tests shorten it.
	second time.Duration
}

// NewBash returns the Bash tool.
func NewBash(opts BashOptions) *Bash {
	opts.Base = opts.Base.withDefaults()
	if opts.BackgroundTimeout == 0 {
		opts.BackgroundTimeout = BashBackgroundDefault
	}
	bg := opts.Background != nil && opts.AllowBackground
	data := struct {
		Shell                                                              string
		OutputLimit                                                        int
		Background, AutoBackground                                         bool
		ForegroundDefault, ForegroundMax, BackgroundDefault, BackgroundMax int
	}{
		Shell: opts.Env.Shell().Name, OutputLimit: BashOutputLimit, Background: bg,
		AutoBackground:    bg && !opts.NoAutoBackground,
		ForegroundDefault: seconds(BashForegroundDefault), ForegroundMax: seconds(BashForegroundMax),
		BackgroundDefault: max(seconds(opts.BackgroundTimeout), 0), BackgroundMax: seconds(BashBackgroundMax),
	}
	bgDesc := ""
	if bg {
		bgDesc = `, "description": "Start as a background task (needs description)."`
	}
	schema := fmt.Sprintf(bashSchema, seconds(BashForegroundDefault), bgDesc)
	return &Bash{opts: opts, def: definition(NameBash, bashMD, data, schema), second: time.Second}
}

func seconds(d time.Duration) int { return int(d / time.Second) }

// Definition implements loop.ExecutableTool.
func (t *Bash) Definition() llm.Tool { return t.def }

type bashArgs struct {
	Command         string  `json:"command"`
	Cwd             *string `json:"cwd"`
	Timeout         *int    `json:"timeout"`
	Description     string  `json:"description"`
	RunInBackground bool    `json:"run_in_background"`
	DisableTimeout  bool    `json:"disable_timeout"`
}

// ResolveExecution implements loop.ExecutableTool. Bash declares no
// accesses, so it never runs beside another call.
func (t *Bash) ResolveExecution(raw json.RawMessage) (loop.Execution, *loop.ToolResult, error) {
	var a bashArgs
	if r := decodeArgs(NameBash, raw, &a); r != nil {
		return loop.Execution{}, r, nil
	}
	if a.Command == "" {
		return loop.Execution{}, errorResult("command must not be empty."), nil
	}
	if a.Timeout != nil && *a.Timeout <= 0 {
		return loop.Execution{}, errorResult("timeout must be a positive number of seconds; got %d.", *a.Timeout), nil
	}
	cwd := t.opts.Workspace.Dir
	if a.Cwd != nil {
		cwd = *a.Cwd
	}
	label := "Running: "
	if a.RunInBackground {
		label = "Starting background: "
	}
	return loop.Execution{
		Description:  label + firstRunes(a.Command, bashLabelRunes),
		Display:      &loop.CommandDisplay{Command: a.Command, Cwd: cwd, Description: a.Description, Language: "bash"},
		ApprovalRule: workspace.ApprovalRule(NameBash, a.Command),
		MatchesRule:  workspace.StringRuleMatcher(a.Command),
		Execute: func(ctx context.Context, ec loop.ExecCtx) (loop.ToolResult, error) {
			return t.execute(ctx, ec, a, cwd)
		},
	}, nil, nil
}

func (t *Bash) execute(ctx context.Context, ec loop.ExecCtx, a bashArgs, cwd string) (loop.ToolResult, error) {
	if ctx.Err() != nil {
		return loop.ErrorResult("Aborted before command started"), nil
	}
	if a.RunInBackground {
		if t.opts.Background == nil || !t.opts.AllowBackground {
			return loop.ErrorResult("Background execution is not available for this agent because TaskOutput and TaskStop are not enabled."), nil
		}
		if strings.TrimSpace(a.Description) == "" {
			return loop.ErrorResult("description is required when run_in_background is true."), nil
		}
	}
	proc, err := t.start(a.Command, cwd)
	if err != nil {
		return loop.ErrorResult(fmt.Sprintf("Failed to start the command: %s", err)), nil
	}
	if a.RunInBackground {
		return t.background(ctx, proc, a)
	}
	timeout := BashForegroundDefault
	if a.Timeout != nil {
		timeout = min(time.Duration(*a.Timeout)*time.Second, BashForegroundMax)
	}
	if t.opts.Background != nil {
		return t.foregroundTask(ctx, ec, proc, a, timeout)
	}
	return t.foreground(ctx, ec, proc, timeout)
}

// start spawns `<shell> -c "cd '<cwd>' && <command>"` in a new process
// group with stdin closed. A bad cwd fails inside the shell, as a
// non-zero exit with cd's message. A command in the workspace dir itself
// (no cwd argument) starts there with the PWD and OLDPWD that cd would
// have set and no cd in the script, so a shell that does not exec the
// last command of a list (bash before 5.1, dash) spares a fork.
func (t *Bash) start(command, cwd string) (osenv.Process, error) {
	env := t.opts.Env
	shell := env.Shell()
	prompt := env.Getenv("GIT_TERMINAL_PROMPT")
	if prompt == "" {
		prompt = "0"
	}
	vars := []string{"NO_COLOR=1", "TERM=dumb", "GIT_TERMINAL_PROMPT=" + prompt, "SHELL=" + shell.Path}
	script := "cd " + shellQuote(cwd) + " && " + command
	if cwd == t.opts.Workspace.Dir && filepath.IsAbs(cwd) {
		script = command
		vars = append(vars, "PWD="+cwd, "OLDPWD="+cwd)
	}
	var starter osenv.Starter
	if t.opts.Starter != nil {
		var err error
		if starter, err = t.opts.Starter(); err != nil {
			return nil, err
		}
	}
	return env.Exec(osenv.Cmd{
		Args: []string{shell.Path, "-c", script},
		Dir:  t.opts.Workspace.Dir,
		Env:  vars,
		// One pipe keeps stdout and stderr in the order written; progress
		// updates then all report kind stdout.
		CombinedOutput: true,
		Starter:        starter,
	})
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func (t *Bash) background(ctx context.Context, proc osenv.Process, a bashArgs) (loop.ToolResult, error) {
	var timeout time.Duration
	switch {
	case a.DisableTimeout:
	case a.Timeout != nil:
		timeout = min(time.Duration(*a.Timeout)*time.Second, BashBackgroundMax)
	case t.opts.BackgroundTimeout > 0:
		timeout = t.opts.BackgroundTimeout
	}
	desc := strings.TrimSpace(a.Description)
	task, err := t.opts.Background.StartProcess(ctx, BackgroundProcess{Process: proc, Command: a.Command, Description: desc, Timeout: timeout})
	if err != nil {
		_ = proc.Kill(syscall.SIGTERM) // refused: the process must not run unowned
		_ = proc.Close()               // nobody will read its output
		return loop.ErrorResult(err.Error()), nil
	}
	out := strings.Join(taskStartedLines(task.ID, proc.Pid(), desc,
		"next_step: Its completion is delivered to you automatically in a later turn; do not wait for it, poll it, or call TaskOutput on it.",
		"next_step: Call TaskStop only if it has to be cancelled."), "\n")
	return loop.ToolResult{Output: loop.TextOutput(out), Message: "Background task started.", Brief: "Started " + task.ID}, nil
}

// taskStartedLines is the key/value block of a command that runs as a
// background task (spec 05 §4.6 step 8).
func taskStartedLines(id string, pid int, desc string, nextSteps ...string) []string {
	lines := []string{"task_id: " + id, "pid: " + strconv.Itoa(pid), "description: " + desc,
		"status: running", "automatic_notification: true"}
	lines = append(lines, nextSteps...)
	return append(lines, "human_shell_hint: The user can follow it with /tasks.")
}

// backgroundDeadline is the deadline of a command that moved to the
// background: the background default; none when that is negative.
func (t *Bash) backgroundDeadline() time.Duration {
	return max(t.opts.BackgroundTimeout, 0)
}

// foregroundLabel describes a foreground command's task.
func foregroundLabel(a bashArgs) string {
	if d := strings.TrimSpace(a.Description); d != "" {
		return d
	}
	return "Bash: " + firstRunes(a.Command, 60)
}

// foregroundTask runs a foreground command as a task of the background
// manager (spec 05 §4.6 steps 4–9): the manager reads its output and
// owns its deadline; at the deadline the command moves to the background
// (or, with auto-background off, is killed), and the call returns.
func (t *Bash) foregroundTask(ctx context.Context, ec loop.ExecCtx, proc osenv.Process, a bashArgs, timeout time.Duration) (loop.ToolResult, error) {
	capture := newOutputCapture(t.opts.Env, "", BashOutputLimit)
	capture.noLog = true // the manager keeps the full log
	auto := t.opts.AllowBackground && !t.opts.NoAutoBackground
	task, err := t.opts.Background.RunProcess(ctx, ForegroundProcess{
		BackgroundProcess: BackgroundProcess{Process: proc, Command: a.Command, Description: foregroundLabel(a),
			Timeout: timeout / time.Second * t.second},
		AutoBackground: auto,
		DetachTimeout:  t.backgroundDeadline(),
		PersistAfter:   BashOutputLimit,
		OnOutput: func(p []byte) {
			capture.write(p)
			ec.OnUpdate(loop.ProgressUpdate{Kind: loop.ProgressStdout, Text: string(p)})
		},
	})
	if err != nil {
		_ = proc.Kill(syscall.SIGTERM) // refused: the process must not run unowned
		_ = proc.Close()
		return loop.ErrorResult(err.Error()), nil
	}
	if ec.OnForegroundTaskStart != nil {
		ec.OnForegroundTaskStart(task.ID())
	}
	select {
	case <-task.Released():
	case <-ctx.Done():
		// The manager stops the command as interrupted by the user.
		return loop.ToolResult{}, context.Cause(ctx)
	}
	rel := task.Release()
	if rel.Kind != ReleaseTerminal {
		return t.detachedResult(task.ID(), proc.Pid(), rel, capture), nil
	}
	info := rel.Info
	saved := savedLog{taskID: task.ID(), path: rel.OutputPath, size: rel.OutputSize, taskOutput: t.opts.AllowBackground}
	switch {
	case info.Status == TaskTimedOut:
		return loop.ToolResult{Output: loop.TextOutput(appendMessage(capture.text(), fmt.Sprintf("Command killed by timeout (%s)", timeoutLabel(timeout)))),
			IsError: true, Truncated: capture.truncated(), Brief: "Killed by timeout"}, nil
	case info.Status == TaskKilled && info.StopReason == "Interrupted by user":
		return loop.ErrorResult("Interrupted by user"), nil
	case (info.Status == TaskKilled || info.Status == TaskFailed) && info.StopReason != "":
		return loop.ToolResult{Output: loop.TextOutput(appendMessage(capture.text(), info.StopReason)),
			IsError: true, Truncated: capture.truncated(), Brief: firstRunes(info.StopReason, 60)}, nil
	}
	code := -1
	if info.ExitCode != nil {
		code = *info.ExitCode
	}
	return t.finish(capture, code, saved), nil
}

// detachedResult is the result of a foreground command that moved to the
// background: the task block, then the output so far.
func (t *Bash) detachedResult(id string, pid int, rel ForegroundRelease, c *outputCapture) loop.ToolResult {
	step := "next_step: The command now runs in the background; its completion is delivered to you automatically in a later turn. Do not wait for it or poll it"
	if t.opts.AllowBackground {
		step += "; TaskOutput shows its output so far without blocking"
	}
	lines := taskStartedLines(id, pid, rel.Info.Description, step+".")
	out := strings.Join(lines, "\n")
	if o := c.text(); o != "" {
		out += "\n\nforeground_output:\n" + o
	}
	res := loop.ToolResult{Output: loop.TextOutput(out), Message: "Task moved to background.", Brief: "Backgrounded " + id}
	if rel.Kind == ReleaseTimeoutDetached {
		res.Message, res.Brief = "Command timed out and moved to background.", "Backgrounded "+id+" after timeout"
	}
	return res
}

// chunk is one read from a pipe.
type chunk struct {
	kind loop.ProgressKind
	data []byte
}

// stopReason is why a foreground command was stopped, if it was.
type stopReason int

const (
	notStopped stopReason = iota
	stoppedTimeout
	stoppedCancel
	stoppedCeiling
)

// foreground runs proc to its end, forwarding output as progress and
// capturing it; a timeout, the output ceiling or ctx stops the whole
// process group (SIGTERM, then SIGKILL after a grace).
func (t *Bash) foreground(ctx context.Context, ec loop.ExecCtx, proc osenv.Process, timeout time.Duration) (loop.ToolResult, error) {
	capture := newOutputCapture(t.opts.Env, t.opts.LogDir, BashOutputLimit)
	chunks := make(chan chunk, 16)
	var pumps sync.WaitGroup
	pumps.Add(2)
	go pump(proc.Stdout(), loop.ProgressStdout, chunks, &pumps)
	go pump(proc.Stderr(), loop.ProgressStderr, chunks, &pumps)
	go func() { pumps.Wait(); close(chunks) }() // owned here: the loop below waits for the close

	deadline := time.NewTimer(timeout / time.Second * t.second)
	defer deadline.Stop()
	var (
		stopped            stopReason
		killTimer, drain   <-chan time.Time
		exited, pipesEnded bool
		done               = proc.Done()
		ctxDone            = ctx.Done()
	)
	stop := func(why stopReason, grace time.Duration) {
		if stopped != notStopped {
			return
		}
		stopped = why
		_ = proc.Kill(syscall.SIGTERM) // a failure leaves the SIGKILL below
		killTimer = time.After(grace)
	}
	for !exited || !pipesEnded {
		select {
		case c, ok := <-chunks:
			if !ok {
				pipesEnded, chunks = true, nil
				continue
			}
			if capture.total+int64(len(c.data)) > BashOutputCeiling {
				capture.stopLog = true
				stop(stoppedCeiling, bashKillGrace)
				continue
			}
			capture.write(c.data)
			ec.OnUpdate(loop.ProgressUpdate{Kind: c.kind, Text: string(c.data)})
		case <-done:
			exited, done = true, nil
			if stopped != notStopped {
				_ = proc.Kill(syscall.SIGKILL) // grandchildren that ignored SIGTERM
			}
			drain = time.After(bashDrainWait)
		case <-drain:
			_ = proc.Close() // stop waiting for output a grandchild holds open
		case <-deadline.C:
			stop(stoppedTimeout, bashKillGrace)
		case <-ctxDone:
			ctxDone = nil
			stop(stoppedCancel, bashCancelGrace)
		case <-killTimer:
			killTimer = nil
			_ = proc.Kill(syscall.SIGKILL)
		}
	}
	_ = proc.Close() // the pipes are drained or abandoned
	capture.closeLog()
	if err := proc.Wait(); err != nil {
		return loop.ErrorResult(fmt.Sprintf("Failed to wait for the command: %s", err)), nil
	}
	code, _ := proc.ExitCode()
	switch stopped {
	case stoppedCancel:
		return loop.ToolResult{}, context.Cause(ctx)
	case stoppedTimeout:
		return loop.ToolResult{Output: loop.TextOutput(appendMessage(capture.text(), fmt.Sprintf("Command killed by timeout (%s)", timeoutLabel(timeout)))),
			IsError: true, Truncated: capture.truncated(), Brief: "Killed by timeout"}, nil
	case stoppedCeiling:
		return loop.ToolResult{Output: loop.TextOutput(appendMessage(capture.text(), fmt.Sprintf(
			"Output limit exceeded: the command printed more than %d MiB and was stopped. Redirect large output to a file and read it in slices.", BashOutputCeiling>>20))),
			IsError: true, Truncated: true, Brief: "Output limit exceeded"}, nil
	}
	return t.finish(capture, code, savedLog{path: capture.logPath, size: capture.total}), nil
}

func pump(r io.Reader, kind loop.ProgressKind, out chan<- chunk, wg *sync.WaitGroup) {
	defer wg.Done()
	for {
		buf := make([]byte, 32<<10)
		n, err := r.Read(buf)
		if n > 0 {
			out <- chunk{kind: kind, data: buf[:n]}
		}
		if err != nil {
			return
		}
	}
}

func timeoutLabel(d time.Duration) string {
	if d%time.Second == 0 {
		return fmt.Sprintf("%ds", d/time.Second)
	}
	return fmt.Sprintf("%dms", d.Milliseconds())
}

// savedLog is where the full output of a command went.
type savedLog struct {
	// taskID is the command's task, when a task manager ran it;
	// taskOutput says TaskOutput can read it.
	taskID     string
	taskOutput bool
	path       string
	size       int64
}

// finish builds the result of a command that exited on its own.
func (t *Bash) finish(c *outputCapture, code int, saved savedLog) loop.ToolResult {
	out := c.text()
	res := loop.ToolResult{Truncated: c.truncated()}
	var msg string
	if code == 0 {
		msg = "Command executed successfully."
		if out != "" && !c.truncated() {
			msg = ""
		}
	} else {
		if out == "" {
			out = fmt.Sprintf("Process exited with code %d", code)
		}
		msg = fmt.Sprintf("Command failed with exit code: %d.", code)
		res.IsError, res.Brief = true, fmt.Sprintf("Failed with exit code: %d", code)
	}
	if c.truncated() {
		msg = strings.TrimSpace(msg + " " + truncatedSuffix)
	}
	out = appendMessage(out, msg)
	if c.truncated() && saved.path != "" {
		out += "\n\n[Full output saved]"
		if saved.taskID != "" {
			out += "\ntask_id: " + saved.taskID
		}
		out += fmt.Sprintf("\noutput_path: %s\noutput_size_bytes: %d\nnext_step: Use Read with output_path to page through the full log", saved.path, saved.size)
		if saved.taskID != "" && saved.taskOutput {
			out += fmt.Sprintf(`, or TaskOutput(task_id="%s")`, saved.taskID)
		}
		out += "."
	}
	res.Output = loop.TextOutput(out)
	return res
}
