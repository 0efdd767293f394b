package config

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"github.com/kimigo/kimigo/osenv"
)

// LocalFileName is the project-local settings file, relative to the
// project root.
const LocalFileName = ".kimi-code/local.toml"

// Local is a project's .kimi-code/local.toml (spec 06 §2.9, ERRATA 11).
type Local struct {
	// Path is the file, whether or not it exists.
	Path string
	// AdditionalDirs are [workspace] additional_dir, resolved, existing
	// directories, without duplicates.
	AdditionalDirs []string
	// Rules are its [[permission.rules]]: deny and ask only.
	Rules []PermissionRule
}

// LocalOptions say where to look for local.toml.
type LocalOptions struct {
	// FS reads the file and checks the directories; nil means local.
	FS osenv.FS
	// ProjectRoot is the directory holding .kimi-code (see ProjectRoot).
	ProjectRoot string
	// UserHome expands "~" in additional_dir entries.
	UserHome string
}

func (o LocalOptions) fs() osenv.FS {
	if o.FS == nil {
		return osenv.LocalFS{}
	}
	return o.FS
}

// LoadLocal reads the project's local.toml. A missing or blank file means
// no settings. Errors are config.invalid and name the file; a session must
// not be created past one. Warnings report dropped rules and unknown keys.
func LoadLocal(o LocalOptions) (Local, []Warning, error) {
	fsys := o.fs()
	l := Local{Path: filepath.Join(o.ProjectRoot, filepath.FromSlash(LocalFileName))}
	data, err := fsys.ReadFile(l.Path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return l, nil, nil
	case err != nil:
		return l, nil, &Error{Code: CodeInvalid, File: l.Path, Err: err,
			Message: fmt.Sprintf("Failed to read %s: %v", l.Path, err)}
	}
	p, err := parseTOML(l.Path, data)
	if err != nil {
		return l, nil, err
	}
	d := &decoder{file: l.Path, src: data}
	t := &table{d: d, m: p.raw, seen: map[string]bool{}}
	if v, ok := t.take("workspace"); ok {
		ws, ok := v.(map[string]any)
		if !ok {
			return l, nil, invalidf(l.Path, "Invalid workspace local config in %s: workspace must be a table", l.Path)
		}
		if l.AdditionalDirs, err = localDirs(fsys, o, l.Path, ws); err != nil {
			return l, nil, err
		}
	}
	if s := t.sub("permission"); s != nil {
		l.Rules = decodePermission(s, OriginProject)
	}
	t.finish(false)
	if len(d.issues) > 0 {
		return l, nil, invalidf(l.Path, "Invalid workspace local config in %s: %s", l.Path, d.issues[0])
	}
	warnings := d.notes
	for _, k := range d.unknown {
		warnings = append(warnings, Warning{File: l.Path, Message: fmt.Sprintf("Unknown key %s in %s", formatPath(k), l.Path)})
	}
	return l, warnings, nil
}

// localDirs resolves workspace.additional_dir.
func localDirs(fsys osenv.FS, o LocalOptions, path string, ws map[string]any) ([]string, error) {
	v, ok := ws["additional_dir"]
	if !ok {
		return nil, nil
	}
	items, isList := asList(v)
	var dirs []string
	for _, it := range items {
		s, isStr := it.(string)
		if !isStr {
			isList = false
			break
		}
		dir, err := resolveLocalDir(fsys, o, s)
		if err != nil {
			return nil, invalidf(path, "Invalid workspace local config in %s: "+
				"workspace.additional_dir must exist and be a directory (%s)", path, err)
		}
		if dir != "" && !slices.Contains(dirs, dir) {
			dirs = append(dirs, dir)
		}
	}
	if !isList {
		return nil, invalidf(path, "Invalid workspace local config in %s: workspace.additional_dir must be an array of strings", path)
	}
	return dirs, nil
}

// resolveLocalDir trims, expands ~, resolves against the project root and
// checks that the result is a directory. A blank entry resolves to "".
func resolveLocalDir(fsys osenv.FS, o LocalOptions, entry string) (string, error) {
	s := strings.TrimSpace(entry)
	switch {
	case s == "":
		return "", nil
	case s == "~" || strings.HasPrefix(s, "~/"):
		if o.UserHome == "" {
			return "", fmt.Errorf("%q: the home directory is unknown", entry)
		}
		s = filepath.Join(o.UserHome, s[1:])
	case !filepath.IsAbs(s):
		s = filepath.Join(o.ProjectRoot, s)
	}
	s = filepath.Clean(s)
	fi, err := fsys.Stat(s)
	if err != nil {
		return "", fmt.Errorf("%q: %w", entry, err)
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("%q is not a directory", s)
	}
	return s, nil
}

// RememberAdditionalDir appends dir (an absolute path) to
// workspace.additional_dir of the project's local.toml unless it is
// already listed, keeping the file's other keys, and writes the file
// atomically. A file that does not parse is refused and left alone.
func RememberAdditionalDir(o LocalOptions, dir string) error {
	fsys := o.fs()
	path := filepath.Join(o.ProjectRoot, filepath.FromSlash(LocalFileName))
	p, _, err := readConfigFile(fsys, path)
	if err != nil {
		var ce *Error
		if errors.As(err, &ce) && !isReadError(ce.Err) {
			return refuseWrite(path, err)
		}
		return err
	}
	ws, ok := p.raw["workspace"].(map[string]any)
	if _, present := p.raw["workspace"]; present && !ok {
		return refuseWrite(path, invalidf(path, "workspace must be a table"))
	}
	if ws == nil {
		ws = map[string]any{}
		p.raw["workspace"] = ws
	}
	var dirs []any
	if v, present := ws["additional_dir"]; present {
		items, isList := asList(v)
		if !isList {
			return refuseWrite(path, invalidf(path, "workspace.additional_dir must be an array of strings"))
		}
		dirs = items
	}
	if slices.Contains(dirs, any(dir)) {
		return nil
	}
	ws["additional_dir"] = append(dirs, dir)
	data, err := encodeTOML(p.raw)
	if err != nil {
		return fmt.Errorf("encode %s: %w", path, err)
	}
	return writeAtomic(fsys, path, data)
}
