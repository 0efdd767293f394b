package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Mode is a sandbox policy's name, as config files and the --sandbox flag
// spell it.
type Mode string

// The policies.
const (
	// ModeOff runs commands exactly as if there were no sandbox.
	ModeOff Mode = "off"
	// ModeReadOnly lets a command read everything and write only to the
	// sandbox's private temporary directory (and /dev/null and the
	// terminal devices).
	ModeReadOnly Mode = "read-only"
	// ModeWorkspaceWrite adds the work dir and the extra writable dirs,
	// except the read-only entries inside them (see Policy.ReadOnly).
	ModeWorkspaceWrite Mode = "workspace-write"
)

// Modes lists every mode, in the order help texts show them.
var Modes = []Mode{ModeReadOnly, ModeWorkspaceWrite, ModeOff}

// ParseMode reads a mode name; an unknown name is an error naming the
// accepted ones.
func ParseMode(s string) (Mode, error) {
	m := Mode(s)
	if !slices.Contains(Modes, m) {
		return "", fmt.Errorf("unknown sandbox mode %q (want read-only, workspace-write or off)", s)
	}
	return m, nil
}

// KimigoDir is the project directory that holds kimigo's own project
// files (.kimi-code/local.toml, agents, AGENTS.md). Inside every writable
// dir it stays read-only, and it is created empty when it is missing so
// that a command cannot create it either.
const KimigoDir = ".kimi-code"

// Policy says what a sandboxed command may do. The zero Policy is invalid:
// Mode must be set.
type Policy struct {
	// Mode is the policy's name.
	Mode Mode
	// WorkDir is the directory a workspace-write command may write to. It
	// must exist. Read-only ignores it.
	WorkDir string
	// WritableDirs are further directories a workspace-write command may
	// write to (--add-dir). Each must exist.
	WritableDirs []string
	// ReadOnly lists further paths kept read-only although a writable dir
	// holds them, on top of the built-in ones (.git/hooks, .git/config, a
	// .git file, and KimigoDir in every writable dir). An absolute entry
	// names one path; a relative one is tried in every writable dir. An
	// entry ending in "/" is a directory that is created empty when it is
	// missing inside a writable dir; other missing entries are skipped.
	ReadOnly []string
	// Network allows network access. Without it a command reaches no
	// other host and no listener outside the sandbox.
	Network bool
}

// validate checks the mode and the paths' syntax; existence is checked
// when the writable dirs are resolved.
func (p Policy) validate() error {
	if !slices.Contains(Modes, p.Mode) {
		if p.Mode == "" {
			return errors.New("sandbox policy has no mode (want read-only, workspace-write or off)")
		}
		return fmt.Errorf("unknown sandbox mode %q (want read-only, workspace-write or off)", string(p.Mode))
	}
	if p.Mode != ModeWorkspaceWrite {
		return nil
	}
	if p.WorkDir == "" {
		return fmt.Errorf("sandbox %s: the work dir is not set", p.Mode)
	}
	for _, d := range append([]string{p.WorkDir}, p.WritableDirs...) {
		if !filepath.IsAbs(d) {
			return fmt.Errorf("sandbox %s: writable dir %q is not an absolute path", p.Mode, d)
		}
	}
	for _, e := range p.ReadOnly {
		clean := strings.TrimSuffix(e, "/")
		if clean == "" || clean == "." || strings.HasPrefix(clean, "../") || clean == ".." || strings.Contains(clean, "/../") || strings.HasSuffix(clean, "/..") {
			return fmt.Errorf("sandbox %s: read-only entry %q must name a path below a writable dir or an absolute path", p.Mode, e)
		}
	}
	return nil
}

// writableDirs resolves the work dir and the extra writable dirs to
// absolute paths without symbolic links, so that rules and mounts apply
// to what the names point at. Each must be an existing directory;
// duplicates go.
func (p Policy) writableDirs() ([]string, error) {
	if p.Mode != ModeWorkspaceWrite {
		return nil, nil
	}
	var out []string
	for _, d := range append([]string{p.WorkDir}, p.WritableDirs...) {
		r, err := filepath.EvalSymlinks(d)
		if err != nil {
			return nil, fmt.Errorf("sandbox %s: writable dir %s: %w", p.Mode, d, err)
		}
		fi, err := os.Stat(r)
		if err != nil {
			return nil, fmt.Errorf("sandbox %s: writable dir %s: %w", p.Mode, d, err)
		}
		if !fi.IsDir() {
			return nil, fmt.Errorf("sandbox %s: writable dir %s is not a directory", p.Mode, d)
		}
		if !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	return out, nil
}
