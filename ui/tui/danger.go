package tui

import (
	"regexp"
	"sync"
)

// dangers label shell commands an approval panel warns about (spec 06
// §5.5), in order: the first match names the danger. They compile on
// first use, not at every start.
var dangers = sync.OnceValue(func() []danger {
	return []danger{
		{regexp.MustCompile(`(?i)\brm\b[^|;&\n]*\s(-[a-z]*[rf][a-z]*\b|--recursive\b|--force\b)`), "recursive delete"},
		{regexp.MustCompile(`(?i)\bsudo\b`), "sudo"},
		{regexp.MustCompile(`(?i)\b(curl|wget)\b[^|\n]*\|\s*(sudo\s+)?(sh|bash|zsh)\b`), "pipe to shell"},
		{regexp.MustCompile(`(?i)\bdd\b[^|;&\n]*\bof=`), "dd write"},
		{regexp.MustCompile(`(?i)\bmkfs(\.\w+)?\b`), "mkfs"},
		{regexp.MustCompile(`(?i)>\s*/dev/(sd|nvme|disk|hd)`), "write to raw device"},
		{regexp.MustCompile(`(?i)\bchmod\s+(-r\s+)?777\b`), "chmod 777"},
		{regexp.MustCompile(`:\(\)\s*\{\s*:\s*\|\s*:\s*&\s*\}\s*;\s*:`), "fork bomb"},
	}
})

type danger struct {
	re    *regexp.Regexp
	label string
}

// Danger is the label of the first danger command matches, "" for none.
func Danger(command string) string {
	for _, d := range dangers() {
		if d.re.MatchString(command) {
			return d.label
		}
	}
	return ""
}
