package skill

import (
	"embed"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/kimigo/kimigo/internal/bug"
)

//go:generate go test -run ^TestBuiltinGenerated$ -generate

// builtinFS holds the built-in skills, one directory each, written for
// kimigo (ERRATA 26).
//
//go:embed builtin
var builtinFS embed.FS

// builtinPrefix is the pseudo-path scheme of built-in skills.
const builtinPrefix = "builtin://"

var builtinOnce = sync.OnceValue(func() []Skill {
	decoded := builtinFrontmatter()
	return parseBuiltin(func(p, _ string) (map[string]any, error) {
		fields, ok := decoded[p]
		if !ok {
			return nil, fmt.Errorf("no decoded frontmatter for %s; run go generate ./profile/skill", p)
		}
		return fields, nil
	}, func(err error) { bug.Reportf("skill: %v", err) })
})

// Builtin returns the built-in skills, sorted by name. They are parsed
// once; a broken one is a bug in kimigo.
//
// kimigo does not decode their frontmatter's YAML when it starts:
// builtin_gen.go holds it decoded, keyed by path, and TestBuiltinGenerated
// checks that decoding the files gives the same. The rest runs as Parse
// runs it.
func Builtin() []Skill { return slices.Clone(builtinOnce()) }

// parseBuiltin parses the built-in skills, decoding their frontmatter
// with decode, and returns them sorted by name; it reports each one that
// fails and leaves it out.
func parseBuiltin(decode func(p, front string) (map[string]any, error), report func(error)) []Skill {
	entries, err := fs.ReadDir(builtinFS, "builtin")
	if err != nil {
		report(fmt.Errorf("read built-in skills: %w", err))
		return nil
	}
	var out []Skill
	for _, e := range entries {
		data, err := builtinFS.ReadFile(path.Join("builtin", e.Name(), skillFile))
		if err != nil {
			report(fmt.Errorf("built-in %s: %w", e.Name(), err))
			continue
		}
		p := builtinPrefix + e.Name()
		s, err := parse(p+"/"+skillFile, data, ParseOptions{Dir: p, Source: SourceBuiltin}, decode)
		if err != nil {
			report(fmt.Errorf("built-in %s: %w", e.Name(), err))
			continue
		}
		s.Path = p
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b Skill) int { return strings.Compare(a.Name, b.Name) })
	return out
}
