package workspace

import (
	"path"
	"strings"

	"github.com/kimigo/kimigo/internal/glob"
	"github.com/kimigo/kimigo/osenv"
)

// ruleSpecials are the characters EscapeRule protects (spec 05 §1.8).
const ruleSpecials = `\*?[]{}()!+@|`

// EscapeRule escapes a rule subject so that it matches only itself:
// approving `ls *` for a session stores Bash(ls \*), which does not match
// `ls -la`.
func EscapeRule(subject string) string {
	var b strings.Builder
	for _, r := range subject {
		if strings.ContainsRune(ruleSpecials, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// ApprovalRule is the literal rule of a call: Name(<escaped subject>).
func ApprovalRule(tool, subject string) string {
	return tool + "(" + EscapeRule(subject) + ")"
}

// StringRuleMatcher returns an Execution.MatchesRule for a string subject
// (a command, a pattern, a URL): the rule's argument is a picomatch glob
// (internal/glob) in which "*" does not cross "/"; a leading "!" negates
// it; "./" prefixes are ignored on either side. An argument that does not
// compile matches nothing, negated or not.
func StringRuleMatcher(subject string) func(string) bool {
	return func(ruleArgs string) bool {
		return negatable(ruleArgs, func(pat string) (bool, error) {
			hit, err := matchRuleGlob(pat, subject, false)
			if hit || err != nil {
				return hit, err
			}
			p, s := strings.TrimPrefix(pat, "./"), strings.TrimPrefix(subject, "./")
			if p == pat && s == subject {
				return false, nil
			}
			return ruleGlob(p, s, false), nil // a bare "./" leaves nothing to match
		})
	}
}

// PathRuleMatcher returns an Execution.MatchesRule for a path subject:
// case-insensitive, and trying the raw, "./"-less and canonical spellings of
// both the pattern and the path (relative patterns resolve against the
// workspace dir, "~" against the home). An argument that does not compile
// matches nothing.
func PathRuleMatcher(env osenv.Env, ws Dirs, p ResolvedPath) func(string) bool {
	values := spellings(env, ws, p.Raw)
	values = append(values, p.Path)
	return func(ruleArgs string) bool {
		return negatable(ruleArgs, func(pat string) (bool, error) {
			for i, ps := range spellings(env, ws, pat) {
				for _, v := range values {
					hit, err := matchRuleGlob(ps, v, true)
					if err != nil && i == 0 { // the pattern as written is broken
						return false, err
					}
					if hit {
						return true, nil
					}
				}
			}
			return false, nil
		})
	}
}

func spellings(env osenv.Env, ws Dirs, s string) []string {
	out := []string{s}
	if t := strings.TrimPrefix(s, "./"); t != s {
		out = append(out, t)
	}
	abs := s
	if abs == "~" || strings.HasPrefix(abs, "~/") {
		abs = env.Home() + abs[1:]
	}
	if !path.IsAbs(abs) {
		abs = path.Join(ws.Dir, abs)
	}
	return append(out, path.Clean(abs))
}

// negatable applies a rule argument: "" matches everything, a leading "!"
// inverts the match of the rest, and a rest that does not compile matches
// nothing either way.
func negatable(ruleArgs string, match func(string) (bool, error)) bool {
	if ruleArgs == "" {
		return true
	}
	pat, neg := strings.CutPrefix(ruleArgs, "!")
	hit, err := match(pat)
	if err != nil {
		return false
	}
	return hit != neg
}

// NameMatches reports whether a tool name matches a rule's name glob
// (mcp__github__*), the way MCP allow and deny lists match names:
// case-sensitive, with the picomatch semantics of ruleGlob. A pattern that
// does not compile matches nothing.
func NameMatches(pattern, name string) bool { return ruleGlob(pattern, name, false) }

// ruleGlobs memoizes compiled rule globs. Compiling is a pure function of
// the pattern and its options, so sharing the bounded cache changes no
// behaviour; it only keeps the few long-lived rule patterns from being
// compiled on every call.
var ruleGlobs = glob.NewCache(1024)

// ruleGlob matches value against a rule glob with the picomatch semantics
// of permission rules (spec 04 §3.4, internal/glob): "*" and "?" stay
// within a path segment, "**" as a whole segment spans segments, classes,
// braces and extglobs work, a backslash escapes the next character, and a
// wildcard does not match a leading ".". fold ignores case. A pattern that
// does not compile matches nothing.
func ruleGlob(pattern, value string, fold bool) bool {
	hit, _ := matchRuleGlob(pattern, value, fold) // a broken pattern matches nothing
	return hit
}

// matchRuleGlob is ruleGlob that reports a pattern that does not compile.
func matchRuleGlob(pattern, value string, fold bool) (bool, error) {
	return ruleGlobs.Match(pattern, value, glob.Options{NoCase: fold})
}
