package replay

// LimitByTurns keeps the cards of the last max user turns (spec 02 §6.13):
// nil keeps everything, a max of 0 or less keeps nothing, and otherwise the
// result starts at the max-th user-turn start from the end. Cards before
// the first user turn go with the oldest turn only when every turn is kept.
// cards is not modified; the result may share its array.
func LimitByTurns(cards []Card, max *int) []Card {
	if max == nil {
		return cards
	}
	if *max <= 0 {
		return nil
	}
	var starts []int
	for i, c := range cards {
		if c.StartsUserTurn() {
			starts = append(starts, i)
		}
	}
	if len(starts) <= *max {
		return cards
	}
	return cards[starts[len(starts)-*max]:]
}
