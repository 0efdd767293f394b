package permission

import (
	"context"

	"github.com/kimigo/kimigo/workspace"
)

// sensitiveFileAsk asks when any file the call touches may hold secrets:
// a Grep or Glob search path, or a Bash redirection target (spec 04
// §2.6.1, policy 13). Read, Write and Edit refuse such paths themselves.
type sensitiveFileAsk struct{}

func (sensitiveFileAsk) Name() string { return "sensitive-file-access-ask" }

func (sensitiveFileAsk) Evaluate(_ context.Context, c *Call) (Verdict, error) {
	for _, a := range c.FileAccesses() {
		if workspace.IsSensitive(a.Path) {
			return Verdict{Kind: Ask, Reason: map[string]any{"operation": string(a.Operation)}}, nil
		}
	}
	return Verdict{}, nil
}
