package session

import (
	"strings"
	"unicode"

	"github.com/kimigo/kimigo/internal/runes"
	"github.com/kimigo/kimigo/llm"
)

// maxLastPromptRunes caps lastPrompt (spec 06 §4.3).
const maxLastPromptRunes = 4000

// The redactions of SanitizePrompt, applied in this order (spec 06 §4.3),
// compiled on first use.
var (
	pemPrivateKey = lazyRegexp(`(?s)-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----.*?-----END [A-Z0-9 ]*PRIVATE KEY-----`)
	bearerToken   = lazyRegexp(`(?i)\b(authorization)\s*:\s*bearer\s+[^\s"']+`)
	secretAssign  = lazyRegexp(`(?i)\b(api_key|api-key|apikey|token|secret|password|passwd|pwd)\s*[:=]\s*(?:"[^"]*"|'[^']*'|[^\s"',;]+)`)
	skKey         = lazyRegexp(`sk-[A-Za-z0-9_-]{12,}`)
	longWord      = lazyRegexp(`[A-Za-z0-9][A-Za-z0-9+/=_-]{39,}`)
)

// redacted replaces a secret in prompt metadata.
const redacted = "[redacted]"

// PromptText is the text of a prompt for its title and lastPrompt (spec 06
// §4.3): text parts that are not blank, and [image], [audio], [video] for
// media, joined with newlines; thinking is left out. A skill or plugin
// command passes its own "/<name> <args>" text to RecordPrompt instead.
func PromptText(parts []llm.ContentPart) string {
	var lines []string
	for _, p := range parts {
		switch p.Type {
		case llm.PartText:
			if strings.TrimSpace(p.Text) != "" {
				lines = append(lines, p.Text)
			}
		case llm.PartImageURL:
			lines = append(lines, "[image]")
		case llm.PartAudioURL:
			lines = append(lines, "[audio]")
		case llm.PartVideoURL:
			lines = append(lines, "[video]")
		}
	}
	return strings.Join(lines, "\n")
}

// SanitizePrompt removes secrets and layout from prompt text before it is
// stored as a title or lastPrompt (spec 06 §4.3): private-key blocks,
// bearer tokens, key=value secrets, sk- keys and any 40-character
// token-like word become [redacted]; control characters become spaces;
// runs of white space collapse to one space; the ends are trimmed.
func SanitizePrompt(text string) string {
	text = pemPrivateKey().ReplaceAllString(text, redacted)
	text = bearerToken().ReplaceAllString(text, "${1}: Bearer "+redacted)
	text = secretAssign().ReplaceAllString(text, "${1}="+redacted)
	text = skKey().ReplaceAllString(text, redacted)
	text = longWord().ReplaceAllString(text, redacted)
	text = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, text)
	return strings.Join(strings.Fields(text), " ")
}

// applyPrompt updates st for a user prompt with text: lastPrompt always,
// and the title while nobody named the session. It reports false, and
// changes nothing, when the sanitized text is empty.
func applyPrompt(st *State, text, now string) bool {
	clean := SanitizePrompt(text)
	if clean == "" {
		return false
	}
	if st.Turns > 0 || st.LastPrompt == "" {
		// Counted from the first prompt; a session from before the count
		// (a last prompt, no count) stays unknown rather than undercounted.
		st.Turns++
	}
	st.LastPrompt = runes.Prefix(clean, maxLastPromptRunes)
	if !st.IsCustomTitle && (strings.TrimSpace(st.Title) == "" || st.Title == DefaultTitle) {
		st.Title, st.IsCustomTitle = runes.Prefix(clean, maxTitleRunes), false
	}
	st.UpdatedAt = now
	return true
}
