package config

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/BurntSushi/toml"

	"github.com/kimigo/kimigo/osenv"
)

// refuseWrite is the §2.4 "write while invalid" error.
func refuseWrite(path string, cause error) *Error {
	return &Error{Code: CodeInvalid, File: path, Err: cause, Message: fmt.Sprintf(
		"Cannot change settings while %s is invalid — fix it first (run `kimigo doctor` for details).", path)}
}

// readForWrite re-reads path strictly (spec 06 §2.6 step 1): a file that
// does not parse, or has schema issues, is refused and left alone. A
// missing file reads as an empty document.
func readForWrite(fsys osenv.FS, path string) (parsed, []byte, error) {
	p, src, err := readConfigFile(fsys, path)
	if err != nil {
		var ce *Error
		if errors.As(err, &ce) && ce.Err != nil && !isReadError(ce.Err) {
			return parsed{}, nil, refuseWrite(path, err)
		}
		return parsed{}, nil, err
	}
	if _, d := decodeStrict(path, p, src); len(d.issues) > 0 {
		return parsed{}, nil, refuseWrite(path, &Error{Code: CodeInvalid, File: path, Issues: d.issues,
			Message: FormatIssues(path, d.issues)})
	}
	return p, src, nil
}

func isReadError(err error) bool {
	var pe *fs.PathError
	return errors.As(err, &pe)
}

// Patch changes the config file at path (spec 06 §2.6): it re-reads the
// file strictly, deep-merges patch into it (tables merge, arrays and
// scalars replace, a nil value removes the key), checks the result, drops
// deprecated spellings, and writes it back atomically with mode 0600.
// Unknown keys already in the file survive; an unknown key in the patch
// is refused. The runtime-only entries (offline, KIMI_MODEL_*) can never
// be written: they are not in the file and a patch naming them is refused.
// The file is re-encoded, so its comments are not kept.
func Patch(fsys osenv.FS, path string, patch map[string]any) error {
	p, _, err := readForWrite(fsys, path)
	if err != nil {
		return err
	}
	if err := checkReserved(patch); err != nil {
		return err
	}
	merged := deepCopy(p.raw)
	mergePatch(merged, normalize(patch).(map[string]any))
	normalizeDeprecated(merged)
	d := &decoder{file: path}
	decodeConfig(d, merged)
	if len(d.issues) > 0 {
		return invalidf(path, "Invalid configuration patch: %s", d.issues[0])
	}
	for _, k := range d.unknown {
		if pathIn(patch, k) {
			return invalidf(path, "Invalid configuration patch: unknown key %s", formatPath(k))
		}
	}
	data, err := encodeTOML(merged)
	if err != nil {
		return fmt.Errorf("encode %s: %w", path, err)
	}
	return writeAtomic(fsys, path, data)
}

// checkReserved refuses patches that would persist runtime-only entries.
func checkReserved(patch map[string]any) error {
	reserved := map[string][]string{
		"providers": {EnvModelProviderID},
		"models":    {OfflineAlias, EnvModelAlias},
	}
	for section, names := range reserved {
		m, _ := patch[section].(map[string]any)
		for _, n := range names {
			if _, ok := m[n]; ok {
				return invalidf("", "Invalid configuration patch: %s is reserved and is never written",
					formatPath([]string{section, n}))
			}
		}
	}
	if dm, ok := patch["default_model"].(string); ok && (dm == OfflineAlias || dm == EnvModelAlias) {
		return invalidf("", "Invalid configuration patch: default_model %q is a runtime-only model and is never written", dm)
	}
	return nil
}

// mergePatch deep-merges patch into dst.
func mergePatch(dst, patch map[string]any) {
	for k, v := range patch {
		if v == nil {
			delete(dst, k)
			continue
		}
		if pm, ok := v.(map[string]any); ok {
			if dm, ok := dst[k].(map[string]any); ok {
				mergePatch(dm, pm)
				continue
			}
			fresh := map[string]any{}
			mergePatch(fresh, pm)
			dst[k] = fresh
			continue
		}
		dst[k] = copyValue(v)
	}
}

// normalize turns Go values a caller may put in a patch into the shapes the
// TOML decoder produces.
func normalize(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = normalize(e)
		}
		return out
	case map[string]string:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = e
		}
		return out
	case []string:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = e
		}
		return out
	case []map[string]any:
		out := make([]map[string]any, len(x))
		for i, e := range x {
			out[i] = normalize(e).(map[string]any)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = normalize(e)
		}
		return out
	case int:
		return int64(x)
	}
	return v
}

// normalizeDeprecated rewrites what a rewrite must not keep: thinking.mode,
// default_yolo, default_thinking, and the permission shorthand tables
// (folded into permission.rules).
func normalizeDeprecated(raw map[string]any) {
	delete(raw, "default_yolo")
	delete(raw, "default_thinking")
	if th, ok := raw["thinking"].(map[string]any); ok {
		if th["mode"] == "off" {
			if _, set := th["enabled"]; !set {
				th["enabled"] = false
			}
		}
		delete(th, "mode")
	}
	perm, ok := raw["permission"].(map[string]any)
	if !ok {
		return
	}
	var rules []map[string]any
	for _, name := range ruleTables() {
		items, _ := asList(perm[name])
		for _, it := range items {
			m, ok := it.(map[string]any)
			if !ok {
				continue
			}
			r := PermissionRule{}
			if readRule(m, false, &r); r.Pattern != "" {
				m = deepCopy(m)
				m["pattern"] = r.Pattern
				delete(m, "tool")
				delete(m, "match")
			}
			if name != "rules" {
				m["decision"] = name
			}
			rules = append(rules, m)
		}
		if name != "rules" {
			delete(perm, name)
		}
	}
	if rules != nil {
		perm["rules"] = rules
	}
}

