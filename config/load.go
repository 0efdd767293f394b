package config

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/kimigo/kimigo/osenv"
)

// LoadOptions say which file to load and with which environment.
type LoadOptions struct {
	// FS reads the file; nil means the local file system.
	FS osenv.FS
	// Home is the data root (see HomeDir). Path defaults to its config.toml.
	Home string
	// Path, when set, is the config file to read instead.
	Path string
	// Env is the process environment (see EnvFromList).
	Env Env
	// Reload marks a load after startup (session creation, /reload): an
	// error in the KIMI_MODEL_* variables is then a warning that keeps the
	// previous configuration instead of a fatal error (spec 06 §2.2 step 6).
	Reload bool
	// Logger receives debug lines; nil discards them.
	Logger *slog.Logger
}

// Load runs the lenient load pipeline of spec 06 §2.2: read, parse, check,
// salvage (drop invalid entries or sections, with one warning), then lay
// the KIMI_MODEL_* synthetic model and the environment overrides over the
// result. A *Error is a file error the caller must report (startup aborts);
// warnings are for the user. The file is only read, never written.
func Load(opts LoadOptions) (*Config, []Warning, error) {
	fsys, path := opts.fs(), opts.path()
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	raw, src, err := readConfigFile(fsys, path)
	if err != nil {
		return nil, nil, err
	}
	cfg, warnings, err := salvageLoad(path, raw, src)
	if err != nil {
		return nil, nil, err
	}
	env, err := readEnvSettings(opts.Env)
	if err == nil {
		err = applyEnvModel(cfg, opts.Env)
	}
	if err != nil {
		if !opts.Reload {
			return nil, nil, err
		}
		warnings = append(warnings, Warning{Salvage: true,
			Message: "Ignoring KIMI_MODEL_* environment overrides: " + err.Error()})
	}
	cfg.Env = env
	applyEnvOverrides(cfg, opts.Env)
	log.Debug("config loaded", "path", path, "providers", len(cfg.Providers), "models", len(cfg.Models),
		"warnings", len(warnings), "env_model", cfg.EnvModel)
	return cfg, warnings, nil
}

// Reload loads the configuration again for a new session or /reload. When
// the file has errors, or salvage dropped part of it, the previous
// configuration is kept and a warning says so (spec 06 §2.2).
func Reload(prev *Config, opts LoadOptions) (*Config, []Warning) {
	opts.Reload = true
	cfg, warnings, err := Load(opts)
	keep := err != nil || slices.ContainsFunc(warnings, func(w Warning) bool { return w.Salvage })
	if !keep {
		return cfg, warnings
	}
	if err != nil {
		warnings = append(warnings, Warning{File: opts.path(), Message: err.Error(), Salvage: true})
	}
	return prev, append(warnings, Warning{File: opts.path(),
		Message: "config.toml has errors; keeping the previously loaded configuration."})
}

func (o LoadOptions) fs() osenv.FS {
	if o.FS == nil {
		return osenv.LocalFS{}
	}
	return o.FS
}

func (o LoadOptions) path() string {
	if o.Path != "" {
		return o.Path
	}
	return ConfigFile(o.Home)
}

// parsed is a TOML document and the first-appearance order of its keys.
type parsed struct {
	raw   map[string]any
	order map[string]int
}

// readConfigFile reads and parses path. A missing or blank file is an
// empty document.
func readConfigFile(fsys osenv.FS, path string) (parsed, []byte, error) {
	data, err := fsys.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return parsed{raw: map[string]any{}}, nil, nil
	case err != nil:
		return parsed{}, nil, &Error{Code: CodeInvalid, File: path, Err: err,
			Message: fmt.Sprintf("Failed to read %s: %v", path, err)}
	}
	p, err := parseTOML(path, data)
	return p, data, err
}

// parseTOML parses data; a syntax error names the file, line and column.
func parseTOML(path string, data []byte) (parsed, error) {
	if strings.TrimSpace(string(data)) == "" {
		return parsed{raw: map[string]any{}}, nil
	}
	raw := map[string]any{}
	md, err := toml.Decode(string(data), &raw)
	if err != nil {
		return parsed{}, &Error{Code: CodeInvalid, File: path, Err: err,
			Message: fmt.Sprintf("Invalid TOML in %s: %s", path, parseMessage(err))}
	}
	order := map[string]int{}
	for i, k := range md.Keys() {
		key := strings.Join(k, "\x00")
		if _, ok := order[key]; !ok {
			order[key] = i
		}
	}
	return parsed{raw: raw, order: order}, nil
}

