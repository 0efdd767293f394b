package session

import (
	"context"

	"github.com/kimigo/kimigo/agent"
)

// NextRequest is what the main agent's next model request would send, for
// the tests that prove a resume continues exactly where a run stopped.
func NextRequest(ctx context.Context, s *Session) (agent.Request, error) {
	return s.agent.NextRequest(ctx)
}
