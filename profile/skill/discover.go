package skill

import (
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/kimigo/kimigo/osenv"
	"github.com/kimigo/kimigo/profile"
)

const (
	// maxDepth bounds the walk below a root (spec 05 §9.2).
	maxDepth = 8
	// skillFile names a directory skill.
	skillFile = "SKILL.md"
)

// WarningSkill classifies warnings about skills: a file that does not
// parse, a skill skipped by policy, a name another skill already holds.
const WarningSkill profile.WarningCode = "skill"

// Discover walks the roots in order (spec 05 §9.2) and returns the skills
// sorted by name, each name once (compared case-insensitively; the first
// found wins, so root order is precedence). A directory holding SKILL.md
// is a skill; it is entered only when it enables sub-skills, whose names
// get the parent's prefix. Other directories are walked, except
// node_modules and dot-directories, down to eight levels. At a root's top
// level a flat .md file is a skill named after the file. Files that do not
// parse become warnings naming the file and line.
func Discover(fsys osenv.FS, roots []Root) ([]Skill, []profile.Warning) {
	d := &discovery{fsys: fsys, byKey: map[string]bool{}}
	for _, r := range roots {
		d.root = r
		d.walk(r.Dir, 0, nil)
	}
	slices.SortFunc(d.skills, func(a, b Skill) int { return strings.Compare(key(a.Name), key(b.Name)) })
	return d.skills, d.warnings
}

type discovery struct {
	fsys     osenv.FS
	root     Root
	byKey    map[string]bool
	skills   []Skill
	warnings []profile.Warning
}

func (d *discovery) warn(format string, args ...any) {
	d.warnings = append(d.warnings, profile.Warning{Code: WarningSkill, Message: fmt.Sprintf(format, args...)})
}

// walk scans dir; parent is set inside a skill that enables sub-skills.
func (d *discovery) walk(dir string, depth int, parent *Skill) {
	if depth > maxDepth {
		return
	}
	entries, err := d.fsys.ReadDir(dir)
	if err != nil {
		if depth > 0 {
			d.warn("Skipping unreadable skill directory %s: %v", dir, err)
		}
		return
	}
	var dirSkills []string // names of directory skills at this level
	for _, e := range entries {
		if !d.isDir(dir, e.Name(), e.IsDir()) {
			continue
		}
		sub := path.Join(dir, e.Name())
		if s, ok := d.directorySkill(sub, parent); ok {
			dirSkills = append(dirSkills, key(s.Name))
			if s.HasSubSkills {
				d.walk(sub, depth+1, &s)
			}
			continue
		}
		if e.Name() == "node_modules" || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		d.walk(sub, depth+1, parent)
	}
	if depth != 0 || parent != nil {
		return
	}
	for _, e := range entries { // flat files, at a root's top level only
		name := e.Name()
		if e.IsDir() || name == skillFile || !strings.HasSuffix(strings.ToLower(name), ".md") {
			continue
		}
		p := path.Join(dir, name)
		if slices.Contains(dirSkills, key(strings.TrimSuffix(name, path.Ext(name)))) {
			d.warn("Ignoring skill file %s: a skill directory of the same name exists", p)
			continue
		}
		d.parse(p, ParseOptions{Flat: true, Dir: dir, Source: d.root.Source}, nil)
	}
}

// isDir follows a symbolic link to see whether an entry is a directory.
func (d *discovery) isDir(dir, name string, isDir bool) bool {
	if isDir {
		return true
	}
	fi, err := d.fsys.Stat(path.Join(dir, name))
	return err == nil && fi.IsDir()
}

// directorySkill registers the skill of dir when dir holds SKILL.md.
func (d *discovery) directorySkill(dir string, parent *Skill) (Skill, bool) {
	p := path.Join(dir, skillFile)
	if fi, err := d.fsys.Stat(p); err != nil || fi.IsDir() {
		return Skill{}, false
	}
	s, ok := d.parse(p, ParseOptions{Dir: dir, Source: d.root.Source}, parent)
	return s, ok
}

// parse reads and registers one skill file; ok is false when it was
// skipped (it then warned).
func (d *discovery) parse(p string, o ParseOptions, parent *Skill) (Skill, bool) {
	data, err := d.fsys.ReadFile(p)
	if err != nil {
		d.warn("Skipping unreadable skill %s: %v", p, err)
		return Skill{}, false
	}
	s, err := Parse(p, data, o)
	switch {
	case errors.Is(err, ErrUnsupportedType):
		d.warn("Skipping skill by policy: %v", err)
		return Skill{}, false
	case err != nil:
		d.warn("Skipping invalid skill at %s: %v", p, err)
		return Skill{}, false
	}
	if parent != nil {
		s.SubSkill = true
		if !strings.HasPrefix(key(s.Name), key(parent.Name)+".") {
			s.Name = parent.Name + "." + s.Name
		}
	}
	if d.byKey[key(s.Name)] {
		return s, true // an earlier root holds the name; it wins
	}
	d.byKey[key(s.Name)] = true
	d.skills = append(d.skills, s)
	return s, true
}
