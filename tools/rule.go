package tools

import (
	"path"
	"regexp"
	"strings"
	"sync"

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
// (a command, a pattern, a URL): the rule's argument is a glob in which
// "*" does not cross "/"; a leading "!" negates it; "./" prefixes are
// ignored on either side.
func StringRuleMatcher(subject string) func(string) bool {
	return func(ruleArgs string) bool {
		return negatable(ruleArgs, func(pat string) bool {
			if ruleGlob(pat, subject, false) {
				return true
			}
			p, s := strings.TrimPrefix(pat, "./"), strings.TrimPrefix(subject, "./")
			return (p != pat || s != subject) && ruleGlob(p, s, false)
		})
	}
}

// PathRuleMatcher returns an Execution.MatchesRule for a path subject:
// case-insensitive, and trying the raw, "./"-less and canonical spellings of
// both the pattern and the path (relative patterns resolve against the
// workspace dir, "~" against the home).
func PathRuleMatcher(env osenv.Env, ws Workspace, p ResolvedPath) func(string) bool {
	values := spellings(env, ws, p.Raw)
	values = append(values, p.Path)
	return func(ruleArgs string) bool {
		return negatable(ruleArgs, func(pat string) bool {
			for _, ps := range spellings(env, ws, pat) {
				for _, v := range values {
					if ruleGlob(ps, v, true) {
						return true
					}
				}
			}
			return false
		})
	}
}

func spellings(env osenv.Env, ws Workspace, s string) []string {
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

func negatable(ruleArgs string, match func(string) bool) bool {
	if ruleArgs == "" {
		return true
	}
	if rest, ok := strings.CutPrefix(ruleArgs, "!"); ok {
		return !match(rest)
	}
	return match(ruleArgs)
}

// ruleGlobCache keeps compiled rule globs; rules are few and long-lived.
var ruleGlobCache sync.Map // pattern+"\x00"+fold → *regexp.Regexp

// ruleGlob matches value against a rule glob: "*" and "?" stay within a
// path segment, "**" as a whole segment spans segments, [..] classes and
// {a,b} alternatives work, a backslash escapes the next character, and a
// wildcard does not match a leading ".".
//
// TODO(tools): switch to internal/glob (the picomatch matcher of spec 04
// §3.4) once it exists, so tools and permission rules share one matcher.
func ruleGlob(pattern, value string, fold bool) bool {
	key := pattern + "\x00"
	if fold {
		key += "i"
	}
	re, ok := ruleGlobCache.Load(key)
	if !ok {
		src := globRegexp(pattern)
		if fold {
			src = "(?i)" + src
		}
		c, err := regexp.Compile(src)
		if err != nil {
			c = regexp.MustCompile("^" + regexp.QuoteMeta(pattern) + "$")
		}
		re, _ = ruleGlobCache.LoadOrStore(key, c)
	}
	return re.(*regexp.Regexp).MatchString(value)
}

func globRegexp(p string) string {
	var b strings.Builder
	b.WriteByte('^')
	depth := 0 // inside {…}
	atSegStart := true
	for i := 0; i < len(p); i++ {
		c := p[i]
		seg := atSegStart
		atSegStart = false
		switch {
		case c == '\\' && i+1 < len(p):
			i++
			b.WriteString(regexp.QuoteMeta(p[i : i+1]))
		case c == '*' && i+1 < len(p) && p[i+1] == '*' && seg && (i+2 == len(p) || p[i+2] == '/'):
			i++
			if i+1 < len(p) { // "**/": zero or more whole segments
				i++
				b.WriteString(`(?:[^/.][^/]*/)*`)
				atSegStart = true
			} else {
				b.WriteString(`(?:[^/.][^/]*(?:/[^/.][^/]*)*)?`)
			}
		case c == '*':
			if seg {
				b.WriteString(`(?:[^/.][^/]*)?`)
			} else {
				b.WriteString(`[^/]*`)
			}
		case c == '?':
			b.WriteString(`[^/]`)
		case c == '[':
			j := strings.IndexByte(p[i+1:], ']')
			if j < 0 {
				b.WriteString(`\[`)
				continue
			}
			class := p[i+1 : i+1+j]
			if strings.HasPrefix(class, "!") {
				class = "^" + class[1:]
			}
			b.WriteString("[" + class + "]")
			i += j + 1
		case c == '{':
			depth++
			b.WriteString("(?:")
		case c == ',' && depth > 0:
			b.WriteByte('|')
		case c == '}' && depth > 0:
			depth--
			b.WriteByte(')')
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
			atSegStart = c == '/'
		}
	}
	b.WriteByte('$')
	return b.String()
}
