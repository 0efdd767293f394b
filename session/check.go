package session

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/kimigo/kimigo/agent"
	"github.com/kimigo/kimigo/agent/records"
)

// CheckLogs reads the records of every agent of every session under the
// data root, writing nothing, and reports each line a resume would set
// aside: corrupt lines and records that cannot be restored. Resuming the
// session moves them to the side file; CheckLogs leaves the logs as they
// are (kimigo doctor).
func (s *Store) CheckLogs(ctx context.Context) []string {
	logs, _ := filepath.Glob(filepath.Join(s.root, SessionsDirName, "*", "*", "agents", "*", records.LogFileName)) // the pattern is valid
	var out []string
	for _, path := range logs {
		in := records.Inspect(nil, path)
		if _, err := agent.CheckLog(ctx, in); err != nil {
			out = append(out, fmt.Sprintf("Could not check %s: %v", path, err))
		}
		for _, q := range in.Problems() {
			what := "is corrupt"
			if q.Reason != "" {
				what = "holds a record that cannot be restored (" + q.Reason + ")"
			}
			out = append(out, fmt.Sprintf("Line %d of %s %s; resuming the session moves it to %s.", q.Line, path, what, q.SideFile))
		}
	}
	return out
}