// parseMessage is the parser's first message line with its position.
func parseMessage(err error) string {
	var pe toml.ParseError
	if errors.As(err, &pe) {
		msg, _, _ := strings.Cut(pe.Message, "\n")
		return fmt.Sprintf("%s (line %d, column %d)", msg, pe.Position.Line, max(pe.Position.Col, 1))
	}
	msg, _, _ := strings.Cut(err.Error(), "\n")
	return msg
}

// decodeStrict checks a document without salvage.
func decodeStrict(path string, p parsed, src []byte) (*Config, *decoder) {
	d := &decoder{file: path, src: src}
	cfg := decodeConfig(d, p.raw)
	sortIssues(d.issues, p.order)
	sortIssues(d.ruleIssues, p.order)
	sortPaths(d.unknown, p.order)
	return cfg, d
}

// salvageLoad decodes p, dropping what is invalid until the rest is valid.
func salvageLoad(path string, p parsed, src []byte) (*Config, []Warning, error) {
	work := parsed{raw: deepCopy(p.raw), order: p.order}
	var dropped []string
	for {
		cfg, d := decodeStrict(path, work, src)
		if len(d.issues) == 0 {
			var warnings []Warning
			if len(dropped) > 0 {
				warnings = append(warnings, Warning{File: path, Salvage: true, Message: fmt.Sprintf(
					"Ignored invalid config in %s: %s. Run `kimigo doctor` for details.", path, strings.Join(dropped, ", "))})
			}
			warnings = append(warnings, d.notes...)
			for _, k := range d.unknown {
				warnings = append(warnings, Warning{File: path,
					Message: fmt.Sprintf("Unknown key %s in %s", formatPath(k), path)})
			}
			return cfg, warnings, nil
		}
		round := dropInvalid(work.raw, d.issues)
		if len(round) == 0 {
			return nil, nil, &Error{Code: CodeInvalid, File: path, Issues: d.issues,
				Message: fmt.Sprintf("Invalid configuration in %s: %s", path, d.issues[0])}
		}
		dropped = append(dropped, round...)
	}
}

// dropInvalid removes, for each issue, the [providers]/[models] entry it
// names, or else its whole top-level section, and returns what went. An
// entry with several issues goes once and never takes its section along.
func dropInvalid(raw map[string]any, issues []Issue) []string {
	var gone []string
	for _, is := range issues {
		if len(is.Path) == 0 {
			continue
		}
		top := is.Path[0]
		if (top == "providers" || top == "models") && len(is.Path) >= 2 {
			if m, ok := raw[top].(map[string]any); ok {
				if _, ok := m[is.Path[1]]; ok {
					delete(m, is.Path[1])
					gone = append(gone, formatPath(is.Path[:2]))
				}
				continue
			}
		}
		if _, ok := raw[top]; ok {
			delete(raw, top)
			gone = append(gone, formatPath(is.Path[:1]))
		}
	}
	return gone
}

// sortIssues orders issues by where their keys first appear in the file,
// so messages list problems top to bottom.
func sortIssues(issues []Issue, order map[string]int) {
	slices.SortStableFunc(issues, func(a, b Issue) int { return filePos(a.Path, order) - filePos(b.Path, order) })
}

// sortPaths orders key paths the same way.
func sortPaths(paths [][]string, order map[string]int) {
	slices.SortStableFunc(paths, func(a, b []string) int { return filePos(a, order) - filePos(b, order) })
}

// filePos is the first-appearance index of the longest known prefix of path.
func filePos(path []string, order map[string]int) int {
	var keys []string
	for _, p := range path {
		if !strings.HasPrefix(p, "[") {
			keys = append(keys, p)
		}
	}
	for n := len(keys); n > 0; n-- {
		if i, ok := order[strings.Join(keys[:n], "\x00")]; ok {
			return i
		}
	}
	return len(order)
}

// deepCopy copies the tables and arrays of a parsed document.
func deepCopy(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = copyValue(v)
	}
	return out
}

func copyValue(v any) any {
	switch x := v.(type) {
	case map[string]any:
		return deepCopy(x)
	case []map[string]any:
		out := make([]map[string]any, len(x))
		for i, m := range x {
			out[i] = deepCopy(m)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = copyValue(e)
		}
		return out
	}
	return v
}
