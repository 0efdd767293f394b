package anthropic

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"

	"github.com/kimigo/kimigo/llm"
)

// blockType is the wire type of a content block.
type blockType string

// Content block types the provider sends.
const (
	blockText       blockType = "text"
	blockImage      blockType = "image"
	blockVideo      blockType = "video"
	blockThinking   blockType = "thinking"
	blockToolUse    blockType = "tool_use"
	blockToolResult blockType = "tool_result"
)

// sourceType is the wire type of a media source.
type sourceType string

const (
	sourceBase64 sourceType = "base64"
	sourceURL    sourceType = "url"
)

// audioOmitted replaces audio parts: the Messages API has no audio input,
// and a placeholder lets the model know something was there.
const audioOmitted = "(audio omitted: not supported by this provider)"

// contentBlock is one block of a wire message; appendJSON appends its
// encoding (encode.go). Blocks that can carry a prompt-cache breakpoint
// implement cacheable.
type contentBlock interface {
	blockType() blockType
	appendJSON(dst []byte) []byte
}

type cacheable interface{ setCacheControl(*cacheControl) }

type textBlock struct {
	Type         blockType     `json:"type"`
	Text         string        `json:"text"`
	CacheControl *cacheControl `json:"cache_control,omitempty"`
}

// thinkingBlock carries reasoning. Unsigned thinking is sent without the
// signature key at all; signed thinking has a signature that is not empty.
type thinkingBlock struct {
	Type      blockType `json:"type"`
	Thinking  string    `json:"thinking"`
	Signature string    `json:"signature,omitempty"`
}

type mediaSource struct {
	Type      sourceType `json:"type"`
	MediaType string     `json:"media_type,omitempty"`
	Data      string     `json:"data,omitempty"`
	URL       string     `json:"url,omitempty"`
}

// mediaBlock is an image or (for compatible backends) a video block.
type mediaBlock struct {
	Type         blockType     `json:"type"`
	Source       mediaSource   `json:"source"`
	CacheControl *cacheControl `json:"cache_control,omitempty"`
}

type toolUseBlock struct {
	Type         blockType     `json:"type"`
	ID           string        `json:"id"`
	Name         string        `json:"name"`
	Input        rawJSON       `json:"input"`
	CacheControl *cacheControl `json:"cache_control,omitempty"`
}

// rawJSON is compact JSON held as the string it came in, so arguments
// that are already compact are sent without a copy. "" is null, as a nil
// json.RawMessage is.
type rawJSON string

// MarshalJSON returns r as it is.
func (r rawJSON) MarshalJSON() ([]byte, error) {
	if r == "" {
		return []byte("null"), nil
	}
	return []byte(r), nil
}

// toolResultBlock answers a tool_use. Content is always present, possibly
// as an empty list; no is_error flag is sent.
type toolResultBlock struct {
	Type         blockType      `json:"type"`
	ToolUseID    string         `json:"tool_use_id"`
	Content      []contentBlock `json:"content"`
	CacheControl *cacheControl  `json:"cache_control,omitempty"`
}

func (b *textBlock) blockType() blockType       { return b.Type }
func (b *thinkingBlock) blockType() blockType   { return b.Type }
func (b *mediaBlock) blockType() blockType      { return b.Type }
func (b *toolUseBlock) blockType() blockType    { return b.Type }
func (b *toolResultBlock) blockType() blockType { return b.Type }

func (b *textBlock) setCacheControl(c *cacheControl)       { b.CacheControl = c }
func (b *toolUseBlock) setCacheControl(c *cacheControl)    { b.CacheControl = c }
func (b *toolResultBlock) setCacheControl(c *cacheControl) { b.CacheControl = c }

// Video blocks are not cache breakpoints on the wire.
func (b *mediaBlock) setCacheControl(c *cacheControl) {
	if b.Type == blockImage {
		b.CacheControl = c
	}
}

// wireRole is a message role on the Messages wire.
type wireRole string

const (
	roleUser      wireRole = "user"
	roleAssistant wireRole = "assistant"
)

type wireMessage struct {
	Role    wireRole       `json:"role"`
	Content []contentBlock `json:"content"`
}

