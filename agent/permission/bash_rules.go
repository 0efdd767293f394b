package permission

import (
	"github.com/kimigo/kimigo/workspace"
)

// allowedBy reports whether u may run under the allow rules; match says
// whether some allow rule approves one command text. A command whose words
// are not all known is never approved.
func (u *unit) allowedBy(match func(string) bool) bool {
	if !u.static {
		return false
	}
	switch u.kind {
	case transparentUnit:
		return match(u.text) || allAllowed(u.inner, match)
	case guardedUnit:
		return match(u.text) && allAllowed(u.inner, match)
	case shellUnit: // an empty script string runs nothing the rules could name
		return len(u.inner) > 0 && allAllowed(u.inner, match)
	}
	return match(u.text)
}

func allAllowed(units []*unit, match func(string) bool) bool {
	for _, u := range units {
		if !u.allowedBy(match) {
			return false
		}
	}
	return true
}

// anySpelling reports whether match accepts some spelling of u or of a
// command u runs: deny and ask rules look at every one.
func (u *unit) anySpelling(match func(string) bool) bool {
	if u.text != "" && match(u.text) {
		return true
	}
	for _, s := range u.spellings {
		if match(s) {
			return true
		}
	}
	for _, in := range u.inner {
		if in.anySpelling(match) {
			return true
		}
	}
	return false
}

// allowedByRules reports whether every command of the script is approved
// by some rule of allows (spec: the shell-aware allow of the permission
// issue). The caller checks the script's redirections separately.
func (s *script) allowedByRules(allows []*compiledRule) bool {
	if !s.approvable() {
		return false
	}
	match := func(text string) bool {
		for _, r := range allows {
			if r.argErr == nil && r.matchCommand(text) {
				return true
			}
		}
		return false
	}
	return allAllowed(s.units, match)
}

// matchedBy reports whether r (a deny or ask rule for Bash) matches some
// command of the script, under any of its spellings.
func (s *script) matchedBy(r *compiledRule) bool {
	for _, u := range s.units {
		if u.anySpelling(r.matchCommand) {
			return true
		}
	}
	return false
}

// alwaysRules are the literal allow rules that make allow rules approve
// this exact script next time: one per command it must match. It returns
// nil when allow rules can never approve the script.
func (s *script) alwaysRules() []string {
	if !s.approvable() || !allAllowed(s.units, func(string) bool { return true }) {
		return nil
	}
	var out []string
	seen := map[string]bool{}
	add := func(text string) {
		if !seen[text] {
			seen[text] = true
			out = append(out, workspace.ApprovalRule(toolBash, text))
		}
	}
	var walk func(u *unit)
	walk = func(u *unit) {
		switch u.kind {
		case plainUnit, transparentUnit:
			add(u.text)
		case guardedUnit:
			add(u.text)
			for _, in := range u.inner {
				walk(in)
			}
		case shellUnit:
			for _, in := range u.inner {
				walk(in)
			}
		}
	}
	for _, u := range s.units {
		walk(u)
	}
	return out
}
