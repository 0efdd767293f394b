package tui

import (
	"os"
	"path/filepath"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/kimigo/kimigo/session"
	"github.com/kimigo/kimigo/ui/render"
)

// replay prints the end of a resumed conversation, as it looked live
// (spec 06 §5.1).
func (m *Model) replay(entries []session.TranscriptEntry) {
	if len(entries) == 0 {
		return
	}
	for _, e := range entries {
		switch e.Kind {
		case session.TranscriptUser:
			m.print(render.UserMessage(m.theme, e.Text, m.width, false))
			m.prompts = append(m.prompts, e.Text)
		case session.TranscriptShell:
			m.print(render.UserMessage(m.theme, e.Text, m.width, true))
		case session.TranscriptAssistant:
			m.print(m.textBlock(e.Text, true))
			m.lastAnswer = e.Text
		case session.TranscriptThinking:
			m.print(render.Thinking(m.theme, e.Text, m.width, false))
		case session.TranscriptTool:
			st := render.ToolDone
			switch {
			case !e.Done:
				st = render.ToolFailed
			case e.IsError:
				st = render.ToolFailed
			}
			t := &render.Tool{Name: e.ToolName, Args: e.ToolArgs, WorkDir: m.o.WorkDir, State: st, Output: e.Output}
			m.change(t, e.Display)
			if e.ToolName == "TodoList" && e.Done && !e.IsError {
				m.todosFrom(e.ToolArgs)
			}
			m.print(render.ToolCall(m.theme, t, m.width, false))
		case session.TranscriptCompaction:
			m.print(render.Compaction(m.theme, e.TokensBefore, e.TokensAfter, e.Text, m.width, false))
		}
	}
	m.print([]string{m.theme.Dim.Render("── resumed ──")})
}

// gitMsg carries the work dir's branch.
type gitMsg struct{ branch string }

// readGit finds the branch of the repository holding dir by reading
// .git/HEAD: no process, so the footer can refresh it after every turn.
func readGit(dir string) tea.Cmd {
	return func() tea.Msg {
		for d := dir; ; d = filepath.Dir(d) {
			head := filepath.Join(d, ".git", "HEAD")
			if fi, err := os.Stat(filepath.Join(d, ".git")); err == nil && !fi.IsDir() {
				// a worktree or submodule: .git is a file naming the git dir
				if b, err := os.ReadFile(filepath.Join(d, ".git")); err == nil {
					if g, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir: "); ok {
						if !filepath.IsAbs(g) {
							g = filepath.Join(d, g)
						}
						head = filepath.Join(g, "HEAD")
					}
				}
			}
			if b, err := os.ReadFile(head); err == nil {
				s := strings.TrimSpace(string(b))
				if ref, ok := strings.CutPrefix(s, "ref: refs/heads/"); ok {
					return gitMsg{branch: ref}
				}
				if len(s) >= 7 {
					return gitMsg{branch: s[:7]}
				}
				return gitMsg{}
			}
			if filepath.Dir(d) == d {
				return gitMsg{}
			}
		}
	}
}
