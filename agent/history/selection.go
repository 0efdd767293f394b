package history

import (
	"unicode/utf8"

	"github.com/kimigo/kimigo/llm"
)

// selectHeadTail keeps every user message when they fit the budget;
// otherwise the newest fill the tail budget (the first that does not fit
// keeps the end of its text and hands its beginning to the head), the
// oldest fill the head budget (the first that does not fit keeps the
// beginning of its text), and the rest is elided (spec 02 §5 step 2).
func selectHeadTail(pool []Message) selection {
	total := estimateHistory(pool)
	if total <= CompactUserMessageMaxTokens {
		return selection{tail: pool}
	}
	budget := CompactUserMessageMaxTokens - CompactUserMessageHeadTokens
	boundary := len(pool)
	var tailRev []Message
	var headExtra []Message
	for i := len(pool) - 1; i >= 0; i-- {
		boundary = i
		if e := llm.EstimateMessage(pool[i].Message); e <= budget {
			tailRev = append(tailRev, pool[i])
			budget -= e
			continue
		}
		text := messageText(pool[i])
		keep := truncateFromEnd(text, budget)
		if keep != "" {
			tailRev = append(tailRev, withText(pool[i], keep))
		}
		if cut := text[:len(text)-len(keep)]; cut != "" {
			headExtra = append(headExtra, withText(pool[i], cut))
		}
		break
	}
	tail := make([]Message, len(tailRev))
	for i, msg := range tailRev {
		tail[len(tailRev)-1-i] = msg
	}
	candidates := append(pool[:boundary:boundary], headExtra...)
	head := fillFromStart(candidates, CompactUserMessageHeadTokens)
	kept := estimateHistory(head) + estimateHistory(tail)
	return selection{head: head, tail: tail, elided: true, omitted: max(0, total-kept)}
}

// selectTailOnly is the selection of records written before the head and
// tail split: from the newest, whole messages while they fit; the first
// that does not fit keeps the beginning of its text. Nothing is elided.
func selectTailOnly(pool []Message) selection {
	budget := CompactUserMessageMaxTokens
	start := len(pool)
	var first []Message
	for i := len(pool) - 1; i >= 0; i-- {
		if e := llm.EstimateMessage(pool[i].Message); e <= budget {
			budget -= e
			start = i
			continue
		}
		if keep := truncateFromStart(messageText(pool[i]), budget); keep != "" {
			first = append(first, withText(pool[i], keep))
		}
		break
	}
	tail := make([]Message, 0, len(first)+len(pool)-start)
	return selection{tail: append(append(tail, first...), pool[start:]...)}
}

// fillFromStart keeps whole messages from the oldest while they fit; the
// first that does not fit keeps the beginning of its text.
func fillFromStart(msgs []Message, budget int) []Message {
	var out []Message
	for _, msg := range msgs {
		if e := llm.EstimateMessage(msg.Message); e <= budget {
			out = append(out, msg)
			budget -= e
			continue
		}
		if keep := truncateFromStart(messageText(msg), budget); keep != "" {
			out = append(out, withText(msg, keep))
		}
		break
	}
	return out
}

// messageText is the text of msg's text parts, one per line.
func messageText(msg Message) string { return llm.ExtractText(msg.Message, "\n") }

// withText is msg reduced to one text part: the same origin, no media, no
// calls, and a new identity.
func withText(msg Message, text string) Message {
	out := msg
	out.Content = []llm.ContentPart{llm.TextPart(text)}
	out.ToolCalls = nil
	out.Seq = 0
	return out
}

// truncateFromStart returns the longest prefix of s whose estimate fits
// budget, walking code points with the estimation heuristic.
func truncateFromStart(s string, budget int) string {
	ascii, other, end := 0, 0, 0
	for end < len(s) {
		r, size := utf8.DecodeRuneInString(s[end:])
		a, o := ascii, other
		if r < utf8.RuneSelf && size == 1 {
			a++
		} else {
			o++
		}
		if (a+3)/4+o > budget {
			break
		}
		ascii, other, end = a, o, end+size
	}
	return s[:end]
}

// truncateFromEnd returns the longest suffix of s whose estimate fits
// budget.
func truncateFromEnd(s string, budget int) string {
	ascii, other, start := 0, 0, len(s)
	for start > 0 {
		r, size := utf8.DecodeLastRuneInString(s[:start])
		a, o := ascii, other
		if r < utf8.RuneSelf && size == 1 {
			a++
		} else {
			o++
		}
		if (a+3)/4+o > budget {
			break
		}
		ascii, other, start = a, o, start-size
	}
	return s[start:]
}
