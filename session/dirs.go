package session

import (
	"fmt"
	"path/filepath"
	"slices"

	"github.com/kimigo/kimigo/config"
)

// AddDir adds a directory to the session's additional dirs (/add-dir,
// spec 06 §5.4): dir, relative to the work dir unless absolute, must be
// an existing directory. It is saved in the session's state.json, or with
// remember in the project's .kimi-code/local.toml (spec 06 §2.9), and the
// resolved path is returned. The tools see it once the session is opened
// again: the interface reopens it.
func (s *Session) AddDir(dir string, remember bool) (string, error) {
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(s.workDir, dir)
	}
	dir = filepath.Clean(dir)
	fi, err := s.store.fs.Stat(dir)
	if err != nil {
		return "", fmt.Errorf("add directory: %w", err)
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("add directory: %s is not a directory", dir)
	}
	if remember {
		root := config.ProjectRoot(s.store.fs, s.workDir)
		return dir, config.RememberAdditionalDir(config.LocalOptions{FS: s.store.fs, ProjectRoot: root}, dir)
	}
	return dir, s.store.UpdateState(s.dir, func(st *State) error {
		if slices.Contains(st.AdditionalDirs, dir) {
			return errUnchanged
		}
		st.AdditionalDirs = append(st.AdditionalDirs, dir)
		return nil
	})
}
