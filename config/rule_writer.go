package config

import (
	"sync"

	"github.com/kimigo/kimigo/osenv"
)

// UserRuleWriter persists the allow rules of "always" approval answers to
// the user's config.toml under Home (ERRATA 10). It is the RuleWriter the
// permission manager takes; config does not import the permission package,
// so it fits that interface by its method alone. Use it by pointer: one
// writer serializes the writes of every agent of a process, so two answers
// given at once cannot lose each other's rule.
type UserRuleWriter struct {
	// Home is the data root whose config.toml gets the rules.
	Home string
	// FS is the file system; nil means the local one.
	FS osenv.FS

	mu sync.Mutex // one read-modify-write of the file at a time
}

// AddUserAllowRule appends an allow rule with scope user for pattern (see
// AddAllowRule). It is safe for concurrent use.
func (w *UserRuleWriter) AddUserAllowRule(pattern string) error {
	fsys := w.FS
	if fsys == nil {
		fsys = osenv.LocalFS{}
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return AddAllowRule(fsys, ConfigFile(w.Home), pattern)
}
