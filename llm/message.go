package llm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/kimigo/kimigo/llm/plainjson"
)

// Role is who wrote a message.
type Role string

// The four roles of a conversation.
const (
	RoleSystem    Role = "system"
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool"
)

// PartType names the kind of a content part, exactly as persisted.
type PartType string

// Content part types.
const (
	PartText     PartType = "text"
	PartThink    PartType = "think"
	PartImageURL PartType = "image_url"
	PartAudioURL PartType = "audio_url"
	PartVideoURL PartType = "video_url"
)

// MediaURL locates an image, audio or video: an http(s) URL, a data URL, or a
// provider file reference such as Kimi's ms://<file-id>.
type MediaURL struct {
	URL string `json:"url"`
	ID  string `json:"id,omitempty"`
}

// ContentPart is one ordered piece of a message. It is a tagged struct rather
// than an interface so that stream merging can work in place; only the fields
// that belong to Type are meaningful.
type ContentPart struct {
	Type PartType
	// Text is the visible text of a text part.
	Text string
	// Think is the reasoning text of a think part.
	Think string
	// Encrypted is the provider signature or opaque blob of a think part
	// (Anthropic signature or redacted data). Empty means unsigned.
	Encrypted string
	// Media is set for image_url, audio_url and video_url parts.
	Media *MediaURL
}

// TextPart returns a text part.
func TextPart(s string) ContentPart { return ContentPart{Type: PartText, Text: s} }

// ThinkPart returns a think part; encrypted may be empty.
func ThinkPart(think, encrypted string) ContentPart {
	return ContentPart{Type: PartThink, Think: think, Encrypted: encrypted}
}

// ImagePart returns an image part for url.
func ImagePart(url string) ContentPart {
	return ContentPart{Type: PartImageURL, Media: &MediaURL{URL: url}}
}

// AudioPart returns an audio part for url.
func AudioPart(url string) ContentPart {
	return ContentPart{Type: PartAudioURL, Media: &MediaURL{URL: url}}
}

// VideoPart returns a video part for url and an optional provider file id.
func VideoPart(url, id string) ContentPart {
	return ContentPart{Type: PartVideoURL, Media: &MediaURL{URL: url, ID: id}}
}

// IsMedia reports whether p is an image, audio or video part.
func (p ContentPart) IsMedia() bool {
	return p.Type == PartImageURL || p.Type == PartAudioURL || p.Type == PartVideoURL
}

// mediaKey is the JSON key that holds a media part's URL object.
func mediaKey(t PartType) string {
	switch t {
	case PartImageURL:
		return "imageUrl"
	case PartAudioURL:
		return "audioUrl"
	case PartVideoURL:
		return "videoUrl"
	}
	return ""
}

