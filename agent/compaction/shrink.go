package compaction

import (
	"math"

	"github.com/kimigo/kimigo/agent/history"
	"github.com/kimigo/kimigo/llm"
)

// shrinkRatios are the shares of the current input an overflow shrink
// keeps, by attempt (spec 03 §6.10).
var shrinkRatios = [...]float64{0.7, 0.5, 0.35}

// shrinkSuffix keeps the newest messages of input whose estimates fit the
// attempt's share of its estimate, always drops at least the oldest one,
// and never starts with a tool result. Each shrink is relative to the
// input it is given. When even the newest message is over the budget the
// result is empty.
func shrinkSuffix(input []history.Message, attempt int) []history.Message {
	ratio := shrinkRatios[min(attempt-1, len(shrinkRatios)-1)]
	budget := int(math.Floor(float64(estimateHistory(input)) * ratio))
	start, total := len(input), 0
	for start > 0 {
		n := llm.EstimateMessage(input[start-1].Message)
		if total+n > budget {
			break
		}
		total += n
		start--
	}
	if start == 0 && len(input) > 0 {
		start = 1
	}
	return dropLeadingTools(input[start:])
}

// dropOldest drops the oldest message and then any tool results it leaves
// at the front.
func dropOldest(input []history.Message) []history.Message {
	if len(input) == 0 {
		return input
	}
	return dropLeadingTools(input[1:])
}

// dropLeadingTools removes tool results at the front, whose calls are gone.
func dropLeadingTools(input []history.Message) []history.Message {
	for len(input) > 0 && input[0].Role == llm.RoleTool {
		input = input[1:]
	}
	return input
}

// mediaMarkers replace media in a stripped summariser input.
var mediaMarkers = map[llm.PartType]string{
	llm.PartImageURL: "[image]",
	llm.PartAudioURL: "[audio]",
	llm.PartVideoURL: "[video]",
}

// stripMedia returns input with every image, audio and video part
// replaced by its text marker, and whether anything changed. Changed
// messages are copies; input and its messages are never modified.
func stripMedia(input []history.Message) ([]history.Message, bool) {
	var out []history.Message
	for i, m := range input {
		if !hasMedia(m.Content) {
			if out != nil {
				out = append(out, m)
			}
			continue
		}
		if out == nil {
			out = append(make([]history.Message, 0, len(input)), input[:i]...)
		}
		parts := make([]llm.ContentPart, len(m.Content))
		for j, p := range m.Content {
			if marker, ok := mediaMarkers[p.Type]; ok {
				p = llm.TextPart(marker)
			}
			parts[j] = p
		}
		m.Content = parts
		out = append(out, m)
	}
	if out == nil {
		return input, false
	}
	return out, true
}

func hasMedia(parts []llm.ContentPart) bool {
	for _, p := range parts {
		if p.IsMedia() {
			return true
		}
	}
	return false
}

// estimateHistory estimates stored messages as the provider sees them.
func estimateHistory(h []history.Message) int {
	n := 0
	for i := range h {
		n += llm.EstimateMessage(h[i].Message)
	}
	return n
}
