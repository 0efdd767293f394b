package compaction

import (
	"github.com/kimigo/kimigo/agent/history"
	"github.com/kimigo/kimigo/llm"
)

// shrinkRatios are the shares of the current input an overflow shrink
// keeps, by attempt (spec 03 §6.10; summaryRequest.shrink).
var shrinkRatios = [...]float64{0.7, 0.5, 0.35}

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