// MarshalJSON writes the persisted shape of spec 02 §1.1, for example
// {"type":"think","think":"…","encrypted":"…"}. Optional keys are omitted
// when empty; text and think are always present for their types.
func (p ContentPart) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(`{"type":`)
	writeJSONString(&b, string(p.Type))
	switch p.Type {
	case PartText:
		b.WriteString(`,"text":`)
		writeJSONString(&b, p.Text)
	case PartThink:
		b.WriteString(`,"think":`)
		writeJSONString(&b, p.Think)
		if p.Encrypted != "" {
			b.WriteString(`,"encrypted":`)
			writeJSONString(&b, p.Encrypted)
		}
	case PartImageURL, PartAudioURL, PartVideoURL:
		m := p.Media
		if m == nil {
			m = &MediaURL{}
		}
		b.WriteString(`,"` + mediaKey(p.Type) + `":{"url":`)
		writeJSONString(&b, m.URL)
		if m.ID != "" {
			b.WriteString(`,"id":`)
			writeJSONString(&b, m.ID)
		}
		b.WriteByte('}')
	default:
		return nil, fmt.Errorf("marshal content part: unknown type %q", p.Type)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// UnmarshalJSON reads the persisted shape. An unknown type is an error that
// names the type.
func (p *ContentPart) UnmarshalJSON(data []byte) error {
	var raw struct {
		Type      PartType  `json:"type"`
		Text      *string   `json:"text"`
		Think     *string   `json:"think"`
		Encrypted string    `json:"encrypted"`
		ImageURL  *MediaURL `json:"imageUrl"`
		AudioURL  *MediaURL `json:"audioUrl"`
		VideoURL  *MediaURL `json:"videoUrl"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return fmt.Errorf("content part: %w", err)
	}
	*p = ContentPart{Type: raw.Type}
	switch raw.Type {
	case PartText:
		if raw.Text != nil {
			p.Text = *raw.Text
		}
	case PartThink:
		if raw.Think != nil {
			p.Think = *raw.Think
		}
		p.Encrypted = raw.Encrypted
	case PartImageURL:
		p.Media = raw.ImageURL
	case PartAudioURL:
		p.Media = raw.AudioURL
	case PartVideoURL:
		p.Media = raw.VideoURL
	default:
		return fmt.Errorf("content part: unknown type %q", raw.Type)
	}
	if p.IsMedia() && p.Media == nil {
		return fmt.Errorf("content part: %s without %s", raw.Type, mediaKey(raw.Type))
	}
	return nil
}

// ToolCall is a tool call requested by an assistant message.
type ToolCall struct {
	// ID is the provider's call id. Providers normalise it on the way out.
	ID string
	// Name is the tool name.
	Name string
	// Arguments is the raw JSON text of the arguments as streamed; it is
	// never parsed by llm. Empty means "no arguments seen".
	Arguments string
	// Extras is provider data that must round-trip verbatim (a JSON object),
	// or nil.
	Extras json.RawMessage
}

// MarshalJSON writes {"type":"function","id":…,"name":…,"arguments":…|null,"extras":…?}.
func (c ToolCall) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(`{"type":"function","id":`)
	writeJSONString(&b, c.ID)
	b.WriteString(`,"name":`)
	writeJSONString(&b, c.Name)
	b.WriteString(`,"arguments":`)
	if c.Arguments == "" {
		b.WriteString("null")
	} else {
		writeJSONString(&b, c.Arguments)
	}
	if len(c.Extras) > 0 {
		b.WriteString(`,"extras":`)
		b.Write(c.Extras)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// UnmarshalJSON reads the persisted tool call shape.
func (c *ToolCall) UnmarshalJSON(data []byte) error {
	var raw struct {
		ID        string          `json:"id"`
		Name      string          `json:"name"`
		Arguments *string         `json:"arguments"`
		Extras    json.RawMessage `json:"extras"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return fmt.Errorf("tool call: %w", err)
	}
	*c = ToolCall{ID: raw.ID, Name: raw.Name}
	if raw.Arguments != nil {
		c.Arguments = *raw.Arguments
	}
	if len(raw.Extras) > 0 && !bytes.Equal(raw.Extras, []byte("null")) {
		c.Extras = raw.Extras
	}
	return nil
}

// Message is one provider-neutral conversation message.
type Message struct {
	Role Role `json:"role"`
	// Name is an optional participant name.
	Name string `json:"name,omitempty"`
	// Content is the ordered list of parts; it may be empty.
	Content []ContentPart `json:"content"`
	// ToolCalls are the calls an assistant message requested.
	ToolCalls []ToolCall `json:"toolCalls"`
	// ToolCallID is set on tool messages: the call this result answers.
	ToolCallID string `json:"toolCallId,omitempty"`
	// Partial marks a message that was not fully received. It has no
	// behaviour here; it exists for format compatibility.
	Partial bool `json:"partial,omitempty"`
	// Tools are full tool definitions carried by a system message
	// (message-level tool declaration). Only Kimi sends them.
	Tools []Tool `json:"tools,omitempty"`
}

// MarshalJSON keeps content and toolCalls present as arrays even when empty.
func (m Message) MarshalJSON() ([]byte, error) {
	type plain Message
	if m.Content == nil {
		m.Content = []ContentPart{}
	}
	if m.ToolCalls == nil {
		m.ToolCalls = []ToolCall{}
	}
	return json.Marshal(plain(m))
}

// UserMessage returns a user message with one text part.
func UserMessage(text string) Message {
	return Message{Role: RoleUser, Content: []ContentPart{TextPart(text)}}
}

// SystemMessage returns a system message with one text part.
func SystemMessage(text string) Message {
	return Message{Role: RoleSystem, Content: []ContentPart{TextPart(text)}}
}

// AssistantMessage returns an assistant message with one text part (omitted
// when text is empty) and the given tool calls.
func AssistantMessage(text string, calls ...ToolCall) Message {
	m := Message{Role: RoleAssistant, ToolCalls: calls}
	if text != "" {
		m.Content = []ContentPart{TextPart(text)}
	}
	return m
}

// ToolMessage returns the result of tool call callID.
func ToolMessage(callID string, parts ...ContentPart) Message {
	return Message{Role: RoleTool, ToolCallID: callID, Content: parts}
}

// IsToolDeclarationOnly reports whether m only declares tools: non-empty
// Tools, no content and no tool calls. Every provider except Kimi skips it.
func (m Message) IsToolDeclarationOnly() bool {
	return len(m.Tools) > 0 && len(m.Content) == 0 && len(m.ToolCalls) == 0
}

// ExtractText joins the text parts of m with sep.
func ExtractText(m Message, sep string) string {
	var parts []string
	for _, p := range m.Content {
		if p.Type == PartText {
			parts = append(parts, p.Text)
		}
	}
	return strings.Join(parts, sep)
}

// Clone returns a deep copy of m: slices and media are not shared.
func (m Message) Clone() Message {
	c := m
	if m.Content != nil {
		c.Content = make([]ContentPart, len(m.Content))
		for i, p := range m.Content {
			c.Content[i] = p.Clone()
		}
	}
	if m.ToolCalls != nil {
		c.ToolCalls = make([]ToolCall, len(m.ToolCalls))
		for i, tc := range m.ToolCalls {
			tc.Extras = bytes.Clone(tc.Extras)
			c.ToolCalls[i] = tc
		}
	}
	if m.Tools != nil {
		c.Tools = append([]Tool(nil), m.Tools...)
	}
	return c
}

// Clone returns a copy of p that shares nothing with it.
func (p ContentPart) Clone() ContentPart {
	if p.Media != nil {
		m := *p.Media
		p.Media = &m
	}
	return p
}

// writeJSONString writes s as a JSON string without HTML escaping, so that
// persisted text stays greppable and byte-stable.
func writeJSONString(b *bytes.Buffer, s string) {
	b.Grow(len(s) + 2)
	b.Write(plainjson.AppendQuote(b.AvailableBuffer(), s))
}