// convertMessages turns the history into wire messages (spec 01 §3.4.3):
// skip tool-declaration-only messages, normalise tool-call ids, convert,
// drop empty assistant turns, merge consecutive user turns, and put a
// cache breakpoint on the last block.
func convertMessages(model string, history []llm.Message) ([]wireMessage, error) {
	kept := history // NormalizeToolCalls never modifies it
	if slices.ContainsFunc(history, llm.Message.IsToolDeclarationOnly) {
		kept = make([]llm.Message, 0, len(history))
		for _, m := range history {
			if !m.IsToolDeclarationOnly() {
				kept = append(kept, m)
			}
		}
	}
	kept = llm.NormalizeToolCalls(kept)
	keepUnsigned := canKeepUnsignedThinking(model)
	out := make([]wireMessage, 0, len(kept))
	a := newBlockArena(kept)
	for i, m := range kept {
		wm, err := a.convertMessage(i, m, keepUnsigned)
		if err != nil {
			return nil, err
		}
		if wm.Role == roleAssistant && len(wm.Content) == 0 {
			continue
		}
		out = append(out, wm)
	}
	out = mergeUserMessages(out)
	markLastBlock(out)
	return out, nil
}

// blockArena holds the blocks of one request's messages: a request
// converts every message of the conversation, and a block and a block
// slice apiece were most of its allocations. Its slabs are sized from the
// history, so each is one allocation per request; the blocks of a
// request are reachable until the next one (wire.Sizes keeps them), as
// they were one by one.
type blockArena struct {
	texts    []textBlock
	thinking []thinkingBlock
	uses     []toolUseBlock
	results  []toolResultBlock
	slots    []contentBlock
}

// newBlockArena sizes the slabs for history, as convertMessage takes from
// them: a part makes at most one block, a call one, a system message one
// text, a tool message one result holding its parts' blocks.
func newBlockArena(history []llm.Message) *blockArena {
	var texts, thinking, calls, results, slots int
	for _, m := range history {
		switch m.Role {
		case llm.RoleSystem:
			texts++
			slots++
			continue
		case llm.RoleTool:
			results++
			slots++
		}
		calls += len(m.ToolCalls)
		slots += len(m.Content) + len(m.ToolCalls)
		for _, p := range m.Content {
			switch p.Type {
			case llm.PartText, llm.PartAudioURL:
				texts++
			case llm.PartThink:
				thinking++
			}
		}
	}
	return &blockArena{texts: make([]textBlock, 0, texts), thinking: make([]thinkingBlock, 0, thinking),
		uses: make([]toolUseBlock, 0, calls), results: make([]toolResultBlock, 0, results),
		slots: make([]contentBlock, 0, slots)}
}

// take returns a slab element to fill: the next one of *slab, or a new
// slab's when it is full (a history the sizes missed).
func take[T any](slab *[]T) *T {
	if len(*slab) == cap(*slab) {
		*slab = make([]T, 0, max(2*cap(*slab), 8))
	}
	*slab = append(*slab, *new(T))
	return &(*slab)[len(*slab)-1]
}

func (a *blockArena) text(text string) *textBlock {
	b := take(&a.texts)
	*b = textBlock{Type: blockText, Text: text}
	return b
}

// blocks returns an empty block slice with room for n blocks: appending
// up to n writes into the arena, beyond n into a slice of its own.
func (a *blockArena) blocks(n int) []contentBlock {
	if len(a.slots)+n > cap(a.slots) {
		a.slots = make([]contentBlock, 0, max(2*cap(a.slots), n, 8))
	}
	k := len(a.slots)
	a.slots = a.slots[:k+n]
	return a.slots[k : k : k+n]
}

