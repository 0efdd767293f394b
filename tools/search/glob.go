package search

import (
	"errors"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// pathGlob is one doublestar glob with ripgrep's anchoring: a pattern
// without '/' matches the base name at any depth, a pattern with '/' matches
// the slash-separated path relative to the walk root (a leading "/" or "./"
// only anchors).
type pathGlob struct {
	pattern string
	base    bool
}

// globSet matches when any of its globs does.
type globSet []pathGlob

var errBadGlob = errors.New("syntax error in glob")

// compileGlob validates p for the argument arg.
func compileGlob(arg, p string) (pathGlob, error) {
	if p == "" {
		return pathGlob{}, invalidArg(arg, p, errors.New("empty glob"))
	}
	q := strings.TrimPrefix(p, "./")
	base := !strings.Contains(q, "/")
	q = strings.TrimPrefix(q, "/")
	if q == "" || !doublestar.ValidatePattern(q) {
		return pathGlob{}, invalidArg(arg, p, errBadGlob)
	}
	return pathGlob{pattern: q, base: base}, nil
}

// compileGlobs validates every pattern of ps.
func compileGlobs(arg string, ps []string) (globSet, error) {
	gs := make(globSet, 0, len(ps))
	for _, p := range ps {
		g, err := compileGlob(arg, p)
		if err != nil {
			return nil, err
		}
		gs = append(gs, g)
	}
	return gs, nil
}

func (g pathGlob) match(rel, name string) bool {
	if g.base {
		return doublestar.MatchUnvalidated(g.pattern, name)
	}
	return doublestar.MatchUnvalidated(g.pattern, rel)
}

func (gs globSet) match(rel, name string) bool {
	for _, g := range gs {
		if g.match(rel, name) {
			return true
		}
	}
	return false
}

// descender returns a directory filter for the walk: only directories on
// the way to, or inside, the pattern's literal leading directories, and no
// deeper than the pattern can reach when it has no "**". It returns nil
// when every directory may hold a match.
func (g pathGlob) descender() func(rel string) bool {
	if g.base {
		return nil
	}
	base, rest := doublestar.SplitPattern(g.pattern)
	maxDepth := -1 // unlimited
	if !strings.Contains(rest, "**") && !strings.ContainsAny(rest, "{}") {
		maxDepth = strings.Count(rest, "/")
		if base != "." {
			maxDepth += strings.Count(base, "/") + 1
		}
	}
	if base == "." && maxDepth < 0 {
		return nil
	}
	return func(rel string) bool {
		if maxDepth >= 0 && strings.Count(rel, "/")+1 > maxDepth {
			return false
		}
		return base == "." || base == rel || strings.HasPrefix(base, rel+"/") || strings.HasPrefix(rel, base+"/")
	}
}
