package skill

import (
	"path"
	"slices"
	"strings"

	"github.com/kimigo/kimigo/osenv"
	"github.com/kimigo/kimigo/profile"
)

// Root is a directory whose skills share one source.
type Root struct {
	Dir    string
	Source Source
}

// RootOptions say where to look for skills.
type RootOptions struct {
	// WorkDir is the session's work directory; "" means the Env's.
	WorkDir string
	// DataHome is kimigo's data directory (KIMIGO_HOME); its skills/ is a
	// user root.
	DataHome string
	// Dirs are the --skills-dir directories: when set they replace the
	// project and user discovery (source user).
	Dirs []string
	// ExtraDirs are extra_skill_dirs (source extra), searched after the
	// project and user roots.
	ExtraDirs []string
	// FirstOnly keeps, per scope, only the first existing directory
	// (merge_all_available_skills = false); by default every project and
	// user root is searched.
	FirstOnly bool
}

// Roots resolves the skill roots in precedence order (spec 05 §9.1):
// Project, then User, then Extra. Relative and ~ paths resolve against the
// project root (the nearest ancestor of the work dir with a .git, else the
// work dir) and the home directory. Only existing directories count, each
// once.
func Roots(env osenv.Env, o RootOptions) []Root {
	workDir := resolvePath(env, o.WorkDir, env.Cwd())
	project := profile.ProjectRoot(env, workDir)
	var roots []Root
	exists := func(dir string) bool {
		fi, err := env.Stat(dir)
		return err == nil && fi.IsDir()
	}
	add := func(dir string, src Source) bool {
		dir = env.Normpath(dir)
		if !exists(dir) {
			return false
		}
		if !slices.ContainsFunc(roots, func(r Root) bool { return r.Dir == dir }) {
			roots = append(roots, Root{Dir: dir, Source: src})
		}
		return true
	}
	// scope adds the candidates of one scope: each of must, then the first
	// existing of firstOf; with FirstOnly, only the first existing of all.
	scope := func(src Source, must []string, firstOf []string) {
		for _, d := range must {
			if add(d, src) && o.FirstOnly {
				return
			}
		}
		for _, d := range firstOf {
			if add(d, src) {
				return
			}
		}
	}
	if len(o.Dirs) > 0 {
		for _, d := range o.Dirs {
			add(resolvePath(env, d, project), SourceUser)
		}
	} else {
		scope(SourceProject, []string{path.Join(project, ".kimi-code", "skills")},
			[]string{path.Join(project, ".agents", "skills")})
		var userMust []string
		if o.DataHome != "" {
			userMust = append(userMust, path.Join(o.DataHome, "skills"))
		}
		var userFirst []string
		if home := env.Home(); home != "" {
			userFirst = append(userFirst, path.Join(home, ".agents", "skills"))
		}
		scope(SourceUser, userMust, userFirst)
	}
	for _, d := range o.ExtraDirs {
		add(resolvePath(env, d, project), SourceExtra)
	}
	return roots
}

// resolvePath makes p absolute: "~" and "~/…" against the home directory,
// a relative path against base.
func resolvePath(env osenv.Env, p, base string) string {
	switch {
	case p == "":
		return env.Normpath(base)
	case p == "~":
		p = env.Home()
	case strings.HasPrefix(p, "~/"):
		p = path.Join(env.Home(), p[2:])
	case !path.IsAbs(p):
		p = path.Join(base, p)
	}
	return env.Normpath(p)
}
