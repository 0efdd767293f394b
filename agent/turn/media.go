package turn

import "github.com/kimigo/kimigo/llm"

// Markers that replace media a model cannot take (spec 03 §2.4).
const (
	imageOmitted = "[image omitted: current model has no image input]"
	videoOmitted = "[video omitted: current model has no video input]"
	audioOmitted = "[audio omitted: current model has no audio input]"
)

// DowngradeUnsupportedMedia replaces, in an outgoing copy, every image,
// video or audio part the model cannot accept with a text marker. An absent
// or unknown capability sends everything unchanged. Messages without a
// replaced part are shared with the input; msgs is never modified.
func DowngradeUnsupportedMedia(msgs []llm.Message, c *llm.Capability) []llm.Message {
	if c == nil || c.IsUnknown() || (c.ImageIn && c.VideoIn && c.AudioIn) {
		return msgs
	}
	marker := func(p llm.ContentPart) (string, bool) {
		switch {
		case p.Type == llm.PartImageURL && !c.ImageIn:
			return imageOmitted, true
		case p.Type == llm.PartVideoURL && !c.VideoIn:
			return videoOmitted, true
		case p.Type == llm.PartAudioURL && !c.AudioIn:
			return audioOmitted, true
		}
		return "", false
	}
	var out []llm.Message
	for i, m := range msgs {
		var content []llm.ContentPart
		for j, p := range m.Content {
			text, drop := marker(p)
			if !drop {
				continue
			}
			if content == nil {
				content = append([]llm.ContentPart(nil), m.Content...)
			}
			content[j] = llm.TextPart(text)
		}
		if content == nil {
			continue
		}
		if out == nil {
			out = append([]llm.Message(nil), msgs...)
		}
		out[i].Content = content
	}
	if out == nil {
		return msgs
	}
	return out
}
