package openai

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/kimigo/kimigo/llm"
)

// Text the openai flavour puts in place of tool-result media it cannot send
// in a tool message (spec 01 §3.3).
const (
	audioOmitted      = "(audio omitted: not supported by this provider)"
	videoOmitted      = "(video omitted: not supported by this provider)"
	seeAttachedMedia  = "(see attached media)"
	attachedMediaHead = "Attached media from tool result:"
)

// contentKind says how a wire message's content field is sent.
type contentKind uint8

const (
	contentAbsent contentKind = iota // no content key at all
	contentString                    // "content": "<text>"
	contentParts                     // "content": [ {type…}, … ]
)

// wireMessage is one converted message. Presence is explicit: an absent
// content key and an empty reasoning string are both meaningful on the wire.
type wireMessage struct {
	role       llm.Role
	kind       contentKind
	text       string
	parts      []llm.ContentPart // non-think parts, for contentParts
	name       string
	reasoning  *string // nil: no reasoning key
	toolCalls  []llm.ToolCall
	toolCallID string
	tools      []llm.Tool // Kimi message-level tool declaration
}

// split separates think parts (joined with no separator) from the rest.
func split(m llm.Message) (rest []llm.ContentPart, reasoning string, hasThink bool) {
	if !slices.ContainsFunc(m.Content, func(p llm.ContentPart) bool { return p.Type == llm.PartThink }) {
		return m.Content, "", false // read only: no copy per message per request
	}
	var b strings.Builder
	for _, p := range m.Content {
		if p.Type == llm.PartThink {
			b.WriteString(p.Think)
			hasThink = true
			continue
		}
		rest = append(rest, p)
	}
	return rest, b.String(), hasThink
}

// setContent applies the shared content rule: one text part is a string,
// anything else non-empty is a part array, nothing is an absent key.
func (w *wireMessage) setContent(rest []llm.ContentPart) {
	switch {
	case len(rest) == 1 && rest[0].Type == llm.PartText:
		w.kind, w.text = contentString, rest[0].Text
	case len(rest) > 0:
		w.kind, w.parts = contentParts, rest
	}
}

func blankTexts(parts []llm.ContentPart) bool {
	for _, p := range parts {
		if p.Type != llm.PartText || strings.TrimSpace(p.Text) != "" {
			return false
		}
	}
	return true
}

func checkToolMessage(i int, m llm.Message) error {
	if m.Role == llm.RoleTool && m.ToolCallID == "" {
		return invalidRequest("message %d: tool message without a tool call id", i)
	}
	return nil
}

// convertKimi converts history for Kimi (spec 01 §3.2.3). Tool-declaration
// messages are kept; with preserved thinking every assistant message carries
// the reasoning key.
func convertKimi(msgs []llm.Message, preserved bool) ([]wireMessage, error) {
	out := make([]wireMessage, 0, len(msgs))
	for i, m := range msgs {
		if err := checkToolMessage(i, m); err != nil {
			return nil, err
		}
		rest, reasoning, hasThink := split(m)
		w := wireMessage{role: m.Role, name: m.Name, toolCalls: m.ToolCalls,
			toolCallID: m.ToolCallID, tools: m.Tools}
		if !(m.Role == llm.RoleAssistant && len(m.ToolCalls) > 0 && blankTexts(rest)) {
			w.setContent(rest)
		}
		if hasThink || (preserved && m.Role == llm.RoleAssistant) {
			r := reasoning // only a message with a reasoning key puts one on the heap
			w.reasoning = &r
		}
		out = append(out, w)
	}
	return out, nil
}

// convertOpenAI converts history for plain Chat Completions (spec 01 §3.3):
// tool-declaration messages are skipped, and media in tool results is moved
// to one user message inserted after the run of tool messages.
func convertOpenAI(msgs []llm.Message, conv ToolMessageConversion) ([]wireMessage, error) {
	out := make([]wireMessage, 0, len(msgs))
	var images []llm.ContentPart
	flush := func() {
		if len(images) == 0 {
			return
		}
		parts := append([]llm.ContentPart{llm.TextPart(attachedMediaHead)}, images...)
		out = append(out, wireMessage{role: llm.RoleUser, kind: contentParts, parts: parts})
		images = nil
	}
	for i, m := range msgs {
		if m.IsToolDeclarationOnly() {
			continue
		}
		if err := checkToolMessage(i, m); err != nil {
			return nil, err
		}
		rest, reasoning, hasThink := split(m)
		w := wireMessage{role: m.Role, name: m.Name, toolCalls: m.ToolCalls, toolCallID: m.ToolCallID}
		if m.Role == llm.RoleTool {
			imgs := w.setToolContent(rest, conv)
			images = append(images, imgs...)
		} else {
			flush()
			w.setContent(rest)
		}
		if hasThink {
			r := reasoning // only a message with a reasoning key puts one on the heap
			w.reasoning = &r
		}
		out = append(out, w)
	}
	flush()
	return out, nil
}