func (a *blockArena) convertMessage(i int, m llm.Message, keepUnsigned bool) (wireMessage, error) {
	switch m.Role {
	case llm.RoleSystem:
		text := "<system>" + llm.ExtractText(m, "\n") + "</system>"
		return wireMessage{Role: roleUser, Content: append(a.blocks(1), a.text(text))}, nil
	case llm.RoleTool:
		if m.ToolCallID == "" {
			return wireMessage{}, invalidRequestf("anthropic: message %d: tool message has no tool call id", i)
		}
		res, err := a.toolResult(m)
		if err != nil {
			return wireMessage{}, err
		}
		return wireMessage{Role: roleUser, Content: append(a.blocks(1), res)}, nil
	case llm.RoleUser, llm.RoleAssistant:
	default:
		return wireMessage{}, invalidRequestf("anthropic: message %d: unknown role %q", i, m.Role)
	}
	role := roleUser
	if m.Role == llm.RoleAssistant {
		role = roleAssistant
	}
	blocks := a.blocks(len(m.Content) + len(m.ToolCalls))
	for _, part := range m.Content {
		switch part.Type {
		case llm.PartText:
			// Empty text is sent as is; a strict server's 400 sends the
			// loop to its strict resend, which owns repairs.
			blocks = append(blocks, a.text(part.Text))
		case llm.PartImageURL, llm.PartVideoURL:
			b, err := mediaFromPart(part)
			if err != nil {
				return wireMessage{}, err
			}
			blocks = append(blocks, b)
		case llm.PartThink:
			if part.Encrypted != "" || keepUnsigned {
				b := take(&a.thinking)
				*b = thinkingBlock{Type: blockThinking, Thinking: part.Think, Signature: part.Encrypted}
				blocks = append(blocks, b)
			}
		case llm.PartAudioURL:
			blocks = a.appendAudioPlaceholder(blocks)
		}
	}
	for _, tc := range m.ToolCalls {
		input, err := toolInput(tc)
		if err != nil {
			return wireMessage{}, err
		}
		b := take(&a.uses)
		*b = toolUseBlock{Type: blockToolUse, ID: tc.ID, Name: tc.Name, Input: input}
		blocks = append(blocks, b)
	}
	if len(blocks) == 0 {
		blocks = nil // a message without blocks is sent with "content":null, as before the arena
	}
	return wireMessage{Role: role, Content: blocks}, nil
}

func (a *blockArena) toolResult(m llm.Message) (*toolResultBlock, error) {
	content := a.blocks(len(m.Content))
	if content == nil {
		content = []contentBlock{} // content is always sent, possibly as []
	}
	for _, part := range m.Content {
		switch part.Type {
		case llm.PartText:
			if part.Text != "" {
				content = append(content, a.text(part.Text))
			}
		case llm.PartImageURL, llm.PartVideoURL:
			b, err := mediaFromPart(part)
			if err != nil {
				return nil, err
			}
			content = append(content, b)
		case llm.PartAudioURL:
			content = a.appendAudioPlaceholder(content)
		}
		// Thinking inside a tool result has no wire form.
	}
	b := take(&a.results)
	*b = toolResultBlock{Type: blockToolResult, ToolUseID: m.ToolCallID, Content: content}
	return b, nil
}

// appendAudioPlaceholder adds the audio placeholder unless the previous
// block already is one.
func (a *blockArena) appendAudioPlaceholder(blocks []contentBlock) []contentBlock {
	if n := len(blocks); n > 0 {
		if t, ok := blocks[n-1].(*textBlock); ok && t.Text == audioOmitted {
			return blocks
		}
	}
	return append(blocks, a.text(audioOmitted))
}

// toolInput is the tool_use input: the arguments as a compact JSON object,
// or {} when there are none. Anything else cannot be sent and is an
// invalid request (not retryable: the history will not change by itself).
func toolInput(tc llm.ToolCall) (rawJSON, error) {
	args := strings.TrimSpace(tc.Arguments)
	if args == "" {
		return `{}`, nil
	}
	if args[0] == '{' && isCompact(args) && json.Valid([]byte(args)) { // as the model sends them: no copy
		return rawJSON(args), nil
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, []byte(args)); err != nil {
		return "", invalidRequestf("anthropic: tool call %s (%s): arguments must be valid JSON: %v", tc.ID, tc.Name, err)
	}
	if buf.Bytes()[0] != '{' {
		return "", invalidRequestf("anthropic: tool call %s (%s): arguments must be a JSON object", tc.ID, tc.Name)
	}
	return rawJSON(buf.String()), nil
}

// isCompact reports whether s, if it is JSON, has no space outside its
// strings: whether json.Compact would leave it as it is.
func isCompact(s string) bool {
	inString, escaped := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case escaped:
			escaped = false
		case inString:
			escaped = c == '\\'
			inString = c != '"'
		case c == '"':
			inString = true
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			return false
		}
	}
	return true
}

