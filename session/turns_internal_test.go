package session

import "testing"

// The turns count starts with a session's first prompt; a session from
// before the count stays unknown (0) instead of being undercounted.
func TestApplyPromptCountsTurns(t *testing.T) {
	var fresh State
	for range 3 {
		applyPrompt(&fresh, "go on", "t")
	}
	old := State{LastPrompt: "an earlier prompt"}
	applyPrompt(&old, "go on", "t")
	if fresh.Turns != 3 || old.Turns != 0 {
		t.Errorf("turns = %d, %d; want 3, 0", fresh.Turns, old.Turns)
	}
}
