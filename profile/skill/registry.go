package skill

import (
	_ "embed"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/kimigo/kimigo/osenv"
	"github.com/kimigo/kimigo/profile"
)

// maxListedDescription bounds a description in the model's listing
// (spec 05 §9.4), the ellipsis included.
const maxListedDescription = 250

//go:embed text/listing_intro.md
var listingIntro string

// Registry is a session's skills (spec 05 §9.4): the discovered ones, then
// the built-in ones whose names are free. It is immutable once built and
// safe for concurrent use.
type Registry struct {
	skills []Skill // sorted by name
	byKey  map[string]int
	roots  []Root
}

// Load discovers the skills of roots and adds the built-in ones whose
// names are free. Warnings name what was skipped and why.
func Load(fsys osenv.FS, roots []Root) (*Registry, []profile.Warning) {
	found, warnings := Discover(fsys, roots)
	r := NewRegistry(found, Builtin())
	r.roots = slices.Clone(roots)
	return r, warnings
}

// NewRegistry registers skills in order (a later one replaces an earlier
// one of the same name), then the built-in ones whose names are still
// free.
func NewRegistry(skills []Skill, builtin []Skill) *Registry {
	r := &Registry{byKey: map[string]int{}}
	for _, s := range skills {
		r.put(s)
	}
	for _, s := range builtin {
		if _, taken := r.byKey[key(s.Name)]; !taken {
			r.put(s)
		}
	}
	slices.SortFunc(r.skills, func(a, b Skill) int { return strings.Compare(key(a.Name), key(b.Name)) })
	for i, s := range r.skills {
		r.byKey[key(s.Name)] = i
	}
	return r
}

func (r *Registry) put(s Skill) {
	if i, ok := r.byKey[key(s.Name)]; ok {
		r.skills[i] = s
		return
	}
	r.byKey[key(s.Name)] = len(r.skills)
	r.skills = append(r.skills, s)
}

// Lookup finds a skill by name, ignoring case.
func (r *Registry) Lookup(name string) (Skill, bool) {
	if r == nil {
		return Skill{}, false
	}
	i, ok := r.byKey[key(strings.TrimSpace(name))]
	if !ok {
		return Skill{}, false
	}
	return r.skills[i], true
}

// All lists every skill, sorted by name.
func (r *Registry) All() []Skill {
	if r == nil {
		return nil
	}
	return slices.Clone(r.skills)
}

// ModelInvocable lists the skills the model may load (not sub-skills),
// sorted by name. The Skill tool exists only when there is one.
func (r *Registry) ModelInvocable() []Skill {
	var out []Skill
	for _, s := range r.All() {
		if s.ModelInvocable() && !s.SubSkill {
			out = append(out, s)
		}
	}
	return out
}

// HasModelInvocable reports whether the model may load any skill.
func (r *Registry) HasModelInvocable() bool { return len(r.ModelInvocable()) > 0 }

// RootDirs are the directories the skills were found in, in precedence
// order. The caller adds those outside the workspace to the tools'
// additional directories, so the model can read a skill's resources.
func (r *Registry) RootDirs() []string {
	if r == nil {
		return nil
	}
	var out []string
	for _, root := range r.roots {
		out = append(out, root.Dir)
	}
	return out
}

// listingGroups are the listing's groups in precedence order.
var listingGroups = []struct {
	source Source
	title  string
}{
	{SourceProject, "### Project"},
	{SourceUser, "### User"},
	{SourceExtra, "### Extra"},
	{SourceBuiltin, "### Built-in"},
}

// Listing is the model's skill listing for the system prompt (the
// KIMI_SKILLS variable, spec 05 §9.4): "" when the model may load no skill;
// otherwise an opening line, then the groups Project, User, Extra and
// Built-in (empty ones left out), each skill as its name and description,
// its when-to-use hint and its path. It is byte-stable for equal
// registries.
func (r *Registry) Listing() string {
	skills := r.ModelInvocable()
	if len(skills) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString(strings.TrimSpace(listingIntro))
	for _, g := range listingGroups {
		first := true
		for _, s := range skills {
			if s.Source != g.source {
				continue
			}
			if first {
				b.WriteString("\n\n" + g.title)
				first = false
			}
			b.WriteString("\n- " + s.Name + ": " + cutDescription(oneLine(s.Description)))
			if s.WhenToUse != "" {
				b.WriteString("\n  When to use: " + oneLine(s.WhenToUse))
			}
			b.WriteString("\n  Path: " + s.Path)
		}
	}
	return b.String()
}

// cutDescription cuts s to 250 characters, the ellipsis included.
func cutDescription(s string) string {
	if utf8.RuneCountInString(s) <= maxListedDescription {
		return s
	}
	r := []rune(s)
	return string(r[:maxListedDescription-1]) + "…"
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
