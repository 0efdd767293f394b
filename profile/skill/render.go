package skill

import (
	"slices"
	"strconv"
	"strings"
)

// Render expands a skill's body for one activation (spec 05 §9.6).
// rawArgs is the argument text as typed; it is split into tokens by white
// space, quotes grouping (an empty pair is an empty token). Placeholders:
// $ARGUMENTS is the whole text, $ARGUMENTS[i] and $i token i, and $name
// the token at the position of a declared argument name. Substituted
// values have < and > escaped. When no placeholder was used and there are
// arguments, they are appended as "ARGUMENTS: …". ${KIMI_SKILL_DIR} and
// ${KIMI_SESSION_ID} become the skill's directory and the session id.
func Render(s Skill, rawArgs, sessionID string) string {
	tokens := Tokenize(rawArgs)
	token := func(i int) string {
		if i < len(tokens) {
			return escapeTags(tokens[i])
		}
		return ""
	}
	body, used := expandArguments(s.Body, s.Arguments, escapeTags(rawArgs), token)
	if !used && strings.TrimSpace(rawArgs) != "" {
		body += "\n\nARGUMENTS: " + escapeTags(rawArgs)
	}
	body = strings.ReplaceAll(body, "${KIMI_SKILL_DIR}", s.Dir)
	return strings.ReplaceAll(body, "${KIMI_SESSION_ID}", sessionID)
}

// expandArguments replaces the argument placeholders of body and reports
// whether there was any.
func expandArguments(body string, names []string, raw string, token func(int) string) (string, bool) {
	var b strings.Builder
	used := false
	for i := 0; i < len(body); {
		j := strings.IndexByte(body[i:], '$')
		if j < 0 {
			b.WriteString(body[i:])
			break
		}
		b.WriteString(body[i : i+j])
		i += j
		word := wordAt(body, i+1)
		after := i + 1 + len(word)
		switch {
		case word == "ARGUMENTS" && after < len(body) && body[after] == '[':
			if k := strings.IndexByte(body[after:], ']'); k > 1 && isDigits(body[after+1:after+k]) {
				n, _ := strconv.Atoi(body[after+1 : after+k])
				b.WriteString(token(n))
				i, used = after+k+1, true
				continue
			}
			b.WriteString(raw)
			i, used = after, true
		case word == "ARGUMENTS":
			b.WriteString(raw)
			i, used = after, true
		case word != "" && isDigits(word):
			n, _ := strconv.Atoi(word)
			b.WriteString(token(n))
			i, used = after, true
		case word != "" && slices.Contains(names, word) && (after >= len(body) || body[after] != '['):
			b.WriteString(token(slices.Index(names, word)))
			i, used = after, true
		default:
			b.WriteByte('$')
			i++
		}
	}
	return b.String(), used
}

// wordAt is the run of word characters ([A-Za-z0-9_]) starting at i.
func wordAt(s string, i int) string {
	j := i
	for j < len(s) && isWordByte(s[j]) {
		j++
	}
	return s[i:j]
}

func isWordByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func isDigits(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}

// escapeTags keeps argument text from opening or closing tags.
func escapeTags(s string) string {
	return strings.NewReplacer("<", "&lt;", ">", "&gt;").Replace(s)
}

// Tokenize splits argument text like a command line: white space
// separates tokens; single or double quotes group (and are removed); an
// empty pair of quotes is an empty token. An unclosed quote runs to the
// end.
func Tokenize(s string) []string {
	var out []string
	var cur strings.Builder
	inToken := false
	var quote rune
	for _, r := range s {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(r)
		case r == '"' || r == '\'':
			quote, inToken = r, true
		case r == ' ' || r == '\t' || r == '\n' || r == '\r':
			if inToken {
				out = append(out, cur.String())
				cur.Reset()
				inToken = false
			}
		default:
			cur.WriteRune(r)
			inToken = true
		}
	}
	if inToken {
		out = append(out, cur.String())
	}
	return out
}
