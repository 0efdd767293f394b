package skill

import (
	"embed"
	"io/fs"
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/kimigo/kimigo/internal/bug"
)

// builtinFS holds the built-in skills, one directory each, written for
// kimigo (ERRATA 26).
//
//go:embed builtin
var builtinFS embed.FS

// builtinPrefix is the pseudo-path scheme of built-in skills.
const builtinPrefix = "builtin://"

var builtinOnce = sync.OnceValue(parseBuiltin)

// Builtin returns the built-in skills, sorted by name. They are parsed
// once; a broken one is a bug in kimigo.
func Builtin() []Skill { return slices.Clone(builtinOnce()) }

func parseBuiltin() []Skill {
	entries, err := fs.ReadDir(builtinFS, "builtin")
	if err != nil {
		bug.Reportf("skill: read built-in skills: %v", err)
		return nil
	}
	var out []Skill
	for _, e := range entries {
		data, err := builtinFS.ReadFile(path.Join("builtin", e.Name(), skillFile))
		if err != nil {
			bug.Reportf("skill: built-in %s: %v", e.Name(), err)
			continue
		}
		p := builtinPrefix + e.Name()
		s, err := Parse(p+"/"+skillFile, data, ParseOptions{Dir: p, Source: SourceBuiltin})
		if err != nil {
			bug.Reportf("skill: built-in %s: %v", e.Name(), err)
			continue
		}
		s.Path = p
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b Skill) int { return strings.Compare(a.Name, b.Name) })
	return out
}
