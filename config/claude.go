package config

import (
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// claudeProfile is what the effective-model rules need from a Claude
// model's thinking profile (spec 01 §3.4.6): the efforts it offers and
// whether thinking can be turned off. llm/anthropic keeps the wire side of
// the same table.
type claudeProfile struct {
	efforts    []string
	canDisable bool
}

func budgetEfforts() []string { return []string{"low", "medium", "high"} }

func latestOpusEfforts() []string { return []string{"low", "medium", "high", "xhigh", "max"} }

// claudeVersionFirst and claudeBareFamily are the version-first forms
// ("claude-3-5-sonnet", "claude-3-opus"). All three are compiled on first
// use, not at process start.
var (
	claudeVersionFirst = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(\d{1,2})[-._](\d{1,2})[-._](opus|sonnet|haiku)`)
	})
	claudeBareFamily = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(\d{1,2})[-._](opus|sonnet|haiku)`) })
	mythosPreview    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`mythos[-._]preview`) })
)

// knownClaudeProfile matches a model id against the Claude families whose
// thinking behaviour is known.
func knownClaudeProfile(model string) (claudeProfile, bool) {
	s := strings.ToLower(model)
	if mythosPreview().MatchString(s) {
		return claudeProfile{efforts: []string{"low", "medium", "high", "max"}}, true
	}
	family, major, minor, ok := claudeVersion(s)
	if !ok {
		return claudeProfile{}, false
	}
	m0 := max(minor, 0)
	adaptive4 := []string{"low", "medium", "high", "max"}
	switch family {
	case "opus":
		switch {
		case major == 4 && (minor == 7 || minor == 8):
			return claudeProfile{efforts: latestOpusEfforts(), canDisable: true}, true
		case major == 4 && minor == 6:
			return claudeProfile{efforts: adaptive4, canDisable: true}, true
		case major < 4 || major == 4 && m0 <= 5:
			return claudeProfile{efforts: budgetEfforts(), canDisable: true}, true
		}
	case "sonnet":
		switch {
		case major == 5:
			return claudeProfile{efforts: latestOpusEfforts(), canDisable: true}, true
		case major == 4 && minor == 6:
			return claudeProfile{efforts: adaptive4, canDisable: true}, true
		case major < 4 || major == 4 && m0 <= 5:
			return claudeProfile{efforts: budgetEfforts(), canDisable: true}, true
		}
	case "haiku":
		if major < 4 || major == 4 && m0 <= 5 {
			return claudeProfile{efforts: budgetEfforts(), canDisable: true}, true
		}
	case "fable", "mythos":
		if major == 5 {
			return claudeProfile{efforts: latestOpusEfforts()}, true
		}
	}
	return claudeProfile{}, false
}

// unknownClaudeProfile is the latest-Opus profile for a name that still
// carries a Claude marker but no known version.
func unknownClaudeProfile(model string) (claudeProfile, bool) {
	if !strings.Contains(strings.ToLower(model), "claude") {
		return claudeProfile{}, false
	}
	return claudeProfile{efforts: latestOpusEfforts(), canDisable: true}, true
}

// claudeVersion reads family, major and minor (-1 when absent) from a
// lower-cased id: family first ("claude-sonnet-4-5"), then version first
// ("claude-3-5-sonnet"), then major only ("claude-3-opus"). A number is at
// most two digits and must not run on into more digits, so a date suffix
// is never read as a version.
func claudeVersion(s string) (family string, major, minor int, ok bool) {
	for i := range len(s) {
		for _, f := range []string{"opus", "sonnet", "haiku", "fable", "mythos"} {
			if !strings.HasPrefix(s[i:], f) {
				continue
			}
			j := i + len(f)
			if j >= len(s) || !isVersionSep(s[j]) {
				continue
			}
			maj, n, good := shortNumber(s[j+1:])
			if !good {
				continue
			}
			minor = -1
			k := j + 1 + n
			if k < len(s) && isVersionSep(s[k]) {
				if mn, _, good := shortNumber(s[k+1:]); good {
					minor = mn
				}
			}
			return f, maj, minor, true
		}
	}
	if m := claudeVersionFirst().FindStringSubmatch(s); m != nil {
		maj, _ := strconv.Atoi(m[1]) // one or two digits: cannot fail
		mn, _ := strconv.Atoi(m[2])
		return m[3], maj, mn, true
	}
	if m := claudeBareFamily().FindStringSubmatch(s); m != nil {
		maj, _ := strconv.Atoi(m[1])
		return m[2], maj, -1, true
	}
	return "", 0, 0, false
}

func isVersionSep(c byte) bool { return c == '-' || c == '.' || c == '_' }

// shortNumber reads a leading run of one or two digits not followed by a
// third.
func shortNumber(s string) (n, width int, ok bool) {
	for width < len(s) && s[width] >= '0' && s[width] <= '9' {
		width++
	}
	if width == 0 || width > 2 {
		return 0, 0, false
	}
	n, _ = strconv.Atoi(s[:width])
	return n, width, true
}
