package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"sync"
)

// UpdateStoreRecordType is the record type of a tool-store update. The
// tools build the payload; the agent appends the record and, live and on
// resume alike, hands the payload to Store.Apply (ERRATA 5).
const UpdateStoreRecordType = "tools.update_store"

// Store keys.
const (
	// StoreKeyTodo holds TodoList's items.
	StoreKeyTodo = "todo"
)

// UpdateStore is the payload of a tools.update_store record.
type UpdateStore struct {
	Key   string          `json:"key"`
	Value json.RawMessage `json:"value"`
}

// StoreCommitter makes a store update durable and applies it: the agent
// implements it by committing an UpdateStoreRecordType record whose apply
// calls Store.Apply. Safe for concurrent use.
type StoreCommitter interface {
	CommitStoreUpdate(ctx context.Context, u UpdateStore) error
}

// Store is an agent's key/value store for tool state (spec 05 §1.10).
// Values are JSON. It is safe for concurrent use.
type Store struct {
	mu sync.Mutex
	m  map[string]json.RawMessage // guarded by mu
}

// NewStore returns an empty store.
func NewStore() *Store { return &Store{m: map[string]json.RawMessage{}} }

// Get returns the value under key.
func (s *Store) Get(key string) (json.RawMessage, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.m[key]
	return bytes.Clone(v), ok
}

// Apply sets a value. It is the only way values change, so a replayed
// record rebuilds the same store.
func (s *Store) Apply(u UpdateStore) {
	s.mu.Lock()
	s.m[u.Key] = bytes.Clone(u.Value)
	s.mu.Unlock()
}

// Snapshot copies every value.
func (s *Store) Snapshot() map[string]json.RawMessage {
	s.mu.Lock()
	defer s.mu.Unlock()
	return maps.Clone(s.m)
}

// commitStore commits u through c, or applies it to s directly when there
// is no committer (a tool used outside an agent).
func commitStore(ctx context.Context, c StoreCommitter, s *Store, u UpdateStore) error {
	if c == nil {
		s.Apply(u)
		return nil
	}
	return c.CommitStoreUpdate(ctx, u)
}
