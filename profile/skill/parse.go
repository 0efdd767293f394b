package skill

import (
	"errors"
	"fmt"
	"path"
	"strings"
	"unicode/utf8"

	"github.com/goccy/go-yaml"
)

// ErrUnsupportedType marks a skill whose type kimigo does not know; the
// scanner skips it by policy rather than as broken.
var ErrUnsupportedType = errors.New("unsupported skill type")

// maxFlatDescription bounds a description taken from a flat file's first
// line (spec 05 §9.3).
const maxFlatDescription = 240

// noDescription is a flat file's description when it has no text.
const noDescription = "No description provided."

// ParseOptions say what kind of file is parsed.
type ParseOptions struct {
	// Flat is set for a top-level .md file: its frontmatter is optional,
	// its name defaults to the file name and its description to the first
	// line of text. A directory skill's SKILL.md needs both fields.
	Flat bool
	// Dir is the skill's directory; "" means the file's.
	Dir string
	// Source is recorded in the skill.
	Source Source
}

// Parse reads one skill file (spec 05 §9.3): a first line "---", YAML
// frontmatter, a closing "---" line, then the instructions. Every error
// names the file and, where there is one, the line.
func Parse(p string, data []byte, o ParseOptions) (Skill, error) {
	return parse(p, data, o, decodeFrontmatter)
}

// parse is Parse with the decoding of the frontmatter's YAML given: the
// built-in skills have theirs decoded ahead of time.
func parse(p string, data []byte, o ParseOptions, decode func(p, front string) (map[string]any, error)) (Skill, error) {
	text := strings.TrimPrefix(string(data), "\ufeff")
	s := Skill{Path: p, Dir: o.Dir, Source: o.Source, Type: TypePrompt}
	if s.Dir == "" {
		s.Dir = path.Dir(p)
	}
	front, body, hasFront, err := splitFrontmatter(p, text)
	if err != nil {
		return Skill{}, err
	}
	if !hasFront && !o.Flat {
		return Skill{}, fmt.Errorf("missing frontmatter in %s: line 1 must be \"---\"", p)
	}
	s.Body = strings.TrimSpace(body)
	fields, err := decode(p, front)
	if err != nil {
		return Skill{}, err
	}
	fm := frontmatter{path: p, text: front, fields: fields}
	s.Metadata = fields
	if s.Name, err = fm.str("name"); err != nil {
		return Skill{}, err
	}
	if s.Description, err = fm.str("description"); err != nil {
		return Skill{}, err
	}
	if o.Flat {
		if s.Name == "" {
			s.Name = strings.TrimSuffix(path.Base(p), path.Ext(p))
		}
		if s.Description == "" {
			s.Description = firstLineDescription(s.Body)
		}
	}
	for _, f := range []struct{ key, val string }{{"name", s.Name}, {"description", s.Description}} {
		if f.val == "" {
			return Skill{}, fmt.Errorf("missing required frontmatter field %q in %s%s", f.key, p, fm.at(f.key))
		}
	}
	if s.WhenToUse, err = fm.str("whenToUse", "when-to-use", "when_to_use"); err != nil {
		return Skill{}, err
	}
	if s.DisableModelInvocation, err = fm.boolean("disableModelInvocation", "disable-model-invocation",
		"disable_model_invocation"); err != nil {
		return Skill{}, err
	}
	typ, err := fm.str("type")
	if err != nil {
		return Skill{}, err
	}
	switch Type(typ) {
	case "":
	case TypePrompt, TypeInline, TypeFlow, TypeReference:
		s.Type = Type(typ)
	default:
		return Skill{}, fmt.Errorf("%w %q in %s%s: use prompt, inline, flow or reference",
			ErrUnsupportedType, typ, p, fm.at("type"))
	}
	if s.Arguments, err = fm.arguments(); err != nil {
		return Skill{}, err
	}
	s.HasSubSkills = fm.subSkills()
	return s, nil
}

// splitFrontmatter cuts text into the YAML between the two "---" lines
// and the body after them. hasFront is false when the first line is not
// "---"; an opening fence that is never closed is an error.
func splitFrontmatter(p, text string) (front, body string, hasFront bool, err error) {
	first, rest, found := strings.Cut(text, "\n")
	if strings.TrimSpace(first) != "---" {
		return "", text, false, nil
	}
	if !found {
		rest = ""
	}
	var b strings.Builder
	for rest != "" {
		line, after, _ := strings.Cut(rest, "\n")
		if strings.TrimSpace(line) == "---" {
			return b.String(), after, true, nil
		}
		b.WriteString(line + "\n")
		rest = after
	}
	return "", "", false, fmt.Errorf("missing closing frontmatter fence in %s: the \"---\" on line 1 is never closed", p)
}

