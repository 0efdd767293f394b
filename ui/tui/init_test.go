package tui

import (
	"strings"
	"testing"
)

// /init starts a turn that asks the model to write AGENTS.md, shown as
// /init; it is refused while a turn runs.
func TestInitCommand(t *testing.T) {
	r := newRig(t)
	r.do("/init")
	calls := r.sess.Calls()
	if len(calls) != 1 || !strings.HasPrefix(calls[0], `prompt "Explore this project and write AGENTS.md at its root`) {
		t.Errorf("calls %q; want the init prompt", calls)
	}
	s := r.screen()
	r.contains(s, "Analysing the codebase to write AGENTS.md.")
	r.contains(s, "✨ /init")
	r.lacks(s, "Coding agents read this file")
	r.do("/init")
	r.contains(r.screen(), "Cannot /init while streaming")
	r.expectCalls()
}
