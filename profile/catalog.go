package profile

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// ErrNotFound reports a profile name that no catalog entry has.
var ErrNotFound = errors.New("agent profile not found")

// Catalog is a set of profiles with unique names and a default. It is
// immutable and safe for concurrent use.
type Catalog struct {
	byName map[string]*Profile
	names  []string // sorted
	def    string
}

// NewCatalog returns a catalog of profiles whose default is named def
// ("" when it has none). Every name must be unique, def must name a member,
// and every subagent a profile names must be a member.
func NewCatalog(def string, profiles ...*Profile) (*Catalog, error) {
	c := &Catalog{byName: make(map[string]*Profile, len(profiles)), def: def}
	for _, p := range profiles {
		if p.Name == "" {
			return nil, fmt.Errorf("agent profile from %s has no name", p.Source)
		}
		if _, dup := c.byName[p.Name]; dup {
			return nil, fmt.Errorf("duplicate agent profile name: %q", p.Name)
		}
		c.byName[p.Name] = p
	}
	if def != "" && c.byName[def] == nil {
		return nil, fmt.Errorf("default agent profile %q is not in the catalog", def)
	}
	c.names = slices.Sorted(maps.Keys(c.byName))
	for _, name := range c.names {
		for _, sub := range c.byName[name].Subagents {
			if c.byName[sub] == nil {
				return nil, fmt.Errorf("agent profile %q declares subagent %q but that agent profile was not found", name, sub)
			}
		}
	}
	return c, nil
}

// Get returns the profile called name.
func (c *Catalog) Get(name string) (*Profile, bool) {
	p, ok := c.byName[name]
	return p, ok
}

// Resolve returns the profile called name, or the default when name is
// empty (spec 05 §8.7). An unknown name is an error wrapping ErrNotFound
// that lists the available names.
func (c *Catalog) Resolve(name string) (*Profile, error) {
	if name == "" {
		name = c.def
	}
	if p, ok := c.byName[name]; ok {
		return p, nil
	}
	return nil, &notFoundError{name: name, available: c.names}
}

// notFoundError names the missing profile and the ones there are.
type notFoundError struct {
	name      string
	available []string
}

func (e *notFoundError) Error() string {
	return fmt.Sprintf("agent profile %q was not found; available profiles: %s", e.name, strings.Join(e.available, ", "))
}

func (e *notFoundError) Unwrap() error { return ErrNotFound }

// Default returns the default profile, nil when the catalog has none.
func (c *Catalog) Default() *Profile { return c.byName[c.def] }

// DefaultName returns the name of the default profile.
func (c *Catalog) DefaultName() string { return c.def }

// Names returns every profile name, sorted.
func (c *Catalog) Names() []string { return slices.Clone(c.names) }

// Profiles returns every profile, sorted by name.
func (c *Catalog) Profiles() []*Profile {
	out := make([]*Profile, len(c.names))
	for i, n := range c.names {
		out[i] = c.byName[n]
	}
	return out
}

// Delegates returns the profiles the profile called name may delegate to
// (spec 05 §5.2): its own subagents, or the default profile's when it
// declares none (Subagents is nil). The result is sorted by name; an
// unknown name has none.
func (c *Catalog) Delegates(name string) []*Profile {
	p, ok := c.byName[name]
	if !ok {
		return nil
	}
	subs := p.Subagents
	if subs == nil && c.Default() != nil {
		subs = c.Default().Subagents
	}
	out := make([]*Profile, 0, len(subs))
	for _, s := range subs {
		out = append(out, c.byName[s])
	}
	return out
}
