package anthropic

import (
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// modelFamily is a Claude model family as it appears in model ids.
type modelFamily string

// Claude families known to the version parser.
const (
	familyOpus   modelFamily = "opus"
	familySonnet modelFamily = "sonnet"
	familyHaiku  modelFamily = "haiku"
	familyFable  modelFamily = "fable"
	familyMythos modelFamily = "mythos"
)

// familyFirstOrder is the order the family-first form tries the families.
var familyFirstOrder = []modelFamily{familyOpus, familySonnet, familyHaiku, familyFable, familyMythos}

// modelVersion is a parsed Claude version; minor is -1 when the id has none.
type modelVersion struct {
	family modelFamily
	major  int
	minor  int
}

// The version-first forms ("claude-3-5-sonnet", "claude-3-opus") have no
// look-ahead, so RE2's leftmost-first match is the intended one. They are
// compiled on first use, not at process start.
var (
	versionFirstRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(\d{1,2})[-._](\d{1,2})[-._](opus|sonnet|haiku)`)
	})
	bareFamilyRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(\d{1,2})[-._](opus|sonnet|haiku)`) })
)

// parseModelVersion reads a Claude family and version from a model id,
// case-insensitively. With requireClaude the id must contain "claude".
// Three forms are tried in order: family first ("claude-sonnet-4-5",
// "opus.4"), version first ("claude-3-5-sonnet"), then major only
// ("claude-3-opus").
func parseModelVersion(model string, requireClaude bool) (modelVersion, bool) {
	s := strings.ToLower(model)
	if requireClaude && !strings.Contains(s, "claude") {
		return modelVersion{}, false
	}
	if v, ok := parseFamilyFirst(s); ok {
		return v, true
	}
	if m := versionFirstRE().FindStringSubmatch(s); m != nil {
		major, _ := strconv.Atoi(m[1]) // one or two digits: cannot fail
		minor, _ := strconv.Atoi(m[2])
		return modelVersion{family: modelFamily(m[3]), major: major, minor: minor}, true
	}
	if m := bareFamilyRE().FindStringSubmatch(s); m != nil {
		major, _ := strconv.Atoi(m[1])
		return modelVersion{family: modelFamily(m[2]), major: major, minor: -1}, true
	}
	return modelVersion{}, false
}

// parseFamilyFirst finds the leftmost "<family><sep><1-2 digits>" whose
// digit run is not longer than two, with an optional "<sep><1-2 digits>"
// minor under the same rule. A date such as "-20250514" is therefore never
// read as a version number. The digit-run check stands in for the negative
// look-ahead RE2 does not have.
func parseFamilyFirst(s string) (modelVersion, bool) {
	for i := range len(s) {
		for _, f := range familyFirstOrder {
			if !strings.HasPrefix(s[i:], string(f)) {
				continue
			}
			j := i + len(f)
			if j >= len(s) || !isVersionSep(s[j]) {
				continue
			}
			major, n, ok := shortNumber(s[j+1:])
			if !ok {
				continue
			}
			v := modelVersion{family: f, major: major, minor: -1}
			if k := j + 1 + n; k < len(s) && isVersionSep(s[k]) {
				if minor, _, ok := shortNumber(s[k+1:]); ok {
					v.minor = minor
				}
			}
			return v, true
		}
	}
	return modelVersion{}, false
}

func isVersionSep(c byte) bool { return c == '-' || c == '.' || c == '_' }

// shortNumber reads the digit run at the start of s; it succeeds only when
// the run is one or two digits long.
func shortNumber(s string) (value, length int, ok bool) {
	for length < len(s) && s[length] >= '0' && s[length] <= '9' {
		length++
	}
	if length == 0 || length > 2 {
		return 0, 0, false
	}
	value, _ = strconv.Atoi(s[:length])
	return value, length, true
}
