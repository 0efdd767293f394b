package session

import (
	"path/filepath"

	"github.com/kimigo/kimigo/agent/records"
)

// ReindexResult counts what Reindex did.
type ReindexResult struct {
	// Scanned counts the session directories looked at.
	Scanned int
	// Added counts index lines appended for sessions the index lacked.
	Added int
	// Repaired counts index lines appended to replace a stale entry.
	Repaired int
}

// Reindex rebuilds the index from the session directories (spec 02
// §6.15): for every bucket/session directory whose work dir can be
// recovered (state.json's workDir, else a legacy custom.cwd, else the cwd
// of the first config.update record of the main agent's records) and
// which sits in that work dir's bucket, it appends an index line when the index
// lacks the session or points elsewhere. It only appends, and it never
// fails: what it cannot read or write is logged and skipped.
func (s *Store) Reindex() ReindexResult {
	var res ReindexResult
	idx, err := s.readIndex()
	if err != nil {
		s.logger.Warn("reindex: read index", "err", err)
		return res
	}
	buckets, err := s.fs.ReadDir(s.sessionsDir())
	if err != nil {
		s.logger.Debug("reindex: no sessions", "err", err)
		return res
	}
	for _, b := range buckets {
		if !b.IsDir() {
			continue
		}
		bucket := filepath.Join(s.sessionsDir(), b.Name())
		sessions, err := s.fs.ReadDir(bucket)
		if err != nil {
			s.logger.Warn("reindex: read bucket", "dir", bucket, "err", err)
			continue
		}
		for _, e := range sessions {
			if !e.IsDir() || ValidateID(e.Name()) != nil {
				continue
			}
			res.Scanned++
			s.reindexOne(idx, b.Name(), filepath.Join(bucket, e.Name()), e.Name(), &res)
		}
	}
	return res
}

func (s *Store) reindexOne(idx index, bucketName, dir, id string, res *ReindexResult) {
	var workDir string
	st, err := readState(s.fs, dir)
	if err == nil {
		workDir = st.WorkDir
		if workDir == "" {
			workDir = st.legacyCwd()
		}
	} else {
		s.logger.Warn("reindex: state unreadable, trying the records", "session_id", id, "err", err)
	}
	if workDir == "" {
		workDir = s.workDirFromRecords(dir)
	}
	if workDir == "" || WorkDirKey(workDir) != bucketName {
		s.logger.Warn("reindex: skip session without a matching work dir", "session_id", id, "dir", dir)
		return
	}
	workDir = NormalizeWorkDir(workDir)
	e, ok := idx.byID[id]
	if ok && e.Dir == dir && e.WorkDir == workDir {
		return
	}
	if err := s.appendIndex(indexLine{SessionID: id, SessionDir: dir, WorkDir: workDir}); err != nil {
		s.logger.Warn("reindex: append", "session_id", id, "err", err)
		return
	}
	if ok {
		res.Repaired++
	} else {
		res.Added++
	}
}

// workDirFromRecords is the cwd of the first config.update record in the
// main agent's records of session dir that has one, or "". It reads the
// log only as far as that record.
func (s *Store) workDirFromRecords(dir string) string {
	var cwd string
	path := filepath.Join(agentHome(dir, MainAgentID), records.LogFileName)
	err := records.ScanFile(s.fs, path, func(rec records.Record) error {
		if rec.Type != "config.update" {
			return nil
		}
		var f struct {
			Cwd string `json:"cwd"`
		}
		if records.Decode(rec, &f) == nil && f.Cwd != "" {
			cwd = f.Cwd
			return records.ErrStopReplay
		}
		return nil
	})
	if err != nil {
		s.logger.Warn("reindex: read records", "path", path, "err", err)
	}
	return cwd
}
