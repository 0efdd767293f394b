package tui

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/session"
	"github.com/kimigo/kimigo/ui/render"
)

// shellTimeout bounds a "!" command (spec 05 §2.7).
const shellTimeout = 120 * time.Second

// shellRun is a "!" command that runs in the foreground.
type shellRun struct {
	id      string // the session's command id (shellRunner)
	command string
	started time.Time
	cancel  context.CancelFunc
	tool    *render.Tool
	gen     int
}

// shellMsg carries a running command's output, or its end.
type shellMsg struct {
	gen   int
	chunk string
	done  bool
	err   error
	// result is the session's account of the command when it ran there
	// (shellRunner): its whole output as Bash reports it.
	result *session.ShellResult
	stream <-chan shellMsg
}

// runShell runs a "!" command. A session that runs user commands as part
// of the conversation (shellRunner) gets it; otherwise the interface runs
// it in the work dir with sh -c, and the model does not see it.
func (m *Model) runShell(command string) tea.Cmd {
	if m.busy() || m.sess == nil {
		m.queue = append(m.queue, queued{text: command, shell: true})
		return nil
	}
	m.print(render.UserMessage(m.theme, command, m.width, true))
	ctx, cancel := context.WithTimeout(m.ctx, shellTimeout)
	m.shellGen++
	run := &shellRun{id: fmt.Sprintf("user-%d-%d", m.now().UnixNano(), m.shellGen), command: command, started: m.now(), cancel: cancel, gen: m.shellGen,
		tool: &render.Tool{Name: "Bash", Args: mustArgs(command), State: render.ToolRunning}}
	m.shell = run
	m.touch()
	ch := make(chan shellMsg, 64)
	var once sync.Once
	life := m.ctx
	send := func(msg shellMsg) {
		select {
		case ch <- msg:
		case <-life.Done():
		}
	}
	output := func(chunk string) { send(shellMsg{gen: run.gen, chunk: chunk}) }
	sr, viaSession := m.sess.(shellRunner)
	dir := m.o.WorkDir
	go func() {
		defer close(ch)
		defer cancel()
		if viaSession { // the output streams as the session's events
			res, err := sr.RunShell(ctx, run.id, command)
			if err == nil {
				err = ctx.Err() // a cancelled command ends with its output so far
			}
			once.Do(func() { send(shellMsg{gen: run.gen, done: true, err: err, result: &res}) })
			return
		}
		err := localShell(ctx, dir, command, output)
		once.Do(func() { send(shellMsg{gen: run.gen, done: true, err: err}) })
	}()
	return tea.Batch(waitShell(ch), m.animate())
}

func mustArgs(command string) []byte {
	b, _ := json.Marshal(map[string]string{"command": command})
	return b
}

func waitShell(ch <-chan shellMsg) tea.Cmd {
	return func() tea.Msg {
		msg, ok := <-ch
		if !ok {
			return nil
		}
		msg.stream = ch
		return msg
	}
}

// shellEvent folds a running command's output or end into the model.
func (m *Model) shellEvent(msg shellMsg) tea.Cmd {
	run := m.shell
	if run == nil || msg.gen != run.gen {
		return nil
	}
	if !msg.done {
		out := run.tool.Output + msg.chunk
		if len(out) > maxLiveOutput {
			out = out[len(out)-maxLiveOutput:]
		}
		run.tool.Output = out
		m.streamDirty = true
		return waitShell(msg.stream)
	}
	run.tool.State = render.ToolDone
	if r := msg.result; r != nil {
		if r.Output != "" {
			run.tool.Output = r.Output
		}
		if r.IsError {
			run.tool.State = render.ToolFailed
		}
	}
	switch {
	case errors.Is(msg.err, context.Canceled):
		run.tool.State = render.ToolFailed
		run.tool.Output += "\nInterrupted"
	case errors.Is(msg.err, context.DeadlineExceeded):
		run.tool.State = render.ToolFailed
		run.tool.Output += fmt.Sprintf("\nStopped after %s", shellTimeout)
	case msg.err != nil:
		run.tool.State = render.ToolFailed
		run.tool.Output += "\n" + msg.err.Error()
	}
	m.print(render.ToolCall(m.theme, run.tool, m.width, false))
	m.shell = nil
	m.touch()
	m.urgent = true
	return m.drainQueue()
}

// shellOutput folds output of the "!" command the session runs.
func (m *Model) shellOutput(e event.ShellOutput) {
	run := m.shell
	if run == nil || e.CommandID != run.id {
		return
	}
	out := run.tool.Output + e.Text
	if len(out) > maxLiveOutput {
		out = out[len(out)-maxLiveOutput:]
	}
	run.tool.Output = out
	m.streamDirty = true
}

// lines renders the running command for the live region.
func (r *shellRun) lines(m *Model) []string {
	r.tool.Running = m.now().Sub(r.started)
	return render.ToolCall(m.theme, r.tool, m.width, false)
}

// localShell runs command with sh -c in dir, in its own process group,
// and hands its output over as it comes. Cancelling ctx stops the group:
// SIGTERM, then SIGKILL after a second.
func localShell(ctx context.Context, dir, command string, output func(string)) error {
	cmd := exec.Command("sh", "-c", command)
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	w := &chunkWriter{out: output}
	cmd.Stdout, cmd.Stderr = w, w
	if err := cmd.Start(); err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM) // the group may already be gone
		select {
		case <-done:
		case <-time.After(time.Second):
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-done
		}
		return ctx.Err()
	}
}

type chunkWriter struct {
	mu  sync.Mutex
	out func(string)
}

func (w *chunkWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.out(strings.ToValidUTF8(string(p), "\uFFFD"))
	return len(p), nil
}