// Media types Anthropic accepts inline.
var (
	base64ImageTypes = []string{"image/png", "image/jpeg", "image/gif", "image/webp"}
	base64VideoTypes = []string{"video/mp4", "video/mpeg", "video/quicktime", "video/webm",
		"video/x-matroska", "video/x-msvideo", "video/x-flv", "video/3gpp"}
)

// mediaFromPart converts an image or video part. A data URL becomes a
// base64 source (its MIME type must be on the list), any other URL a url
// source. Image problems are generic errors worded so llm.IsImageFormatError
// recognises them and the loop resends without media; video problems are
// invalid requests.
func mediaFromPart(part llm.ContentPart) (*mediaBlock, error) {
	kind, typ, allowed := "image", blockImage, base64ImageTypes
	if part.Type == llm.PartVideoURL {
		kind, typ, allowed = "video", blockVideo, base64VideoTypes
	}
	url := ""
	if part.Media != nil {
		url = part.Media.URL
	}
	rest, isData := strings.CutPrefix(url, "data:")
	if !isData {
		return &mediaBlock{Type: typ, Source: mediaSource{Type: sourceURL, URL: url}}, nil
	}
	mime, data, ok := strings.Cut(rest, ";base64,")
	if !ok {
		return nil, mediaError(kind, "anthropic: invalid data URL for %s: %s", kind, shortURL(url))
	}
	if !slices.Contains(allowed, mime) {
		return nil, mediaError(kind, "anthropic: unsupported media type for base64 %s: %s, url: %s", kind, mime, shortURL(url))
	}
	return &mediaBlock{Type: typ, Source: mediaSource{Type: sourceBase64, MediaType: mime, Data: data}}, nil
}

func mediaError(kind, format string, args ...any) *llm.Error {
	if kind == "image" {
		return llm.Errorf(llm.KindGeneric, format, args...)
	}
	return invalidRequestf(format, args...)
}

// shortURL keeps error messages small: data URLs can be megabytes.
func shortURL(url string) string {
	const limit = 80
	if len(url) <= limit {
		return url
	}
	cut := limit
	for cut > 0 && url[cut]&0xC0 == 0x80 {
		cut--
	}
	return url[:cut] + "…"
}

// isToolResultOnly reports a user message made only of tool_result blocks.
func isToolResultOnly(m wireMessage) bool {
	if m.Role != roleUser || len(m.Content) == 0 {
		return false
	}
	for _, b := range m.Content {
		if b.blockType() != blockToolResult {
			return false
		}
	}
	return true
}

// mergeUserMessages joins consecutive user messages when the earlier one is
// tool-results only or the later one is not: parallel results share one
// turn and a steering text joins the results before it, but results are
// never appended to a plain text turn. The input is not modified; it is
// returned as it is when nothing merges.
func mergeUserMessages(msgs []wireMessage) []wireMessage {
	if !anyMerge(msgs) { // nothing merges unless two neighbours do
		return msgs
	}
	out := make([]wireMessage, 0, len(msgs))
	for _, m := range msgs {
		if n := len(out); n > 0 {
			last := out[n-1]
			if merges(last, m) {
				merged := make([]contentBlock, 0, len(last.Content)+len(m.Content))
				merged = append(append(merged, last.Content...), m.Content...)
				out[n-1].Content = merged
				continue
			}
		}
		out = append(out, m)
	}
	return out
}

// merges reports whether m joins last in mergeUserMessages.
func merges(last, m wireMessage) bool {
	return last.Role == roleUser && m.Role == roleUser && (isToolResultOnly(last) || !isToolResultOnly(m))
}

// anyMerge reports whether two neighbours of msgs merge.
func anyMerge(msgs []wireMessage) bool {
	for i := 1; i < len(msgs); i++ {
		if merges(msgs[i-1], msgs[i]) {
			return true
		}
	}
	return false
}

// markLastBlock puts the prompt-cache breakpoint on the last block of the
// last message when that block type can carry one.
func markLastBlock(msgs []wireMessage) {
	if len(msgs) == 0 {
		return
	}
	content := msgs[len(msgs)-1].Content
	if len(content) == 0 {
		return
	}
	if c, ok := content[len(content)-1].(cacheable); ok {
		c.setCacheControl(ephemeral)
	}
}
