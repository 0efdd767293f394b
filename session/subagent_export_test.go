package session

import (
	"context"

	"github.com/kimigo/kimigo/agent/permission"
)

// SpawnSubagent spawns a child of the main agent through its subagent
// host, as the batch scheduler does, for the benchmarks.
func SpawnSubagent(ctx context.Context, s *Session, o SpawnOptions) (*SubagentHandle, error) {
	return s.host.Spawn(ctx, o)
}

// SubagentMode is the permission mode child id judges its calls in now.
func SubagentMode(ctx context.Context, s *Session, id string) (string, error) {
	s.subs.idleWG.Wait() // a finished run's idle close is over
	c, err := s.openChild(ctx, id, MainAgentID, false)
	if err != nil {
		return "", err
	}
	return string(c.agent.Permission().Mode()), nil
}

// SetSubagentMode gives child id a mode of its own.
func SetSubagentMode(ctx context.Context, s *Session, id string, mode permission.Mode) error {
	s.subs.idleWG.Wait() // a finished run's idle close is over
	c, err := s.openChild(ctx, id, MainAgentID, false)
	if err != nil {
		return err
	}
	return c.agent.SetPermissionMode(ctx, mode)
}

// RetrySubagent runs child id's last turn again, as the batch scheduler
// does after a rate limit.
func RetrySubagent(ctx context.Context, s *Session, id string, o SpawnOptions) (*SubagentHandle, error) {
	return s.host.Retry(ctx, id, o)
}
