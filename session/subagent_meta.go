package session

import (
	"errors"
	"fmt"
	"maps"
)

// The children's metadata (state.json "agents") is kept in memory once
// read, and new entries reach the file by group commit: many spawns at
// once cost one state.json write, not one each (issue 19's hundred
// concurrent subagents). A child's entry is on disk before its first
// prompt is recorded (waitMeta), so a crash never leaves a child's
// records that no resume can find.

// agentMeta returns the session's agents, reading state.json the first
// time. The caller holds subs.mu.
func (s *Session) agentMetaLocked() (map[string]AgentEntry, error) {
	if s.subs.meta != nil {
		return s.subs.meta, nil
	}
	st, err := readState(s.store.fs, s.dir)
	if err != nil {
		return nil, err
	}
	s.subs.meta = maps.Clone(st.Agents)
	if s.subs.meta == nil {
		s.subs.meta = map[string]AgentEntry{}
	}
	return s.subs.meta, nil
}

// agentEntry is id's entry in the session's metadata.
func (s *Session) agentEntry(id string) (AgentEntry, bool) {
	s.subs.mu.Lock()
	defer s.subs.mu.Unlock()
	meta, err := s.agentMetaLocked()
	if err != nil {
		return AgentEntry{}, false
	}
	e, ok := meta[id]
	return e, ok
}

// recordMetaLocked adds e and starts a write when none runs; it returns
// the generation to wait for. The caller holds subs.mu.
func (s *Session) recordMetaLocked(id string, e AgentEntry) uint64 {
	s.subs.meta[id] = e
	s.subs.metaGen++
	if !s.subs.metaWriting {
		s.subs.metaWriting = true
		s.subs.metaWG.Add(1)
		go s.writeMeta()
	}
	return s.subs.metaGen
}

// writeMeta writes the entries state.json lacks until none is pending.
func (s *Session) writeMeta() {
	defer s.subs.metaWG.Done()
	for {
		s.subs.mu.Lock()
		if s.subs.metaWritten == s.subs.metaGen {
			s.subs.metaWriting = false
			s.subs.metaCond.Broadcast()
			s.subs.mu.Unlock()
			return
		}
		target, snapshot := s.subs.metaGen, maps.Clone(s.subs.meta)
		s.subs.mu.Unlock()
		err := s.store.UpdateState(s.dir, func(st *State) error {
			if st.Agents == nil {
				st.Agents = map[string]AgentEntry{}
			}
			changed := false
			for id, e := range snapshot {
				if _, ok := st.Agents[id]; !ok {
					st.Agents[id], changed = e, true
				}
			}
			if !changed {
				return errUnchanged
			}
			return nil
		})
		s.subs.mu.Lock()
		s.subs.metaWritten, s.subs.metaErr = target, err
		s.subs.metaCond.Broadcast()
		s.subs.mu.Unlock()
	}
}

// waitMeta waits until the metadata of generation gen is on disk.
func (s *Session) waitMeta(gen uint64) error {
	if gen == 0 {
		return nil
	}
	s.subs.mu.Lock()
	defer s.subs.mu.Unlock()
	for s.subs.metaWritten < gen {
		s.subs.metaCond.Wait()
	}
	if s.subs.metaErr != nil {
		return fmt.Errorf("record subagent: %w", s.subs.metaErr)
	}
	return nil
}

// errMetaClosed refuses a spawn while the session closes.
var errMetaClosed = errors.New("the session is closing")
