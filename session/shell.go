package session

import "context"

// ShellResult is how a user shell command ended: its output as Bash
// reports it, and whether it failed.
type ShellResult struct {
	Output  string
	IsError bool
}

// RunShell runs a command the user typed after "!" (spec 05 §2.7)
// through the main agent's Bash and process runner, with no turn and no
// model call: the command and its output are recorded in the
// conversation, which the model sees with the next prompt. The output
// streams as shell.output events after a shell.started, both named by
// commandID. Cancelling ctx stops the command. While a turn runs it is
// refused with an agent.BusyError.
func (s *Session) RunShell(ctx context.Context, commandID, command string) (ShellResult, error) {
	r, err := s.agent.RunShellCommand(ctx, commandID, command)
	return ShellResult{Output: r.Output, IsError: r.IsError}, err
}