// setToolContent sets a tool result's content for the openai flavour and
// returns the images to re-attach in a user message.
func (w *wireMessage) setToolContent(rest []llm.ContentPart, conv ToolMessageConversion) []llm.ContentPart {
	var one [1]string
	texts := one[:0] // a tool result is mostly one text part: no allocation for it
	var images []llm.ContentPart
	audio, video, media := false, false, false
	for _, p := range rest {
		switch p.Type {
		case llm.PartText:
			texts = append(texts, p.Text)
		case llm.PartImageURL:
			images = append(images, p)
			media = true
		case llm.PartAudioURL:
			audio, media = true, true
		case llm.PartVideoURL:
			video, media = true, true
		}
	}
	switch {
	case media:
		var lines []string
		if t := strings.Join(texts, ""); t != "" {
			lines = append(lines, t)
		}
		if audio {
			lines = append(lines, audioOmitted)
		}
		if video {
			lines = append(lines, videoOmitted)
		}
		text := strings.Join(lines, "\n")
		if text == "" {
			text = seeAttachedMedia
		}
		w.kind, w.text = contentString, text
	case conv == ToolMessageExtractText && len(texts) > 0:
		w.kind, w.text = contentString, strings.Join(texts, "")
	default:
		w.setContent(rest)
	}
	return images
}

// encode writes the message. Kimi sends media ids, tool-call extras and
// message-level tools; the openai flavour sends none of them.
func (w *wireMessage) encode(out *writer, e *encoder) error {
	out.beginObject()
	out.strField("role", string(w.role))
	switch w.kind {
	case contentString:
		out.strField("content", w.text)
	case contentParts:
		out.key("content")
		out.beginArray()
		for _, p := range w.parts {
			encodePart(out, p, e.kimi)
		}
		out.endArray()
	}
	if w.name != "" {
		out.strField("name", w.name)
	}
	if w.reasoning != nil {
		out.strField(string(e.reasoningKey), *w.reasoning)
	}
	if len(w.toolCalls) > 0 {
		out.key("tool_calls")
		out.beginArray()
		for _, tc := range w.toolCalls {
			if err := encodeToolCall(out, tc, e.kimi); err != nil {
				return err
			}
		}
		out.endArray()
	}
	if w.toolCallID != "" {
		out.strField("tool_call_id", w.toolCallID)
	}
	if len(w.tools) > 0 && e.kimi {
		out.key("tools")
		if err := e.encodeTools(out, w.tools); err != nil {
			return err
		}
	}
	out.endObject()
	return nil
}

func encodePart(out *writer, p llm.ContentPart, withID bool) {
	out.beginObject()
	out.strField("type", string(p.Type))
	switch p.Type {
	case llm.PartText:
		out.strField("text", p.Text)
	case llm.PartImageURL, llm.PartAudioURL, llm.PartVideoURL:
		m := llm.MediaURL{}
		if p.Media != nil {
			m = *p.Media
		}
		out.key(string(p.Type))
		out.beginObject()
		out.strField("url", m.URL)
		if withID && m.ID != "" {
			out.strField("id", m.ID)
		}
		out.endObject()
	}
	out.endObject()
}

func encodeToolCall(out *writer, tc llm.ToolCall, withExtras bool) error {
	args := tc.Arguments
	if args == "" {
		args = "{}"
	}
	out.beginObject()
	out.strField("type", "function")
	out.strField("id", tc.ID)
	out.key("function")
	out.beginObject()
	out.strField("name", tc.Name)
	out.strField("arguments", args)
	out.endObject()
	if withExtras && len(tc.Extras) > 0 {
		if !json.Valid(tc.Extras) {
			return invalidRequest("tool call %s: extras are not valid JSON", tc.ID)
		}
		out.rawField("extras", tc.Extras)
	}
	out.endObject()
	return nil
}

// invalidRequest is a request that could not be built; it is never sent
// and not retryable.
func invalidRequest(format string, args ...any) error {
	return &llm.Error{Kind: llm.KindInvalidRequest, Message: "build request: " + fmt.Sprintf(format, args...)}
}

// sameMessage reports whether a and b are equal field by field, as
// reflect.DeepEqual would (a nil slice or pointer differs from an empty or
// a set one), so two messages it calls the same encode the same. Repeated
// messages share their strings and schemas, so this costs little; it
// replaces reflect.DeepEqual in wire.Sizes, which was the larger part of
// measuring a long conversation's request.
func sameMessage(a, b *wireMessage) bool {
	if a.role != b.role || a.kind != b.kind || a.text != b.text || a.name != b.name || a.toolCallID != b.toolCallID {
		return false
	}
	if (a.reasoning == nil) != (b.reasoning == nil) || a.reasoning != nil && *a.reasoning != *b.reasoning {
		return false
	}
	return sameSlice(a.parts, b.parts, samePart) && sameSlice(a.toolCalls, b.toolCalls, sameCall) &&
		sameSlice(a.tools, b.tools, sameTool)
}

// sameSlice is slices.EqualFunc that, like reflect.DeepEqual, tells a nil
// slice from an empty one.
func sameSlice[T any](a, b []T, eq func(T, T) bool) bool {
	return (a == nil) == (b == nil) && slices.EqualFunc(a, b, eq)
}

func samePart(a, b llm.ContentPart) bool {
	if a.Type != b.Type || a.Text != b.Text || a.Think != b.Think || a.Encrypted != b.Encrypted {
		return false
	}
	if a.Media == nil || b.Media == nil {
		return a.Media == b.Media
	}
	return *a.Media == *b.Media
}

func sameCall(a, b llm.ToolCall) bool {
	return a.ID == b.ID && a.Name == b.Name && a.Arguments == b.Arguments && sameBytes(a.Extras, b.Extras)
}

// sameBytes is bytes.Equal that, like reflect.DeepEqual, tells nil from
// empty.
func sameBytes(a, b []byte) bool { return (a == nil) == (b == nil) && bytes.Equal(a, b) }