// frontmatter reads typed fields out of the decoded YAML mapping.
type frontmatter struct {
	path   string
	text   string         // the YAML, for line numbers
	fields map[string]any // nil for an empty frontmatter
}

// decodeFrontmatter decodes the YAML between the fences: nil when it is
// empty, else a mapping.
func decodeFrontmatter(p, front string) (map[string]any, error) {
	if strings.TrimSpace(front) == "" {
		return nil, nil
	}
	var raw any
	if err := yaml.Unmarshal([]byte(front), &raw); err != nil {
		return nil, fmt.Errorf("invalid frontmatter in %s: %s", p, yamlError(err))
	}
	fields, ok := raw.(map[string]any)
	if raw != nil && !ok {
		return nil, fmt.Errorf("frontmatter in %s must be a mapping at the top level (line 2)", p)
	}
	return fields, nil
}

// yamlError words a YAML error with its position in the file: the
// frontmatter starts on line 2.
func yamlError(err error) string {
	var ye yaml.Error
	if errors.As(err, &ye) {
		if tok := ye.GetToken(); tok != nil && tok.Position != nil {
			return fmt.Sprintf("line %d, column %d: %s", tok.Position.Line+1, tok.Position.Column, ye.GetMessage())
		}
		return ye.GetMessage()
	}
	return strings.TrimSpace(yaml.FormatError(err, false, false))
}

// at is " (line N)" for the line of the file where key is set, or "".
func (f frontmatter) at(key string) string {
	for i, line := range strings.Split(f.text, "\n") {
		if strings.HasPrefix(line, key+":") {
			return fmt.Sprintf(" (line %d)", i+2)
		}
	}
	return ""
}

// value returns the first of keys that is set.
func (f frontmatter) value(keys ...string) (string, any, bool) {
	for _, k := range keys {
		if v, ok := f.fields[k]; ok && v != nil {
			return k, v, true
		}
	}
	return "", nil, false
}

func (f frontmatter) str(keys ...string) (string, error) {
	k, v, ok := f.value(keys...)
	if !ok {
		return "", nil
	}
	switch x := v.(type) {
	case string:
		return strings.TrimSpace(x), nil
	case uint64, int64, float64, bool: // a YAML scalar the writer meant as text
		return fmt.Sprint(x), nil
	}
	return "", fmt.Errorf("frontmatter field %q in %s%s must be a string", k, f.path, f.at(k))
}

func (f frontmatter) boolean(keys ...string) (bool, error) {
	k, v, ok := f.value(keys...)
	if !ok {
		return false, nil
	}
	b, isBool := v.(bool)
	if !isBool {
		return false, fmt.Errorf("frontmatter field %q in %s%s must be true or false", k, f.path, f.at(k))
	}
	return b, nil
}

// arguments reads a list of names or a whitespace-separated string;
// blank and purely numeric names are dropped ($0 already means the first
// argument).
func (f frontmatter) arguments() ([]string, error) {
	k, v, ok := f.value("arguments")
	if !ok {
		return nil, nil
	}
	var names []string
	switch x := v.(type) {
	case string:
		names = strings.Fields(x)
	case []any:
		for _, it := range x {
			s, isStr := it.(string)
			if !isStr {
				return nil, fmt.Errorf("frontmatter field %q in %s%s must be a list of names or a string",
					k, f.path, f.at(k))
			}
			names = append(names, strings.TrimSpace(s))
		}
	default:
		return nil, fmt.Errorf("frontmatter field %q in %s%s must be a list of names or a string", k, f.path, f.at(k))
	}
	out := names[:0]
	for _, n := range names {
		if n != "" && strings.Trim(n, "0123456789") != "" {
			out = append(out, n)
		}
	}
	return out, nil
}

// subSkills reports has-sub-skill / hasSubSkill, at the top level or under
// a nested metadata map.
func (f frontmatter) subSkills() bool {
	on := func(m map[string]any) bool {
		for _, k := range []string{"has-sub-skill", "hasSubSkill"} {
			if b, ok := m[k].(bool); ok && b {
				return true
			}
		}
		return false
	}
	if on(f.fields) {
		return true
	}
	meta, ok := f.fields["metadata"].(map[string]any)
	return ok && on(meta)
}

// firstLineDescription is a flat skill's default description: its first
// line of text, cut to 240 characters.
func firstLineDescription(body string) string {
	for line := range strings.SplitSeq(body, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if utf8.RuneCountInString(line) > maxFlatDescription {
			r := []rune(line)
			return string(r[:maxFlatDescription-1]) + "…"
		}
		return line
	}
	return noDescription
}
