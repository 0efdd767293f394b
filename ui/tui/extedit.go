package tui

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"strings"

	tea "charm.land/bubbletea/v2"
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
	command := m.o.TUI.Editor
	for _, v := range []string{"VISUAL", "EDITOR"} {
		if command == "" {
			command = m.o.TUI.env(v)
		}
	}
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
