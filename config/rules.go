package config

import (
	"bufio"
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// ruleTables are the [permission] arrays in their final order: rules, then
// the shorthand tables whose name is the decision (spec 06 §2.3).
func ruleTables() []string { return []string{"rules", "deny", "allow", "ask"} }

func ruleScopes() []string { return []string{"turn-override", "session-runtime", "project", "user"} }

// decodePermission reads [permission]. A rule with a fault is dropped
// alone, with a warning naming the file, the entry and its text (ERRATA
// 13); only a [permission] or list that has the wrong shape is a schema
// issue. In a project file an allow rule is dropped too (ERRATA 11).
func decodePermission(t *table, origin RuleOrigin) []PermissionRule {
	d := t.d
	var rules []PermissionRule
	for _, name := range ruleTables() {
		v, ok := t.take(name)
		if !ok {
			continue
		}
		items, isList := asList(v)
		if !isList {
			t.issuef(name, "expected an array of tables, got %s", describe(v))
			continue
		}
		lines := d.headerLines("permission." + name)
		if len(lines) != len(items) {
			lines = nil // some entries are inline: positions unknown
		}
		for i, it := range items {
			r := PermissionRule{Origin: origin, Source: d.file}
			if lines != nil {
				r.Line = lines[i]
			}
			if name != "rules" {
				r.Decision = RuleDecision(name)
			}
			path := []string{"permission", name, index(i)}
			if fault := readRule(it, name == "rules", &r); fault != "" {
				d.dropRule(path, r, fault)
				continue
			}
			if origin == OriginProject && r.Decision == DecisionAllow {
				d.dropRule(path, r, "a project file may only deny or ask, so its allow rules are ignored")
				continue
			}
			rules = append(rules, r)
		}
	}
	t.finish(false)
	return rules
}

// readRule fills r from one entry and returns what is wrong with it, or "".
func readRule(v any, needDecision bool, r *PermissionRule) string {
	m, ok := v.(map[string]any)
	if !ok {
		return "expected a table, got " + describe(v)
	}
	str := func(key string) (string, string) {
		x, present := m[key]
		if !present {
			return "", ""
		}
		s, isStr := x.(string)
		if !isStr {
			return "", fmt.Sprintf("%s: expected a string, got %s", key, describe(x))
		}
		return s, ""
	}
	var faults []string
	get := func(key string) string {
		s, f := str(key)
		if f != "" {
			faults = append(faults, f)
		}
		return s
	}
	pattern, tool, match := get("pattern"), get("tool"), get("match")
	decision, scope := get("decision"), get("scope")
	r.Reason = get("reason")
	if len(faults) > 0 {
		r.Pattern = pattern
		return faults[0]
	}
	r.Pattern = pattern
	if tool != "" { // shorthand: tool = "Bash", match = "rm -rf*"
		arg := match
		if arg == "" {
			arg = pattern
		}
		r.Pattern = tool
		if arg != "" {
			r.Pattern = tool + "(" + arg + ")"
		}
	}
	r.Scope = scope
	if needDecision {
		r.Decision = RuleDecision(decision)
		switch r.Decision {
		case DecisionAllow, DecisionDeny, DecisionAsk:
		case "":
			return "decision: is required"
		default:
			return fmt.Sprintf("decision: expected one of \"allow\", \"deny\", \"ask\", got %q", decision)
		}
	}
	if scope != "" && !slices.Contains(ruleScopes(), scope) {
		return fmt.Sprintf("scope: expected one of %s, got %q", quoteList(ruleScopes()), scope)
	}
	if strings.TrimSpace(r.Pattern) == "" {
		return "pattern: is required and must not be empty"
	}
	return ""
}

// dropRule records a rule that is left out.
func (d *decoder) dropRule(path []string, r PermissionRule, fault string) {
	where := d.file
	if r.Line > 0 {
		where = fmt.Sprintf("%s:%d", d.file, r.Line)
	}
	d.notes = append(d.notes, Warning{File: d.file, Message: fmt.Sprintf(
		"Ignored permission rule %s %q in %s: %s", formatPath(path), r.Pattern, where, fault)})
	d.ruleIssues = append(d.ruleIssues, Issue{Path: path, Message: fault})
}

// headerLines are the 1-based lines of the [[name]] headers in the source,
// in order.
func (d *decoder) headerLines(name string) []int {
	if d.src == nil {
		return nil
	}
	parts := strings.Split(name, ".")
	for i, p := range parts {
		parts[i] = regexp.QuoteMeta(p)
	}
	re := regexp.MustCompile(`^\s*\[\[\s*` + strings.Join(parts, `\s*\.\s*`) + `\s*\]\]`)
	var lines []int
	sc := bufio.NewScanner(bytes.NewReader(d.src))
	sc.Buffer(nil, len(d.src)+1)
	for n := 1; sc.Scan(); n++ {
		if re.Match(sc.Bytes()) {
			lines = append(lines, n)
		}
	}
	return lines
}
