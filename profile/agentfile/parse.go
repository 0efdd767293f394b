package agentfile

import (
	"errors"
	"fmt"
	"strings"

	"github.com/goccy/go-yaml"

	"github.com/kimigo/kimigo/profile"
)

// Parse reads an agent file: a first line "---", YAML frontmatter, a
// closing "---" line, then the prompt body (spec 05 §8.8). Errors name the
// file p and the field at fault. Unknown fields are ignored.
func Parse(p string, src Source, data []byte) (Definition, error) {
	front, body, ok := splitFrontmatter(string(data))
	if !ok {
		return Definition{}, fmt.Errorf("missing frontmatter in %s", p)
	}
	var raw any
	if err := yaml.Unmarshal([]byte(front), &raw); err != nil {
		return Definition{}, fmt.Errorf("invalid frontmatter in %s: %s", p, yaml.FormatError(err, false, false))
	}
	fields, ok := raw.(map[string]any)
	if raw != nil && !ok {
		return Definition{}, fmt.Errorf("frontmatter in %s must be a mapping at the top level", p)
	}
	f := frontmatter{path: p, fields: fields}
	d := Definition{Path: p, Source: src, Prompt: strings.TrimSpace(body)}
	var err error
	if d.Name, err = f.name(); err != nil {
		return Definition{}, err
	}
	if d.Description, err = f.description(); err != nil {
		return Definition{}, err
	}
	if d.WhenToUse, err = f.str("whenToUse"); err != nil {
		return Definition{}, err
	}
	if d.Override, err = f.boolean("override"); err != nil {
		return Definition{}, err
	}
	if d.Tools, err = f.list("tools", true); err != nil {
		return Definition{}, err
	}
	if d.DisallowedTools, err = f.list("disallowedTools", false); err != nil {
		return Definition{}, err
	}
	if d.Subagents, err = f.list("subagents", true); err != nil {
		return Definition{}, err
	}
	if d.ModelPreference, err = f.modelPreference(); err != nil {
		return Definition{}, err
	}
	if d.Prompt == "" {
		return Definition{}, fmt.Errorf("missing prompt body in %s", p)
	}
	return d, nil
}

// splitFrontmatter cuts text into the YAML between the two "---" lines
// and the body after them.
func splitFrontmatter(text string) (front, body string, ok bool) {
	text = strings.TrimPrefix(text, "\ufeff")
	first, rest, found := strings.Cut(text, "\n")
	if !found || strings.TrimRight(first, " \t\r") != "---" {
		return "", "", false
	}
	var b strings.Builder
	for rest != "" {
		line, after, _ := strings.Cut(rest, "\n")
		if strings.TrimRight(line, " \t\r") == "---" {
			return b.String(), after, true
		}
		b.WriteString(line + "\n")
		rest = after
	}
	return "", "", false
}

// frontmatter reads typed fields out of the decoded YAML mapping.
type frontmatter struct {
	path   string
	fields map[string]any // nil for an empty frontmatter
}

func (f frontmatter) name() (string, error) {
	v, ok := f.fields["name"]
	name := defaultName(f.path)
	if ok {
		s, isStr := v.(string)
		if !isStr || strings.TrimSpace(s) == "" {
			return "", fmt.Errorf("frontmatter field \"name\" in %s must be a non-empty string", f.path)
		}
		name = strings.TrimSpace(s)
	}
	if !isKebab(name) {
		return "", fmt.Errorf("invalid agent name %q in %s: expected kebab-case (e.g. \"code-reviewer\")", name, f.path)
	}
	return name, nil
}

func (f frontmatter) description() (string, error) {
	s, ok := f.fields["description"].(string)
	if !ok || strings.TrimSpace(s) == "" {
		return "", fmt.Errorf("missing required frontmatter field \"description\" in %s", f.path)
	}
	return strings.TrimSpace(s), nil
}

func (f frontmatter) str(key string) (string, error) {
	v, ok := f.fields[key]
	if !ok || v == nil {
		return "", nil
	}
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("frontmatter field %q in %s must be a string", key, f.path)
	}
	return strings.TrimSpace(s), nil
}

func (f frontmatter) boolean(key string) (bool, error) {
	v, ok := f.fields[key]
	if !ok || v == nil {
		return false, nil
	}
	b, ok := v.(bool)
	if !ok {
		return false, fmt.Errorf("frontmatter field %q in %s must be a boolean", key, f.path)
	}
	return b, nil
}

// list reads a YAML list of non-empty strings or a comma-separated
// string. An absent field is nil; with star set, a lone "*" (unrestricted)
// is nil as well.
func (f frontmatter) list(key string, star bool) ([]string, error) {
	v, ok := f.fields[key]
	if !ok || v == nil {
		return nil, nil
	}
	var out []string
	switch v := v.(type) {
	case string:
		out = []string{}
		for part := range strings.SplitSeq(v, ",") {
			if part = strings.TrimSpace(part); part != "" {
				out = append(out, part)
			}
		}
	case []any:
		out = make([]string, 0, len(v))
		for _, e := range v {
			s, ok := e.(string)
			if !ok || strings.TrimSpace(s) == "" {
				return nil, fmt.Errorf("frontmatter field %q in %s must be a list of non-empty strings", key, f.path)
			}
			out = append(out, strings.TrimSpace(s))
		}
	default:
		return nil, fmt.Errorf("frontmatter field %q in %s must be a comma-separated string or a list of strings", key, f.path)
	}
	if star && len(out) == 1 && out[0] == "*" {
		return nil, nil
	}
	return out, nil
}

func (f frontmatter) modelPreference() (profile.ModelPreference, error) {
	v, ok := f.fields["model_preference"]
	if !ok || v == nil {
		return "", nil
	}
	switch s, _ := v.(string); profile.ModelPreference(s) {
	case profile.ModelPrimary, profile.ModelSecondary:
		return profile.ModelPreference(s), nil
	}
	return "", errors.New(`frontmatter field "model_preference" in ` + f.path + ` must be "primary" or "secondary"`)
}
