package permission

import (
	"context"
	"fmt"
	"strings"
)

// unresolvedPathDeny refuses a call whose file path cannot be resolved to
// the file it reaches (ERRATA 37): a /proc/<pid>/root, cwd or fd path
// whose target is unknown, or a loop of symbolic links. Rules, the
// sensitive-file list and the workspace boundary cannot judge it.
type unresolvedPathDeny struct{}

func (unresolvedPathDeny) Name() string { return "unresolved-path-deny" }

func (unresolvedPathDeny) Evaluate(_ context.Context, c *Call) (Verdict, error) {
	c.FileAccesses()
	if len(c.unresolved) == 0 {
		return Verdict{}, nil
	}
	msg := fmt.Sprintf("Tool %q was not run: the path %s cannot be resolved to the file it reaches "+
		"(a /proc link or a symbolic-link loop), so no permission rule can judge it. Use the real path.",
		c.Name(), strings.Join(c.unresolved, ", "))
	return Verdict{Kind: Deny, Message: withGuidance(c, msg, ""), Reason: map[string]any{"unresolved": len(c.unresolved)}}, nil
}
