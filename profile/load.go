package profile

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/goccy/go-yaml"
)

//go:generate go test -run ^TestBuiltinGenerated$ -generate

// builtinFS holds the prompt files of the built-in profiles.
//
//go:embed builtin/*.md
var builtinFS embed.FS

// Builtin returns the catalog of the four built-in profiles (agent, coder,
// explore, plan; spec 05 §8.3) with agent as the default. Each call builds
// the catalog anew, so callers should keep the result.
//
// The profiles are written in builtin/ like any profile, but kimigo does
// not parse their YAML when it starts: builtin_gen.go holds it decoded,
// and TestBuiltinGenerated checks that decoding the files gives the same.
// The rest (validation, prompt files, extends, templates) runs as for
// any profile.
func Builtin() (*Catalog, error) {
	files := builtinFiles()
	defs := make([]*definition, 0, len(files))
	for _, b := range files {
		d, err := newDefinition(builtinFS, b.name, b.f)
		if err != nil {
			return nil, err
		}
		defs = append(defs, d)
	}
	return catalog(defs)
}

// decodedFile is a profile file whose YAML is decoded.
type decodedFile struct {
	name string
	f    profileFile
}

// Resolve returns the built-in profile called name, or the default when
// name is empty. Catalogs with custom agent files resolve through
// Catalog.Resolve instead.
func Resolve(name string) (*Profile, error) {
	c, err := Builtin()
	if err != nil {
		return nil, err
	}
	return c.Resolve(name)
}

// Load reads YAML profile files from fsys (spec 05 §8.1), resolves their
// extends chains (§8.2), compiles their templates and returns them as a
// catalog whose default is DefaultName when one of them has that name.
// A file that does not exist is skipped. Template paths are relative to the
// directory of the YAML file naming them.
func Load(fsys fs.FS, files ...string) (*Catalog, error) {
	var defs []*definition
	for _, name := range files {
		data, err := fs.ReadFile(fsys, name)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("read agent profile %s: %w", name, err)
		}
		d, err := parseDefinition(fsys, name, data)
		if err != nil {
			return nil, err
		}
		defs = append(defs, d)
	}
	return catalog(defs)
}

// catalog resolves defs and returns them as a catalog whose default is
// DefaultName when one of them has that name.
func catalog(defs []*definition) (*Catalog, error) {
	profiles, err := resolveDefinitions(defs)
	if err != nil {
		return nil, err
	}
	def := ""
	if slices.ContainsFunc(profiles, func(p *Profile) bool { return p.Name == DefaultName }) {
		def = DefaultName
	}
	return NewCatalog(def, profiles...)
}

// profileFile is the YAML schema of spec 05 §8.1. Pointers tell "absent"
// from "empty" where a field inherits. Unknown keys are ignored.
type profileFile struct {
	Name                 string                   `yaml:"name"`
	Extends              string                   `yaml:"extends"`
	Description          string                   `yaml:"description"`
	SystemPromptPath     string                   `yaml:"systemPromptPath"`
	SystemPromptTemplate *string                  `yaml:"systemPromptTemplate"`
	PromptVars           map[string]string        `yaml:"promptVars"`
	PromptVarPaths       map[string]any           `yaml:"promptVarPaths"`
	Tools                *[]string                `yaml:"tools"`
	DisallowedTools      *[]string                `yaml:"disallowedTools"`
	WhenToUse            *string                  `yaml:"whenToUse"`
	Subagents            map[string]*subagentYAML `yaml:"subagents"`
	ModelPreference      *string                  `yaml:"modelPreference"`
}

type subagentYAML struct {
	Description string `yaml:"description"`
}

// definition is one parsed profile file, before extends is resolved.
type definition struct {
	file     string // the YAML path, for errors
	f        profileFile
	template *templateSource // nil: inherit
	vars     map[string]string
}

// templateSource is template text and the name errors report it under.
type templateSource struct {
	name, text string
}

func parseDefinition(fsys fs.FS, file string, data []byte) (*definition, error) {
	f, err := decodeProfile(file, data)
	if err != nil {
		return nil, err
	}
	return newDefinition(fsys, file, f)
}

// decodeProfile decodes the YAML of the profile file called file.
func decodeProfile(file string, data []byte) (profileFile, error) {
	var f profileFile
	if err := yaml.Unmarshal(data, &f); err != nil {
		return profileFile{}, fmt.Errorf("invalid agent profile YAML at %s: %s", file, yaml.FormatError(err, false, false))
	}
	return f, nil
}

// newDefinition validates the decoded profile file f and reads the
// prompt files it names from fsys, relative to file's directory.
func newDefinition(fsys fs.FS, file string, f profileFile) (*definition, error) {
	d := &definition{file: file, f: f}
	if err := d.validate(); err != nil {
		return nil, fmt.Errorf("invalid agent profile at %s: %w", file, err)
	}
	dir := path.Dir(file)
	if d.f.SystemPromptTemplate != nil {
		d.template = &templateSource{name: file + "#systemPromptTemplate", text: *d.f.SystemPromptTemplate}
	}
	if p := d.f.SystemPromptPath; p != "" {
		full := path.Join(dir, p)
		text, err := fs.ReadFile(fsys, full)
		if err != nil {
			return nil, fmt.Errorf("read system prompt template for %q at %s: %w", d.f.Name, full, err)
		}
		d.template = &templateSource{name: full, text: string(text)}
	}
	d.vars = maps.Clone(d.f.PromptVars)
	if d.vars == nil {
		d.vars = map[string]string{}
	}
	for _, k := range slices.Sorted(maps.Keys(d.f.PromptVarPaths)) {
		text, err := readVarFiles(fsys, dir, d.f.PromptVarPaths[k])
		if err != nil {
			return nil, fmt.Errorf("read prompt variable %q for %q at %s: %w", k, d.f.Name, file, err)
		}
		d.vars[k] = text
	}
	return d, nil
}

func (d *definition) validate() error {
	f := &d.f
	if strings.TrimSpace(f.Name) == "" {
		return errors.New("name must be a non-empty string")
	}
	if p := f.ModelPreference; p != nil && *p != string(ModelPrimary) && *p != string(ModelSecondary) {
		return fmt.Errorf("modelPreference must be %q or %q, not %q", ModelPrimary, ModelSecondary, *p)
	}
	for field, list := range map[string]*[]string{"tools": f.Tools, "disallowedTools": f.DisallowedTools} {
		if list != nil && slices.Contains(*list, "") {
			return fmt.Errorf("%s must list non-empty names", field)
		}
	}
	return nil
}

// readVarFiles reads the files a promptVarPaths entry names (one path or a
// list) and joins their trimmed contents with a blank line.
func readVarFiles(fsys fs.FS, dir string, v any) (string, error) {
	var paths []string
	switch v := v.(type) {
	case string:
		paths = []string{v}
	case []any:
		for _, e := range v {
			s, ok := e.(string)
			if !ok {
				return "", fmt.Errorf("promptVarPaths entries must be paths, not %T", e)
			}
			paths = append(paths, s)
		}
	default:
		return "", fmt.Errorf("promptVarPaths entries must be a path or a list of paths, not %T", v)
	}
	parts := make([]string, 0, len(paths))
	for _, p := range paths {
		data, err := fs.ReadFile(fsys, path.Join(dir, p))
		if err != nil {
			return "", err
		}
		parts = append(parts, strings.TrimSpace(string(data)))
	}
	return strings.Join(parts, "\n\n"), nil
}
