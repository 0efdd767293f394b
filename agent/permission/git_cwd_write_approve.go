package permission

import (
	"context"

	"github.com/kimigo/kimigo/loop"
)

// gitCwdWriteApprove approves Write and Edit inside the workspace when the
// work dir is in a git work tree, where every change can be reviewed and
// undone (spec 04 §2.6.3, policy 18). Never on Windows paths. Containment
// is lexical, so a symlink inside the workspace counts as inside.
type gitCwdWriteApprove struct{}

func (gitCwdWriteApprove) Name() string { return "git-cwd-write-approve" }

func (gitCwdWriteApprove) Evaluate(_ context.Context, c *Call) (Verdict, error) {
	if (c.Name() != toolWrite && c.Name() != toolEdit) || c.m.win32() || c.Workspace.Dir == "" {
		return Verdict{}, nil
	}
	writes := 0
	for _, a := range c.FileAccesses() {
		if a.Operation != loop.OpWrite && a.Operation != loop.OpReadWrite {
			continue
		}
		if !c.Workspace.Contains(a.Path) {
			return Verdict{}, nil
		}
		writes++
	}
	if writes == 0 {
		return Verdict{}, nil
	}
	if _, ok := c.m.gitMarker(c.Workspace.Dir); !ok {
		return Verdict{}, nil
	}
	return Verdict{Kind: Approve}, nil
}
