package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/kimigo/kimigo/osenv"
)

// Modes of what config creates: the data root is private to the user,
// and config files hold API keys.
const (
	dirMode  fs.FileMode = 0o700
	fileMode fs.FileMode = 0o600
)

// configScaffold is the content of a config.toml created on first run.
const configScaffold = `# kimigo configuration.
#
# This file starts empty, so every setting has its built-in default.
# Add providers and models here, for example:
#
#   default_model = "my-model"
#
#   [providers.my-provider]
#   type = "openai"
#   base_url = "https://api.openai.com/v1"
#   api_key = "sk-..."
#
#   [models.my-model]
#   provider = "my-provider"
#   model = "gpt-4.1"
#   max_context_size = 1047576
#
# Run "kimigo doctor" to check this file.
`

// HomeDir is the data root: KIMIGO_HOME when it is set and not blank,
// else ~/.kimigo under userHome (spec 06 §2.1). KIMI_CODE_HOME is not read.
func HomeDir(env Env, userHome string) (string, error) {
	if h := env.get(envHome); h != "" {
		return h, nil
	}
	if userHome == "" {
		return "", errors.New("locate the data root: the home directory is unknown; set KIMIGO_HOME")
	}
	return filepath.Join(userHome, ".kimigo"), nil
}

// ConfigFile is config.toml under the data root.
func ConfigFile(home string) string { return filepath.Join(home, "config.toml") }

// EnsureHome creates the data root (mode 0700) and, when it does not
// exist, a comment-only config.toml (mode 0600, exclusive create). An
// existing file is never touched.
func EnsureHome(fsys osenv.FS, home string) error {
	if err := fsys.MkdirAll(home, dirMode); err != nil {
		return fmt.Errorf("create data root %s: %w", home, err)
	}
	path := ConfigFile(home)
	f, err := fsys.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, fileMode)
	if errors.Is(err, fs.ErrExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("create %s: %w", path, err)
	}
	err = osenv.WriteSyncClose(f, []byte(configScaffold))
	if err != nil {
		return fmt.Errorf("create %s: %w", path, err)
	}
	return nil
}

// ProjectRoot is the nearest ancestor of workDir (itself included) that
// has an entry named .git, else workDir (spec 06 §2.1).
func ProjectRoot(fsys osenv.FS, workDir string) string {
	dir := filepath.Clean(workDir)
	for {
		if _, err := fsys.Lstat(filepath.Join(dir, ".git")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return filepath.Clean(workDir)
		}
		dir = parent
	}
}
