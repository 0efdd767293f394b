package history

import (
	"crypto/sha256"
	"encoding/hex"

	"github.com/kimigo/kimigo/llm"
)

// RecentMediaKept is how many of the newest media parts the media-degraded
// view keeps (spec 02 §3.9).
const RecentMediaKept = 2

// Replacement texts of dropped media, by part type. They never change after
// package initialisation.
var (
	degradedText = map[llm.PartType]string{
		llm.PartImageURL: fill(mediaDegradedMD, "kind", "image", "verb", "view"),
		llm.PartAudioURL: fill(mediaDegradedMD, "kind", "audio", "verb", "hear"),
		llm.PartVideoURL: fill(mediaDegradedMD, "kind", "video", "verb", "view"),
	}
	strippedText = map[llm.PartType]string{
		llm.PartImageURL: fill(mediaStrippedMD, "kind", "image", "verb", "view"),
		llm.PartAudioURL: fill(mediaStrippedMD, "kind", "audio", "verb", "hear"),
		llm.PartVideoURL: fill(mediaStrippedMD, "kind", "video", "verb", "view"),
	}
)

// DegradeOlderMedia keeps the keep newest media parts of msgs and replaces
// every older one with a text part such as "[image omitted: …]" that asks
// the model to read the file again (spec 02 §3.9). Surrounding text stays.
// With nothing to replace it returns msgs itself; msgs is never modified
// and untouched messages are shared.
func DegradeOlderMedia(msgs []llm.Message, keep int) []llm.Message {
	total := 0
	for _, m := range msgs {
		for _, p := range m.Content {
			if p.IsMedia() {
				total++
			}
		}
	}
	n := max(0, total-max(keep, 0))
	if n == 0 {
		return msgs
	}
	return replaceMedia(msgs, func(llm.ContentPart) bool {
		if n == 0 {
			return false
		}
		n--
		return true
	}, degradedText)
}

// MediaSnapshot is the set of media a turn's first media-stripped resend
// saw (spec 02 §3.9). Later stripped projections of that turn replace only
// those; media produced afterwards passes through. The zero value strips
// nothing. It is immutable once made.
type MediaSnapshot struct {
	keys map[string]struct{}
}

// NewMediaSnapshot captures the identity of every media part of msgs.
func NewMediaSnapshot(msgs []llm.Message) MediaSnapshot {
	s := MediaSnapshot{keys: make(map[string]struct{})}
	for _, m := range msgs {
		for _, p := range m.Content {
			if p.IsMedia() {
				s.keys[mediaKey(p)] = struct{}{}
			}
		}
	}
	return s
}

// Strip replaces the media of msgs that the snapshot holds with a text
// part such as "[image omitted for provider compatibility; …]". With
// nothing to replace it returns msgs itself; msgs is never modified.
func (s MediaSnapshot) Strip(msgs []llm.Message) []llm.Message {
	if len(s.keys) == 0 {
		return msgs
	}
	return replaceMedia(msgs, func(p llm.ContentPart) bool {
		_, ok := s.keys[mediaKey(p)]
		return ok
	}, strippedText)
}

// mediaKey is the hex SHA-256 of type, id and URL separated by NUL bytes.
func mediaKey(p llm.ContentPart) string {
	h := sha256.New()
	h.Write([]byte(p.Type))
	h.Write([]byte{0})
	if p.Media != nil {
		h.Write([]byte(p.Media.ID))
		h.Write([]byte{0})
		h.Write([]byte(p.Media.URL))
	} else {
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// replaceMedia walks media parts in order and swaps those pick selects for
// the text of their type. Messages without a swap are shared; when nothing
// is swapped msgs itself is returned.
func replaceMedia(msgs []llm.Message, pick func(llm.ContentPart) bool, texts map[llm.PartType]string) []llm.Message {
	var out []llm.Message
	for i, m := range msgs {
		var parts []llm.ContentPart
		for j, p := range m.Content {
			if !p.IsMedia() || !pick(p) {
				if parts != nil {
					parts = append(parts, p)
				}
				continue
			}
			if parts == nil {
				parts = make([]llm.ContentPart, j, len(m.Content))
				copy(parts, m.Content[:j])
			}
			parts = append(parts, llm.TextPart(texts[p.Type]))
		}
		if parts == nil {
			if out != nil {
				out = append(out, m)
			}
			continue
		}
		if out == nil {
			out = make([]llm.Message, i, len(msgs))
			copy(out, msgs[:i])
		}
		m.Content = parts
		out = append(out, m)
	}
	if out == nil {
		return msgs
	}
	return out
}
