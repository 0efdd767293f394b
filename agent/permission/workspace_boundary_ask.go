package permission

import (
	"context"

	"github.com/kimigo/kimigo/loop"
)

// workspaceBoundaryAsk asks before a write outside the work dir and the
// --add-dir dirs, in yolo mode too (ERRATA 12): Write and Edit targets and
// Bash redirection targets. Auto mode approved earlier; reads outside the
// workspace are never asked about.
type workspaceBoundaryAsk struct{}

func (workspaceBoundaryAsk) Name() string { return "workspace-boundary-ask" }

func (workspaceBoundaryAsk) Evaluate(_ context.Context, c *Call) (Verdict, error) {
	if c.Mode == ModeAuto || c.Workspace.Dir == "" {
		return Verdict{}, nil
	}
	for _, a := range c.FileAccesses() {
		if (a.Operation == loop.OpWrite || a.Operation == loop.OpReadWrite) && !c.Workspace.Contains(a.Path) {
			return Verdict{Kind: Ask, Reason: map[string]any{"operation": string(a.Operation)}}, nil
		}
	}
	return Verdict{}, nil
}
