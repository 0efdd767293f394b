package agentfile

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/kimigo/kimigo/profile"
)

// Merge builds the session catalog (spec 05 §8.8): the built-in profiles,
// replaced or joined by the agent file definitions. For each name the
// candidate of the highest-priority source wins, except that a file may
// replace a built-in only with override (explicit files and SYSTEM.md
// always may); among explicit files of one name the last wins. SYSTEM.md
// replaces only the default profile's prompt. File profiles without a
// subagent list may delegate to every profile; the default profile may
// also delegate to every file profile unless a file replaced it.
//
// The Snapshot records what the files contributed, for Restore.
func Merge(builtin *profile.Catalog, defs []Definition) (*profile.Catalog, Snapshot, []profile.Warning, error) {
	builtinDefault := builtin.Default()
	if builtinDefault == nil {
		return nil, Snapshot{}, nil, errors.New("built-in agent profiles have no default")
	}
	var warnings []profile.Warning
	warn := func(msg string) {
		warnings = append(warnings, profile.Warning{Code: WarningAgentFile, Message: msg})
	}
	effDefault := builtinDefault
	var system *Definition
	for i := range defs {
		if defs[i].Source == SourceSystem {
			system = &defs[i]
			effDefault = profile.New(*builtinDefault, &filePrompt{body: system.Prompt, base: builtinDefault})
		} else {
			for _, msg := range deadPatterns(defs[i], builtin) {
				warn(msg)
			}
		}
	}
	winners := pickWinners(builtin, candidates(defs), warn)

	names := builtin.Names()
	var files []Definition // winners that are real agent files
	for _, d := range winners {
		if !slices.Contains(names, d.Name) {
			names = append(names, d.Name)
		}
		if d.Source != SourceSystem {
			files = append(files, d)
		}
	}
	slices.Sort(names)

	byName := map[string]*profile.Profile{}
	for _, p := range builtin.Profiles() {
		byName[p.Name] = p
	}
	if system != nil && slices.ContainsFunc(winners, func(d Definition) bool { return d.Source == SourceSystem }) {
		byName[profile.DefaultName] = effDefault
	}
	snap := Snapshot{Version: snapshotVersion}
	if system != nil { // other files' ${base_prompt} and default tools depend on it
		snap.SystemPrompt = system.Prompt
	}
	for _, d := range files {
		d.Subagents = linkSubagents(d, names, warn)
		if d.Tools == nil {
			d.Tools = slices.Clone(effDefault.Tools)
		}
		byName[d.Name] = fileProfile(d, effDefault)
		snap.Profiles = append(snap.Profiles, d)
	}
	if len(files) > 0 && !slices.ContainsFunc(files, func(d Definition) bool { return d.Name == profile.DefaultName }) {
		def := byName[profile.DefaultName]
		subs := slices.Clone(def.Subagents)
		for _, d := range files {
			subs = append(subs, d.Name)
		}
		byName[profile.DefaultName] = def.WithSubagents(subs)
	}
	cat, err := profile.NewCatalog(profile.DefaultName, slices.Collect(maps.Values(byName))...)
	if err != nil {
		return nil, Snapshot{}, nil, err
	}
	return cat, snap, warnings, nil
}

// candidates orders the definitions by source priority, SYSTEM.md ahead of
// user files, keeping discovery order otherwise; of several explicit files
// with one name only the last is kept.
func candidates(defs []Definition) []Definition {
	lastExplicit := map[string]int{}
	for i, d := range defs {
		if d.Source == SourceExplicit {
			lastExplicit[d.Name] = i
		}
	}
	var out []Definition
	for i, d := range defs {
		if d.Source == SourceExplicit && lastExplicit[d.Name] != i {
			continue
		}
		out = append(out, d)
	}
	slices.SortStableFunc(out, func(a, b Definition) int {
		return cmp.Or(cmp.Compare(b.Source.priority(), a.Source.priority()),
			cmp.Compare(systemFirst(a), systemFirst(b)))
	})
	return out
}

func systemFirst(d Definition) int {
	if d.Source == SourceSystem {
		return 0
	}
	return 1
}

// pickWinners chooses one definition per name, in candidate order.
func pickWinners(builtin *profile.Catalog, cands []Definition, warn func(string)) []Definition {
	var winners []Definition
	decided := map[string]bool{}
	for _, d := range cands {
		if decided[d.Name] {
			continue
		}
		if _, isBuiltin := builtin.Get(d.Name); isBuiltin && !d.overrides() {
			warn(fmt.Sprintf("agent file profile %q ignored: a same-name builtin profile exists; set \"override: true\" in the frontmatter to replace it", d.Name))
			continue
		}
		decided[d.Name] = true
		winners = append(winners, d)
	}
	return winners
}

// linkSubagents resolves a file's subagent allow-list against the merged
// names: nil means every profile; unknown names are dropped with a
// warning. The result is never nil.
func linkSubagents(d Definition, names []string, warn func(string)) []string {
	if d.Subagents == nil {
		return slices.Clone(names)
	}
	out := []string{}
	for _, s := range d.Subagents {
		if !slices.Contains(names, s) {
			warn(fmt.Sprintf("agent file profile %q declares subagent %q but that agent profile was not found", d.Name, s))
			continue
		}
		out = append(out, s)
	}
	return out
}

// fileProfile is the profile an agent file defines; its tools are already
// resolved.
func fileProfile(d Definition, effDefault *profile.Profile) *profile.Profile {
	return profile.New(profile.Profile{
		Name: d.Name, Description: d.Description, WhenToUse: d.WhenToUse,
		Tools: d.Tools, DisallowedTools: d.DisallowedTools, Subagents: d.Subagents,
		ModelPreference: d.ModelPreference, Source: d.Path,
	}, &filePrompt{body: d.Prompt, base: effDefault})
}
