package compaction

import "github.com/kimigo/kimigo/agent/history"

// checkRace compares the history a summary was written from with the
// history it would replace (spec 03 §6.11). The snapshot must still be its
// prefix, message for message: same identity (Seq) and no growth in place.
// Anything after it must be real user input, which the rewrite keeps;
// an assistant step, a tool result or a droppable user-role message
// (notification, reminder, hook or shell output) would be lost, so the
// compaction yields and a later one starts from a clean boundary.
func checkRace(original, current []history.Message) error {
	if len(current) < len(original) {
		return errRaced
	}
	for i := range original {
		a, b := &original[i], &current[i]
		if a.Seq != b.Seq || len(a.Content) != len(b.Content) || len(a.ToolCalls) != len(b.ToolCalls) {
			return errRaced
		}
	}
	for _, m := range current[len(original):] {
		if !history.IsRealUserInput(m) {
			return errRaced
		}
	}
	return nil
}
