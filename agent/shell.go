package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/kimigo/kimigo/agent/history"
	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/loop"
	"github.com/kimigo/kimigo/tools"
)

// ShellTimeoutSeconds bounds a user shell command (spec 05 §2.7); past it
// the command moves to the background like a foreground Bash call.
const ShellTimeoutSeconds = 120

// ShellResult is how a user shell command ended.
type ShellResult struct {
	// Output is the command's output as Bash reports it.
	Output  string
	IsError bool
}

// ErrNoShell is RunShellCommand's error when the agent has no Bash tool.
var ErrNoShell = errors.New("run shell command: this agent has no Bash tool")

// RunShellCommand runs a command the user typed after "!" (spec 05 §2.7):
// no model call and no turn. The command goes into history as a
// bash-input message, runs through the agent's Bash tool (its process
// runner and background manager, with a 120 s timeout) without a
// permission check, streams its output as shell.output events (after a
// shell.started naming its task), and its output is recorded as a
// bash-output message; both records are flushed before it returns. While
// a turn runs it is refused with a BusyError. commandID names the events.
func (a *Agent) RunShellCommand(ctx context.Context, commandID, command string) (ShellResult, error) {
	if a.turns.HasActiveTurn() {
		return ShellResult{}, &BusyError{Op: "run a shell command", TurnID: a.turns.CurrentID()}
	}
	var bash loop.ExecutableTool
	if a.manager != nil {
		for _, t := range a.manager.Tools(nil) {
			if t.Definition().Name == tools.NameBash {
				bash = t
			}
		}
	}
	if bash == nil {
		return ShellResult{}, ErrNoShell
	}
	raw, err := json.Marshal(map[string]any{"command": command, "timeout": ShellTimeoutSeconds})
	if err != nil {
		return ShellResult{}, err
	}
	ex, early, err := bash.ResolveExecution(raw)
	if err != nil {
		return ShellResult{}, fmt.Errorf("run shell command: %w", err)
	}
	if err := a.appendMessage(ctx, history.BashInput(command)); err != nil {
		return ShellResult{}, err
	}
	var res loop.ToolResult
	if early != nil {
		res = *early
	} else {
		header := event.InTurn(event.NoTurn)
		res, err = ex.Execute(ctx, loop.ExecCtx{ToolCallID: "shell-" + commandID,
			OnUpdate: func(u loop.ProgressUpdate) {
				if u.Text != "" {
					a.events.Publish(event.ShellOutput{Header: header, CommandID: commandID, Text: u.Text})
				}
			},
			OnForegroundTaskStart: func(taskID string) {
				a.events.Publish(event.ShellStarted{Header: header, CommandID: commandID, TaskID: taskID})
			}})
		if err != nil {
			res = loop.ToolResult{Output: loop.TextOutput(err.Error()), IsError: true}
		}
	}
	out := ShellResult{Output: res.Output.Text(), IsError: res.IsError}
	stdout, stderr := out.Output, ""
	if out.IsError {
		stdout, stderr = "", out.Output // a failure's text is what the user reads as stderr
	}
	if err := a.appendMessage(ctx, history.BashOutput(stdout, stderr, out.IsError)); err != nil {
		return out, err
	}
	return out, a.log.Flush(ctx)
}
