package permission

import (
	"context"
	"strings"
)

// gitControlPathAsk asks when the call touches the repository's own
// control files: a ".git" component on the way from the work dir, or the
// control directory a .git file points to (spec 04 §2.6.2, policy 14).
type gitControlPathAsk struct{}

func (gitControlPathAsk) Name() string { return "git-control-path-access-ask" }

func (gitControlPathAsk) Evaluate(_ context.Context, c *Call) (Verdict, error) {
	if c.Workspace.Dir == "" {
		return Verdict{}, nil
	}
	for _, a := range c.FileAccesses() {
		if c.m.inGitControl(c, a.Path) {
			return Verdict{Kind: Ask, Reason: map[string]any{"operation": string(a.Operation)}}, nil
		}
	}
	return Verdict{}, nil
}

// inGitControl reports whether p is a git control path seen from the work
// dir. The marker is probed on every call, so a repository created during
// the session counts at once.
func (m *Manager) inGitControl(c *Call, p string) bool {
	cwd := c.Workspace.Dir
	if cwd == "" {
		return false
	}
	win := m.win32()
	for _, part := range strings.FieldsFunc(relativePath(cwd, p, win), func(r rune) bool { return r == '/' || r == '\\' }) {
		if strings.EqualFold(part, ".git") {
			return true
		}
	}
	mk, ok := m.gitMarker(cwd)
	return ok && (within(p, mk.dotGit, win) || within(p, mk.controlDir, win))
}