// pathIn reports whether patch has a value at path (array positions skip).
func pathIn(patch map[string]any, path []string) bool {
	var cur any = patch
	for _, p := range path {
		if strings.HasPrefix(p, "[") {
			return true
		}
		m, ok := cur.(map[string]any)
		if !ok {
			return false
		}
		if cur, ok = m[p]; !ok {
			return false
		}
	}
	return true
}

func encodeTOML(raw map[string]any) ([]byte, error) {
	var buf bytes.Buffer
	enc := toml.NewEncoder(&buf)
	enc.Indent = ""
	if err := enc.Encode(raw); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// AddUserAllowRule appends an allow rule with scope user for pattern to
// the user config.toml under home: what the "always" approval answer
// writes (ERRATA 10). See AddAllowRule.
func AddUserAllowRule(home, rule string) error {
	return AddAllowRule(osenv.LocalFS{}, ConfigFile(home), rule)
}

// AddAllowRule appends a [[permission.rules]] entry (decision allow, scope
// user) to the config file at path. The entry is appended as text, so the
// rest of the file, comments included, stays as it was; the result is
// parsed and checked before it replaces the file atomically. A file that
// does not parse or has schema issues is refused and left alone. If the
// file declares its rules in a form an appended table cannot extend (an
// inline array), the file is re-encoded instead. An identical allow rule
// already present means nothing is written.
func AddAllowRule(fsys osenv.FS, path, pattern string) error {
	pattern = strings.TrimSpace(pattern)
	if pattern == "" || !utf8.ValidString(pattern) {
		return invalidf(path, "add permission rule to %s: the pattern must be non-empty UTF-8 text", path)
	}
	p, src, err := readForWrite(fsys, path)
	if err != nil {
		return err
	}
	cfg, _ := decodeStrict(path, p, src)
	for _, r := range cfg.Permission {
		if r.Decision == DecisionAllow && r.Pattern == pattern && (r.Scope == "" || r.Scope == string(OriginUser)) {
			return nil
		}
	}
	text := src
	if len(text) > 0 && !bytes.HasSuffix(text, []byte("\n")) {
		text = append(bytes.Clone(text), '\n')
	}
	entry := fmt.Sprintf("\n[[permission.rules]]\ndecision = \"allow\"\npattern = %s\nscope = \"user\"\n", quoteTOML(pattern))
	candidate := append(bytes.Clone(text), entry...)
	if !appendedRule(path, candidate, pattern) {
		if candidate, err = appendRuleEncoded(p.raw, pattern); err != nil {
			return fmt.Errorf("add permission rule to %s: %w", path, err)
		}
	}
	return writeAtomic(fsys, path, candidate)
}

// appendedRule reports whether candidate parses cleanly and ends with the
// new rule.
func appendedRule(path string, candidate []byte, pattern string) bool {
	cp, err := parseTOML(path, candidate)
	if err != nil {
		return false
	}
	cfg, d := decodeStrict(path, cp, candidate)
	n := len(cfg.Permission)
	return len(d.issues) == 0 && n > 0 && cfg.Permission[n-1].Pattern == pattern &&
		cfg.Permission[n-1].Decision == DecisionAllow
}

// appendRuleEncoded adds the rule to the parsed document and encodes it.
func appendRuleEncoded(raw map[string]any, pattern string) ([]byte, error) {
	doc := deepCopy(raw)
	perm, ok := doc["permission"].(map[string]any)
	if !ok {
		perm = map[string]any{}
		doc["permission"] = perm
	}
	rule := map[string]any{"decision": "allow", "pattern": pattern, "scope": "user"}
	switch rules := perm["rules"].(type) {
	case []map[string]any:
		perm["rules"] = append(rules, rule)
	case []any:
		perm["rules"] = append(rules, rule)
	default:
		perm["rules"] = []map[string]any{rule}
	}
	return encodeTOML(doc)
}

// writeAtomic replaces path with data: the directory is created (0700),
// the file is written through a synced temporary file renamed over it, and
// the directory is synced. The file is 0600 even when it existed with
// another mode: it may hold keys. A failure leaves the old file as it was;
// a symbolic link is written through.
func writeAtomic(fsys osenv.FS, path string, data []byte) error {
	if err := fsys.MkdirAll(filepath.Dir(path), dirMode); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return osenv.WriteFileAtomicWith(fsys, path, data, osenv.AtomicWrite{Perm: fileMode, ForcePerm: true, SyncDir: true})
}

// quoteTOML writes s as a TOML basic string.
func quoteTOML(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\b':
			b.WriteString(`\b`)
		case '\t':
			b.WriteString(`\t`)
		case '\n':
			b.WriteString(`\n`)
		case '\f':
			b.WriteString(`\f`)
		case '\r':
			b.WriteString(`\r`)
		default:
			if r < 0x20 || r == 0x7f {
				fmt.Fprintf(&b, `\u%04X`, r)
				continue
			}
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
