package session

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"

	"github.com/kimigo/kimigo/osenv"
)

// TrustFileName is the trust store under the data root (ERRATA 38): the
// project directories whose own files may widen what kimigo does. It
// lives outside every repository, so a repository cannot trust itself.
const TrustFileName = "trusted_dirs.json"

// trustFile is the store's shape on disk.
type trustFile struct {
	Trusted []string `json:"trusted"`
}

// TrustedDirs lists the trusted project directories under data root
// home, in the order they were trusted. A missing store is empty; a
// corrupt one is an error naming it.
func TrustedDirs(fsys osenv.FS, home string) ([]string, error) {
	path := filepath.Join(home, TrustFileName)
	b, err := fsys.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the trust store %s: %w", path, err)
	}
	var f trustFile
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("the trust store %s is not valid JSON: %w", path, err)
	}
	return f.Trusted, nil
}

// Trust adds the project directory dir (absolute) to the trust store of
// data root home, writing it whole or not at all.
func Trust(fsys osenv.FS, home, dir string) error {
	if !filepath.IsAbs(dir) {
		return fmt.Errorf("trust %q: not an absolute path", dir)
	}
	dirs, err := TrustedDirs(fsys, home)
	if err != nil {
		return err
	}
	dir = filepath.Clean(dir)
	if slices.Contains(dirs, dir) {
		return nil
	}
	b, _ := json.MarshalIndent(trustFile{Trusted: append(dirs, dir)}, "", "  ") // strings always marshal
	if err := fsys.MkdirAll(home, 0o700); err != nil {
		return fmt.Errorf("trust %s: %w", dir, err)
	}
	path := filepath.Join(home, TrustFileName)
	if err := osenv.WriteFileAtomic(fsys, path, append(b, '\n'), 0o600); err != nil {
		return fmt.Errorf("write the trust store %s: %w", path, err)
	}
	return nil
}

// trustedWidening keeps the additional dirs of local.toml (file) that
// widen nothing (inside the project root) and, when the project is
// trusted, the rest; what it drops is named in one warning.
func trustedWidening(fsys osenv.FS, home, root, file string, dirs []string, warn func(string)) []string {
	var inside, outside []string
	for _, d := range dirs {
		if osenv.Within(d, root) {
			inside = append(inside, d)
		} else {
			outside = append(outside, d)
		}
	}
	if len(outside) == 0 {
		return inside
	}
	trusted, err := TrustedDirs(fsys, home)
	if err != nil {
		warn(err.Error())
	}
	if slices.Contains(trusted, filepath.Clean(root)) {
		return dirs
	}
	warn(fmt.Sprintf("%s asks to add directories outside the project %v; ignored because %s is not trusted "+
		"(run `kimigo trust` there to trust it).", file, outside, root))
	return inside
}
