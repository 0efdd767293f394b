package history

import (
	_ "embed"
	"strings"
)

// Model-facing wordings live in text/*.md (STYLE §10); each file is one
// text, and its trailing newline is not part of it. Placeholders in braces
// are filled by the functions below. These values never change after
// package initialisation.
var (
	//go:embed text/interrupted.md
	interruptedMD string
	//go:embed text/result_unavailable.md
	resultUnavailableMD string
	//go:embed text/media_degraded.md
	mediaDegradedMD string
	//go:embed text/media_stripped.md
	mediaStrippedMD string
	//go:embed text/elision.md
	elisionMD string
	//go:embed text/import_context.md
	importContextMD string
	//go:embed text/tools_changed.md
	toolsChangedMD string
)

var (
	interruptedText       = oneText(interruptedMD)
	resultUnavailableText = oneText(resultUnavailableMD)
)

// InterruptedOnResumeText closes a call whose result was never recorded
// because the process stopped (spec 02 §2.6). It contains the required
// phrase "Tool execution was interrupted before its result was recorded"
// and says the outcome is unknown: the call may not have run, or may have
// run in part or in full (cmd/kimigo crash_test.go).
func InterruptedOnResumeText() string { return interruptedText }

// ResultUnavailableText is the content of the synthetic result projection
// places after a call whose result is missing (spec 02 §3.4). It contains
// the required phrase "Tool result is not available in the current
// context" and is byte-identical on every run, because prompt caches
// depend on it.
func ResultUnavailableText() string { return resultUnavailableText }

func oneText(md string) string { return strings.TrimRight(md, "\n") }

// fill replaces each {key} of tmpl with its value.
func fill(tmpl string, kv ...string) string {
	return strings.NewReplacer(braced(kv)...).Replace(oneText(tmpl))
}

func braced(kv []string) []string {
	out := make([]string, len(kv))
	for i := range kv {
		out[i] = kv[i]
		if i%2 == 0 {
			out[i] = "{" + kv[i] + "}"
		}
	}
	return out
}
