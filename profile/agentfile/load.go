package agentfile

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"github.com/kimigo/kimigo/osenv"
	"github.com/kimigo/kimigo/profile"
)

// Options say where agent files come from. The zero value reads only the
// project directories of env's working directory.
type Options struct {
	// WorkDir is the session's working directory; "" means env.Cwd(). The
	// project root above it holds the project agent directories.
	WorkDir string
	// DataHome is kimigo's data root (~/.kimigo), home of the user agent
	// directory and SYSTEM.md; "" skips both.
	DataHome string
	// ExtraDirs are the configured extra_agent_dirs: "~"-prefixed,
	// absolute, or relative to the project root.
	ExtraDirs []string
	// PluginDirs are agent directories of enabled plugins.
	PluginDirs []string
	// Explicit are --agent-file paths ("~", absolute, or relative to
	// WorkDir). They win over every other source and may replace built-in
	// profiles; a failure to read or parse one is an error.
	Explicit []string
}

// Loaded is a session's catalog and what it was built from.
type Loaded struct {
	// Catalog holds the built-in and file profiles.
	Catalog *profile.Catalog
	// Selected is the profile the last explicit file defines; "" without
	// one. --agent-file selects it as the main agent.
	Selected string
	// Snapshot is what the session stores to rebuild Catalog on resume.
	Snapshot Snapshot
	// Warnings are for the user: unreadable or invalid files, ignored
	// overrides, dead tool patterns.
	Warnings []profile.Warning
}

// Load discovers and parses every agent file Options name, reads
// SYSTEM.md, and merges them with builtin (spec 05 §8.8). Only explicit
// files can make it fail; other problems become warnings.
func Load(env osenv.Env, builtin *profile.Catalog, opts Options) (Loaded, error) {
	defs, warnings := Discover(env, Roots(env, opts))
	if sys, w := readSystemMD(env, opts.DataHome); w != nil {
		warnings = append(warnings, *w)
	} else if sys != nil {
		defs = append([]Definition{*sys}, defs...)
	}
	workDir := resolvePath(env, opts.WorkDir, env.Cwd())
	var selected string
	for _, f := range opts.Explicit {
		d, err := ReadFile(env, resolvePath(env, f, workDir))
		if err != nil {
			return Loaded{}, err
		}
		defs = append(defs, d)
		selected = d.Name
	}
	cat, snap, more, err := Merge(builtin, defs)
	if err != nil {
		return Loaded{}, err
	}
	return Loaded{Catalog: cat, Selected: selected, Snapshot: snap, Warnings: append(warnings, more...)}, nil
}

// ReadFile reads and parses the agent file at p as an explicit file
// (--agent-file). Errors name the file.
func ReadFile(fsys osenv.FS, p string) (Definition, error) {
	data, err := fsys.ReadFile(p)
	if err != nil {
		return Definition{}, fmt.Errorf("read agent file %q: %w", p, err)
	}
	d, err := Parse(p, SourceExplicit, data)
	if err != nil {
		return Definition{}, fmt.Errorf("invalid agent file %q: %w", p, err)
	}
	return d, nil
}

// readSystemMD reads <dataHome>/SYSTEM.md: nil when it is missing or
// blank, a warning when it cannot be read.
func readSystemMD(fsys osenv.FS, dataHome string) (*Definition, *profile.Warning) {
	if dataHome == "" {
		return nil, nil
	}
	p := path.Join(dataHome, "SYSTEM.md")
	data, err := fsys.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, &profile.Warning{Code: WarningAgentFile, Message: fmt.Sprintf("ignored %s: %v", p, err)}
	}
	body := strings.TrimSpace(strings.ToValidUTF8(string(data), ""))
	if body == "" {
		return nil, nil
	}
	return &Definition{Name: profile.DefaultName, Prompt: body, Path: p, Source: SourceSystem, Override: true}, nil
}
