package session

import "context"

// SpawnSubagent spawns a child of the main agent through its subagent
// host, as the batch scheduler does, for the benchmarks.
func SpawnSubagent(ctx context.Context, s *Session, o SpawnOptions) (*SubagentHandle, error) {
	return s.host.Spawn(ctx, o)
}
