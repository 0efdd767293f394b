package tui

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/kimigo/kimigo/tools"
	"github.com/kimigo/kimigo/ui/render"
)

// terminalControl hands the terminal to a program run in the foreground
// and takes it back; the program driver provides it.
type terminalControl interface {
	Release() error
	Acquire() error
}

// editorDoneMsg is the end of an external edit of the draft.
type editorDoneMsg struct {
	path string
	err  error
}

// externalEditor opens the draft in the user's editor (Ctrl-G):
// [editor] command in tui.toml, else $VISUAL, else $EDITOR.
func (m *Model) externalEditor() tea.Cmd {
	command := m.editorCommand()
	if command == "" {
		m.notice(render.Warning, "No editor is set: choose one with /editor, or set VISUAL or EDITOR.")
		return nil
	}
	if m.term == nil {
		m.notice(render.Warning, "The external editor needs a terminal.")
		return nil
	}
	f, err := os.CreateTemp("", "kimigo-draft-*.md")
	if err != nil {
		m.notice(render.Error, "Cannot write the draft: "+err.Error())
		return nil
	}
	path := f.Name()
	_, werr := f.WriteString(m.ed.Value())
	if err := errors.Join(werr, f.Close()); err != nil {
		m.notice(render.Error, "Cannot write the draft: "+err.Error())
		return nil
	}
	fields := strings.Fields(command)
	cmd := exec.Command(fields[0], append(fields[1:], path)...)
	return tea.Exec(&foreground{cmd: cmd, term: m.term}, func(err error) tea.Msg { return editorDoneMsg{path: path, err: err} })
}

// editorCommand is the user's editor: [editor] command in tui.toml, else
// $VISUAL, else $EDITOR; "" when none is set.
func (m *Model) editorCommand() string {
	command := m.o.TUI.Editor
	for _, v := range []string{"VISUAL", "EDITOR"} {
		if command == "" {
			command = m.o.TUI.env(v)
		}
	}
	return command
}

// planEditedMsg is the end of an edit of the plan under review.
type planEditedMsg struct {
	requestID string
	path      string
	err       error
}

// editPlan opens the plan file under review in the user's editor, vi
// when none is set (spec 04 §5.6: the plan file is the plan, so the
// edit is what an approval then approves).
func (m *Model) editPlan(p *approvalPanel) tea.Cmd {
	d, ok := p.req.Display.(*tools.PlanReviewDisplay)
	if !ok || d.Path == "" {
		m.notice(render.Warning, "This plan has no plan file to edit.")
		return nil
	}
	if m.term == nil {
		m.notice(render.Warning, "The external editor needs a terminal.")
		return nil
	}
	command := m.editorCommand()
	if command == "" {
		command = "vi"
	}
	fields := strings.Fields(command)
	cmd := exec.Command(fields[0], append(fields[1:], d.Path)...)
	id, path := p.req.RequestID, d.Path
	return tea.Exec(&foreground{cmd: cmd, term: m.term}, func(err error) tea.Msg {
		return planEditedMsg{requestID: id, path: path, err: err}
	})
}

// planEdited shows the edited plan in the panel of its review, if that
// review is still open.
func (m *Model) planEdited(msg planEditedMsg) tea.Cmd {
	m.urgent = true
	p, ok := m.overlay.(*approvalPanel)
	if !ok || p.req.RequestID != msg.requestID {
		return nil
	}
	if msg.err != nil {
		m.notice(render.Warning, "The editor failed: "+msg.err.Error())
	}
	b, err := os.ReadFile(msg.path)
	if err != nil {
		m.notice(render.Warning, "Cannot read the plan back: "+err.Error())
		return nil
	}
	if strings.TrimSpace(string(b)) == "" {
		m.notice(render.Warning, "The plan file is empty; approving approves the plan as it was presented.")
		return nil
	}
	p.setPlan(string(b))
	m.touch()
	return nil
}

func (m *Model) editorDone(msg editorDoneMsg) tea.Cmd {
	defer os.Remove(msg.path) // the draft is read or the edit failed
	if msg.err != nil {
		m.notice(render.Warning, "The editor failed; the draft is unchanged: "+msg.err.Error())
		return nil
	}
	b, err := os.ReadFile(msg.path)
	if err != nil {
		m.notice(render.Warning, "Cannot read the draft back: "+err.Error())
		return nil
	}
	m.ed.SetValue(strings.TrimRight(string(b), "\n"))
	m.touch()
	return nil
}

// foreground runs a command with the terminal released to it.
type foreground struct {
	cmd  *exec.Cmd
	term terminalControl
}

func (f *foreground) Run() error {
	if err := f.term.Release(); err != nil {
		return err
	}
	err := f.cmd.Run()
	return errors.Join(err, f.term.Acquire())
}

func (f *foreground) SetStdin(r io.Reader)  { f.cmd.Stdin = r }
func (f *foreground) SetStdout(w io.Writer) { f.cmd.Stdout = w }
func (f *foreground) SetStderr(w io.Writer) { f.cmd.Stderr = w }
