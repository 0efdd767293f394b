package session

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"

	"github.com/kimigo/kimigo/config"
	"github.com/kimigo/kimigo/mcp"
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

// Trusted reports whether the project of workDir (its root: the nearest
// ancestor with .git, else workDir) is in the trust store of data root
// home (ERRATA 38). Only then do the project's own files widen what
// kimigo does: the MCP servers of .mcp.json and .kimi-code/mcp.json, and
// project hooks. A store that does not read counts as trusting nothing.
func Trusted(fsys osenv.FS, home, workDir string) bool {
	dirs, err := TrustedDirs(fsys, home)
	return err == nil && slices.Contains(dirs, filepath.Clean(config.ProjectRoot(fsys, workDir)))
}

// Widening names the files of the project of workDir that ask for more
// than the project itself (ERRATA 38): a .kimi-code/local.toml adding
// directories outside the project, a .mcp.json or .kimi-code/mcp.json
// naming servers. It is empty when the project is trusted or asks for
// nothing; otherwise the interface asks whether to trust the project
// before the session opens. A file that does not read or parse counts
// as asking (the session reports it when it opens).
func Widening(fsys osenv.FS, home, workDir, userHome string) []string {
	if Trusted(fsys, home, workDir) {
		return nil
	}
	var files []string
	root := config.ProjectRoot(fsys, workDir)
	local, _, err := config.LoadLocal(config.LocalOptions{FS: fsys, ProjectRoot: root, UserHome: userHome})
	switch {
	case err != nil:
		files = append(files, local.Path)
	case slices.ContainsFunc(local.AdditionalDirs, func(d string) bool { return !osenv.Within(d, root) }):
		files = append(files, local.Path)
	}
	servers, err := mcp.Load(fsys, mcp.LoadOptions{WorkDir: workDir})
	var ce *mcp.ConfigError
	if errors.As(err, &ce) {
		files = append(files, ce.Path)
	}
	for _, s := range servers {
		if (s.Source == mcp.SourceProject || s.Source == mcp.SourceLocal) && !slices.Contains(files, s.Path) {
			files = append(files, s.Path)
		}
	}
	return files
}
