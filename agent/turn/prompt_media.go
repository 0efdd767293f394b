package turn

import (
	"net/url"
	"strings"

	"github.com/kimigo/kimigo/llm"
)

// videoTagEscaper escapes a path for the video tag's attribute.
var videoTagEscaper = strings.NewReplacer("&", "&amp;", `"`, "&quot;", "<", "&lt;", ">", "&gt;")

// DegradePromptVideos replaces every video part of a prompt whose URL is a
// local file:// reference with a text tag <video path="…"></video> that the
// model opens with ReadMediaFile (spec 03 §2.6). Such a URL must never reach
// a provider or the records. Other parts are kept; input is not modified,
// and it is returned itself when nothing changes.
//
// kimigo does not upload prompt videos yet, so this is also what the turn
// does for a model with video input.
func DegradePromptVideos(input []llm.ContentPart) []llm.ContentPart {
	var out []llm.ContentPart
	for i, p := range input {
		if p.Type != llm.PartVideoURL || p.Media == nil || !strings.HasPrefix(p.Media.URL, "file:") {
			continue
		}
		if out == nil {
			out = append([]llm.ContentPart(nil), input...)
		}
		out[i] = llm.TextPart(`<video path="` + videoTagEscaper.Replace(localVideoPath(p.Media.URL)) + `"></video>`)
	}
	if out == nil {
		return input
	}
	return out
}

// localVideoPath turns a file:// URL into a path; a malformed URL is kept
// as it is.
func localVideoPath(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Path == "" {
		return raw
	}
	return u.Path
}
