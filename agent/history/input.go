package history

import (
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/kimigo/kimigo/llm"
)

// The helpers below build the messages of spec 02 §2.2. They change
// nothing: the caller commits one context.append_message record per
// message, in order, and the memory applies each.

// Wrappers of host text in user messages.
const (
	reminderOpen   = "<system-reminder>\n"
	reminderClose  = "\n</system-reminder>"
	stdoutOpen     = "<local-command-stdout>\n"
	stdoutClose    = "\n</local-command-stdout>"
	bashInputOpen  = "<bash-input>\n"
	bashInputClose = "\n</bash-input>"
)

// imageCaption matches an image-compression caption inside prompt text; its
// group is the caption body (spec 02 §2.2). It is compiled on first use, not
// at process start.
var imageCaption = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`<system>(Image compressed to fit model limits:[\s\S]*?)</system>`)
})

// UserMessages returns the messages that appending a user message with
// parts and origin produces (AppendUserMessage): nothing for no parts; for
// a user-origin prompt, each image-compression caption in its text becomes
// a system reminder placed before it, text parts left blank by that are
// dropped, and the prompt itself is left out when no part remains. Other
// origins are taken as they are. parts is not modified.
func UserMessages(parts []llm.ContentPart, origin *Origin) []Message {
	if len(parts) == 0 {
		return nil
	}
	if !origin.Is(OriginUser) {
		return []Message{{Message: llm.Message{Role: llm.RoleUser, Content: parts}, Origin: origin}}
	}
	var out []Message
	kept := make([]llm.ContentPart, 0, len(parts))
	for _, p := range parts {
		if p.Type != llm.PartText || !strings.Contains(p.Text, "<system>") {
			kept = append(kept, p)
			continue
		}
		matches := imageCaption().FindAllStringSubmatch(p.Text, -1)
		if len(matches) == 0 {
			kept = append(kept, p)
			continue
		}
		for _, sm := range matches {
			out = append(out, SystemReminder(sm[1], InjectionOrigin(VariantImageCompression)))
		}
		if rest := imageCaption().ReplaceAllString(p.Text, ""); !IsBlank(rest) {
			kept = append(kept, llm.TextPart(rest))
		}
	}
	if len(kept) > 0 {
		out = append(out, Message{Message: llm.Message{Role: llm.RoleUser, Content: kept}, Origin: origin})
	}
	return out
}

// SystemReminder is a user message with the trimmed text wrapped in
// <system-reminder> (AppendSystemReminder).
func SystemReminder(text string, origin *Origin) Message {
	return userText(reminderOpen+Trim(text)+reminderClose, origin)
}

// LocalCommandStdout is the output of a local slash command for the model.
func LocalCommandStdout(text string) Message {
	return userText(stdoutOpen+Trim(text)+stdoutClose, InjectionOrigin(VariantLocalCommandStdout))
}

// BashInput is a shell command the user ran from the prompt.
func BashInput(cmd string) Message {
	return userText(bashInputOpen+EscapeXML(cmd)+bashInputClose, &Origin{Kind: OriginShellCommand, Phase: ShellInput})
}

// BashOutput is the output of such a command; isError marks a failure.
func BashOutput(stdout, stderr string, isError bool) Message {
	text := "<bash-stdout>" + EscapeXML(stdout) + "</bash-stdout><bash-stderr>" + EscapeXML(stderr) + "</bash-stderr>"
	return userText(text, &Origin{Kind: OriginShellCommand, Phase: ShellOutput, IsError: isError})
}

func userText(text string, origin *Origin) Message {
	return Message{Message: llm.UserMessage(text), Origin: origin}
}

// ImportContext builds the user message that imports content from source
// (spec 02 §2.2) and the token count to record after it. limit is the
// model's max_input_tokens when set, else max_context_tokens; 0 means no
// limit. The caller commits context.append_message with msg, then
// context.update_token_count with tokens. A blank content or source, or
// an import that would overflow the limit, is an *Error and nothing is to
// be committed.
func (m *Memory) ImportContext(content, source string, limit int) (msg Message, tokens int, err error) {
	if IsBlank(content) {
		return Message{}, 0, &Error{Code: CodeRequestInvalid, Reason: ReasonImportContentEmpty,
			Message: "Imported context cannot be empty"}
	}
	if IsBlank(source) {
		return Message{}, 0, &Error{Code: CodeRequestInvalid, Reason: ReasonImportSourceEmpty,
			Message: "Imported context source cannot be empty"}
	}
	msg = Message{
		Message: llm.Message{Role: llm.RoleUser, Content: []llm.ContentPart{
			llm.TextPart(fill(importContextMD, "source", EscapeXML(source))),
			llm.TextPart(`<imported_context source="` + EscapeXMLAttr(source) + "\">\n" + content + "\n</imported_context>"),
		}},
		Origin: UserOrigin(),
	}
	existing := m.TokenCountWithPending()
	estimate := llm.EstimateMessage(msg.Message)
	total := existing + estimate
	if limit > 0 && total > limit {
		return Message{}, 0, &Error{
			Code: CodeContextOverflow, Reason: ReasonImportContextOverflow,
			Message: fmt.Sprintf("Imported context is too large: about %d tokens on top of %d already in context makes %d, over the limit of %d",
				estimate, existing, total, limit),
			Details: map[string]any{"importTokens": estimate, "existingTokens": existing, "totalTokens": total, "limit": limit},
		}
	}
	return msg, total, nil
}
