package config

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"slices"

	"github.com/kimigo/kimigo/osenv"
)

// CheckStatus is a file's verdict in `kimigo doctor` (spec 06 §1.9.1).
type CheckStatus string

// Verdicts.
const (
	CheckOK    CheckStatus = "OK"
	CheckSkip  CheckStatus = "SKIP"
	CheckError CheckStatus = "ERROR"
)

// CheckResult is the strict check of one config file.
type CheckResult struct {
	Path   string
	Status CheckStatus
	// Messages are the lines to print under the result line: the error,
	// or the warnings of a valid file.
	Messages []string
	// Issues are every schema issue and permission-rule fault, in file
	// order.
	Issues []Issue
}

// Check validates a config.toml strictly, as `kimigo doctor` does: every
// invalid section and rule is reported, nothing is salvaged and nothing is
// written. explicit says the user named the file: a missing explicit file
// is an ERROR, a missing default one a SKIP.
func Check(fsys osenv.FS, path string, explicit bool) CheckResult {
	if fsys == nil {
		fsys = osenv.LocalFS{}
	}
	r := CheckResult{Path: path, Status: CheckOK}
	if _, err := fsys.Stat(path); errors.Is(err, fs.ErrNotExist) {
		if explicit {
			return CheckResult{Path: path, Status: CheckError, Messages: []string{"File does not exist."}}
		}
		return CheckResult{Path: path, Status: CheckSkip,
			Messages: []string{"File does not exist; built-in defaults will apply."}}
	}
	p, src, err := readConfigFile(fsys, path)
	if err != nil {
		return CheckResult{Path: path, Status: CheckError, Messages: []string{err.Error()}}
	}
	cfg, d := decodeStrict(path, p, src)
	r.Issues = append(append(r.Issues, d.issues...), d.ruleIssues...)
	sortIssues(r.Issues, p.order)
	if len(r.Issues) > 0 {
		r.Status = CheckError
		r.Messages = []string{fmt.Sprintf("Invalid configuration in %s.", path), "Validation issues:"}
		for _, is := range r.Issues {
			r.Messages = append(r.Messages, "  "+is.String())
		}
		return r
	}
	if problems := runProblems(cfg); len(problems) > 0 {
		r.Status = CheckError
		r.Messages = append([]string{"Valid, but these providers cannot run:"}, problems...)
	}
	for _, w := range d.notes {
		r.Messages = append(r.Messages, w.Message)
	}
	for _, k := range d.unknown {
		r.Messages = append(r.Messages, fmt.Sprintf("Unknown key %s in %s", formatPath(k), path))
	}
	return r
}

// runProblems are the providers of a valid configuration that cannot
// serve a request: a type this kimigo does not speak, or no API key for
// an endpoint that is not on this machine (issue 15 item 10).
func runProblems(c *Config) []string {
	var out []string
	for _, name := range slices.Sorted(maps.Keys(c.Providers)) {
		p := c.Providers[name]
		switch p.Type {
		case ProviderKimi, ProviderOpenAI, ProviderAnthropic:
		default:
			out = append(out, fmt.Sprintf("  providers.%s: type %q is not supported by this kimigo; "+
				"use kimi, openai or anthropic (an OpenAI-compatible endpoint works as openai)", name, p.Type))
			continue
		}
		if p.APIKey != "" || p.OAuth != nil || hasKeyFallback(p) {
			continue
		}
		base := cmp.Or(p.BaseURL, p.Env[baseURLKey(p.Type)], defaultBaseURL(p.Type))
		if !isLoopback(base) {
			out = append(out, fmt.Sprintf("  providers.%s: no api_key for %s; requests will be refused. "+
				"Set api_key in the [providers.%s] table", name, base, name))
		}
	}
	return out
}

// hasKeyFallback reports an API key among a provider's env fallbacks.
func hasKeyFallback(p Provider) bool {
	for _, k := range apiKeyNames(p.Type) {
		if p.Env[k] != "" {
			return true
		}
	}
	return false
}
