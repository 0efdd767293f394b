package config

import (
	"errors"
	"fmt"
	"io/fs"

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
	_, d := decodeStrict(path, p, src)
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
	for _, w := range d.notes {
		r.Messages = append(r.Messages, w.Message)
	}
	for _, k := range d.unknown {
		r.Messages = append(r.Messages, fmt.Sprintf("Unknown key %s in %s", formatPath(k), path))
	}
	return r
}
