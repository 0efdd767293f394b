package profile

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"text/template"
)

// merged is a definition with its extends chain folded in (spec 05 §8.2).
type merged struct {
	def             *definition
	template        *templateSource
	vars            map[string]string
	tools           []string
	disallowedTools []string
	whenToUse       *string
	modelPreference *string
}

// resolveDefinitions folds every extends chain, links subagent
// descriptions, compiles the templates and returns the profiles in
// definition order. Resolution is memoized and cycle-checked. A template
// that profiles inherit is parsed once and shared by them, each checked
// against its own variables.
func resolveDefinitions(defs []*definition) ([]*Profile, error) {
	byName := make(map[string]*definition, len(defs))
	for _, d := range defs {
		if _, dup := byName[d.f.Name]; dup {
			return nil, fmt.Errorf("duplicate agent profile name: %q", d.f.Name)
		}
		byName[d.f.Name] = d
	}
	r := &resolver{byName: byName, memo: map[string]*merged{}}
	all := make([]*merged, 0, len(defs))
	for _, d := range defs {
		m, err := r.resolve(d.f.Name, nil)
		if err != nil {
			return nil, err
		}
		all = append(all, m)
	}
	descriptions, err := linkSubagents(defs, byName)
	if err != nil {
		return nil, err
	}
	parsed := map[*templateSource]*template.Template{}
	profiles := make([]*Profile, 0, len(all))
	for _, m := range all {
		p, err := m.build(descriptions[m.def.f.Name], parsed)
		if err != nil {
			return nil, err
		}
		profiles = append(profiles, p)
	}
	return profiles, nil
}

type resolver struct {
	byName map[string]*definition
	memo   map[string]*merged
}

// resolve merges name with its ancestors; chain holds the names being
// resolved above it, to report a cycle as "a -> b -> a".
func (r *resolver) resolve(name string, chain []string) (*merged, error) {
	if m, ok := r.memo[name]; ok {
		return m, nil
	}
	if i := slices.Index(chain, name); i >= 0 {
		cycle := append(slices.Clone(chain[i:]), name)
		return nil, fmt.Errorf("agent profile extends cycle detected: %s", strings.Join(cycle, " -> "))
	}
	d := r.byName[name]
	m := &merged{
		def: d, template: d.template, vars: maps.Clone(d.vars),
		whenToUse: d.f.WhenToUse, modelPreference: d.f.ModelPreference,
	}
	if d.f.Tools != nil {
		m.tools = slices.Clone(*d.f.Tools)
	}
	if d.f.DisallowedTools != nil {
		m.disallowedTools = slices.Clone(*d.f.DisallowedTools)
	}
	if parentName := d.f.Extends; parentName != "" {
		if r.byName[parentName] == nil {
			return nil, fmt.Errorf("agent profile %q extends %q but parent profile was not found", name, parentName)
		}
		parent, err := r.resolve(parentName, append(chain, name))
		if err != nil {
			return nil, err
		}
		m.inherit(parent)
	}
	if m.tools == nil {
		m.tools = []string{}
	}
	r.memo[name] = m
	return m, nil
}

// inherit applies the merge rules of spec 05 §8.2: own value, else the
// parent's; promptVars merge shallowly with own keys winning; description
// and subagents are never inherited.
func (m *merged) inherit(parent *merged) {
	if m.template == nil {
		m.template = parent.template
	}
	vars := maps.Clone(parent.vars)
	maps.Copy(vars, m.vars)
	m.vars = vars
	if m.tools == nil {
		m.tools = slices.Clone(parent.tools)
	}
	if m.disallowedTools == nil {
		m.disallowedTools = slices.Clone(parent.disallowedTools)
	}
	if m.whenToUse == nil {
		m.whenToUse = parent.whenToUse
	}
	if m.modelPreference == nil {
		m.modelPreference = parent.modelPreference
	}
}

// linkSubagents checks that every declared subagent exists and returns the
// descriptions owners give their subagents; the first owner in definition
// order wins.
func linkSubagents(defs []*definition, byName map[string]*definition) (map[string]string, error) {
	desc := map[string]string{}
	for _, d := range defs {
		for _, sub := range slices.Sorted(maps.Keys(d.f.Subagents)) {
			if byName[sub] == nil {
				return nil, fmt.Errorf("agent profile %q declares subagent %q but that agent profile was not found", d.f.Name, sub)
			}
			if e := d.f.Subagents[sub]; e != nil && e.Description != "" {
				if _, seen := desc[sub]; !seen {
					desc[sub] = e.Description
				}
			}
		}
	}
	return desc, nil
}

// build compiles the merged template and returns the profile. ownerDesc
// fills the description when the profile has none of its own; parsed
// holds the templates parsed so far, which build reuses and adds to.
func (m *merged) build(ownerDesc string, parsed map[*templateSource]*template.Template) (*Profile, error) {
	f := &m.def.f
	src := m.template
	if src == nil {
		src = &templateSource{name: m.def.file}
	}
	tmpl, err := compile(src, m.vars, parsed)
	if err != nil {
		return nil, fmt.Errorf("compile system prompt for agent profile %q: %w", f.Name, err)
	}
	p := Profile{
		Name: f.Name, Description: f.Description, Tools: m.tools, DisallowedTools: m.disallowedTools,
		Source: m.def.file,
	}
	if p.Description == "" {
		p.Description = ownerDesc
	}
	if m.whenToUse != nil {
		p.WhenToUse = *m.whenToUse
	}
	if m.modelPreference != nil {
		p.ModelPreference = ModelPreference(*m.modelPreference)
	}
	if len(f.Subagents) > 0 {
		p.Subagents = slices.Sorted(maps.Keys(f.Subagents))
	}
	return New(p, &templatePrompt{tmpl: tmpl, vars: m.vars}), nil
}

// compile returns the template of src, parsed once per source, after
// checking it against vars.
func compile(src *templateSource, vars map[string]string, parsed map[*templateSource]*template.Template) (*template.Template, error) {
	t := parsed[src]
	if t == nil {
		var err error
		if t, err = parseTemplate(*src); err != nil {
			return nil, err
		}
		parsed[src] = t
	}
	return t, checkNames(t, vars)
}
