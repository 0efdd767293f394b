package llmtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/kimigo/kimigo/llm"
)

// AnthropicOptions configure FakeAnthropicWith beyond the defaults.
type AnthropicOptions struct {
	// ContextWindow, when positive, is the model's window in tokens. A
	// request whose prompt is larger (estimated as body bytes / 4) is
	// answered with the real 400 "prompt is too long: N tokens > M maximum".
	ContextWindow int
	// InMemory serves over in-memory pipes instead of loopback TCP, for
	// tests under testing/synctest; reach it with Server.Client.
	InMemory bool
}

// FakeAnthropic starts a loopback Anthropic Messages server that serves
// POST /v1/messages (with or without ?beta=true), answering each accepted
// request with the next reply encoded as real Anthropic SSE: message_start
// with the id and input usage, one block per run of text, thinking (closed
// by a signature_delta when the part is signed; a lone signature becomes a
// redacted_thinking block) or tool call (arguments as input_json_delta),
// then message_delta with stop_reason and output usage, and message_stop,
// with a ping now and then. A NoFinish reply ends after the last block.
// A reply's Err and StreamErr have no wire form and are ignored; use Fault.
//
// Requests the real service would reject get its status and error body:
// missing or Authorization-based credentials (401), a missing max_tokens,
// a first message that is not user, consecutive same-role messages,
// unpaired tool_use/tool_result blocks, duplicate tool_use ids, empty or
// whitespace-only text, unsigned thinking for Claude models, budget_tokens
// below 1024 or not below max_tokens, and max_tokens above the model's
// ceiling (400).
func FakeAnthropic(t testing.TB, replies ...Reply) *Server {
	t.Helper()
	return FakeAnthropicWith(t, AnthropicOptions{}, replies...)
}

// FakeAnthropicWith is FakeAnthropic with options.
func FakeAnthropicWith(t testing.TB, opts AnthropicOptions, replies ...Reply) *Server {
	t.Helper()
	return newServer(t, anthropicDialect{opts: opts}, replies, opts.InMemory)
}

// Anthropic error types, as the service spells them in error bodies.
const (
	anthInvalidRequest  = "invalid_request_error"
	anthAuthentication  = "authentication_error"
	anthPermission      = "permission_error"
	anthNotFound        = "not_found_error"
	anthRequestTooLarge = "request_too_large"
	anthRateLimit       = "rate_limit_error"
	anthAPIError        = "api_error"
	anthOverloaded      = "overloaded_error"
)

// AnthropicErrorBody formats the Anthropic error body
// {"type":"error","error":{"type":typ,"message":msg}}.
func AnthropicErrorBody(typ, msg string) string {
	return string(mustJSON(map[string]any{
		"type":  "error",
		"error": map[string]string{"type": typ, "message": msg},
	}))
}

// AnthropicOverloaded is the service's 529 "Overloaded" answer.
func AnthropicOverloaded() Reply {
	return Status(529, AnthropicErrorBody(anthOverloaded, "Overloaded"))
}

// AnthropicRateLimited is a 429 rate-limit answer with a retry-after header
// of the given number of seconds.
func AnthropicRateLimited(retryAfterSeconds int) Reply {
	return Status(http.StatusTooManyRequests, AnthropicErrorBody(anthRateLimit,
		"This request would exceed the rate limit for your organization of 50 requests per minute. "+
			"For details, refer to the rate limits documentation. You can see the response headers for "+
			"current usage. Please reduce the prompt length or the maximum tokens requested, or try again later."),
		"retry-after", strconv.Itoa(retryAfterSeconds))
}

// AnthropicServerError is a 500 api_error answer.
func AnthropicServerError() Reply {
	return Status(http.StatusInternalServerError, AnthropicErrorBody(anthAPIError, "Internal server error"))
}

// AnthropicRequestTooLarge is the 413 answer for a body over the size limit.
func AnthropicRequestTooLarge() Reply {
	return Status(http.StatusRequestEntityTooLarge, AnthropicErrorBody(anthRequestTooLarge,
		"Request exceeds the maximum allowed number of bytes."))
}

// AnthropicPromptTooLong is the 400 answer for a prompt over the window.
func AnthropicPromptTooLong(tokens, maximum int) Reply {
	return Status(http.StatusBadRequest, AnthropicErrorBody(anthInvalidRequest, anthPromptTooLong(tokens, maximum)))
}

func anthPromptTooLong(tokens, maximum int) string {
	return fmt.Sprintf("prompt is too long: %d tokens > %d maximum", tokens, maximum)
}

// anthropicDialect speaks the Anthropic Messages wire.
type anthropicDialect struct {
	opts AnthropicOptions
}

func (anthropicDialect) path() string { return "/v1/messages" }

func (anthropicDialect) errorBody(status int, msg string) string {
	return AnthropicErrorBody(anthropicErrorType(status), msg)
}

func anthropicErrorType(status int) string {
	switch status {
	case http.StatusBadRequest:
		return anthInvalidRequest
	case http.StatusUnauthorized:
		return anthAuthentication
	case http.StatusForbidden:
		return anthPermission
	case http.StatusNotFound:
		return anthNotFound
	case http.StatusRequestEntityTooLarge:
		return anthRequestTooLarge
	case http.StatusTooManyRequests:
		return anthRateLimit
	case 529:
		return anthOverloaded
	}
	if status >= 500 {
		return anthAPIError
	}
	return anthInvalidRequest
}

func (anthropicDialect) errorEvent(msg string) string {
	if msg == "" {
		msg = "Overloaded"
	}
	return sseEvent("error", []byte(AnthropicErrorBody(anthOverloaded, msg)))
}

func (anthropicDialect) malformed() string {
	return "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\n\n"
}

// anthropicEncoder turns a scripted reply into Anthropic SSE events. Blocks
// are numbered in order of appearance and each is stopped when the next one
// starts; a tool call's argument deltas go to its own block wherever they
// appear in the script.
type anthropicEncoder struct {
	events    []string
	blocks    int          // blocks started so far; the next block's index
	open      int          // index of the open text/thinking block, or -1
	openType  string       // "text" or "thinking" when open >= 0
	toolBlock map[int]int  // scripted stream index → block index
	stopped   map[int]bool // blocks that got a content_block_stop
	sincePing int          // events since the last ping
	anyCall   bool         // the reply contains a tool call
}

func (e *anthropicEncoder) emit(typ string, v any) {
	e.events = append(e.events, sseEvent(typ, mustJSON(v)))
	e.sincePing++
	if e.sincePing >= 8 {
		e.events = append(e.events, sseEvent("ping", []byte(`{"type": "ping"}`)))
		e.sincePing = 0
	}
}

func (e *anthropicEncoder) start(block map[string]any) int {
	e.stop(e.blocks - 1)
	e.open, e.openType = -1, ""
	i := e.blocks
	e.blocks++
	e.emit("content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": block})
	return i
}

func (e *anthropicEncoder) stop(i int) {
	if i < 0 || e.stopped[i] {
		return
	}
	e.stopped[i] = true
	e.emit("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
}

func (e *anthropicEncoder) delta(i int, d map[string]any) {
	e.emit("content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": d})
}

func (e *anthropicEncoder) part(p llm.StreamPart) {
	switch p.Kind {
	case llm.KindContent:
		c := p.Content
		switch c.Type {
		case llm.PartText:
			if e.openType != "text" {
				e.open, e.openType = e.start(map[string]any{"type": "text", "text": ""}), "text"
			}
			if c.Text != "" {
				e.delta(e.open, map[string]any{"type": "text_delta", "text": c.Text})
			}
		case llm.PartThink:
			if c.Think == "" && c.Encrypted != "" && e.openType != "thinking" {
				// A lone signature outside a thinking block is a
				// redacted_thinking block.
				e.stop(e.start(map[string]any{"type": "redacted_thinking", "data": c.Encrypted}))
				return
			}
			if e.openType != "thinking" {
				e.open, e.openType = e.start(map[string]any{"type": "thinking", "thinking": ""}), "thinking"
			}
			if c.Think != "" {
				e.delta(e.open, map[string]any{"type": "thinking_delta", "thinking": c.Think})
			}
			if c.Encrypted != "" {
				// A signature ends its thinking block.
				e.delta(e.open, map[string]any{"type": "signature_delta", "signature": c.Encrypted})
				e.stop(e.open)
				e.open, e.openType = -1, ""
			}
		}
		// Anthropic streams no media; scripted media parts are dropped.
	case llm.KindToolCall:
		e.anyCall = true
		tc := p.ToolCall
		id := tc.ID
		if id == "" {
			id = fmt.Sprintf("toolu_fake_%d", e.blocks)
		}
		i := e.start(map[string]any{"type": "tool_use", "id": id, "name": tc.Name, "input": map[string]any{}})
		e.toolBlock[p.Index] = i
		if tc.Arguments != "" {
			e.delta(i, map[string]any{"type": "input_json_delta", "partial_json": tc.Arguments})
		}
	case llm.KindToolCallPart:
		if i, ok := e.toolBlock[p.Index]; ok && p.ArgumentsPart != "" {
			e.delta(i, map[string]any{"type": "input_json_delta", "partial_json": p.ArgumentsPart})
		}
	}
}

func (anthropicDialect) events(r Reply) []string {
	e := &anthropicEncoder{open: -1, toolBlock: map[int]int{}, stopped: map[int]bool{}}
	var u llm.TokenUsage
	if r.Usage != nil {
		u = *r.Usage
	}
	id := r.ID
	if id == "" {
		id = "msg_fake"
	}
	e.emit("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": id, "type": "message", "role": "assistant", "model": "fake-model",
		"content": []any{}, "stop_reason": nil, "stop_sequence": nil,
		"usage": map[string]any{
			"input_tokens":                u.InputOther,
			"cache_creation_input_tokens": u.InputCacheCreation,
			"cache_read_input_tokens":     u.InputCacheRead,
			"output_tokens":               min(u.Output, 1),
		},
	}})
	e.events = append(e.events, sseEvent("ping", []byte(`{"type": "ping"}`)))
	for _, p := range r.Parts {
		e.part(p)
	}
	e.stop(e.blocks - 1)
	if r.NoFinish {
		return e.events
	}
	e.emit("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": anthropicStopReason(r, e.anyCall), "stop_sequence": nil},
		"usage": map[string]any{"output_tokens": u.Output}})
	e.emit("message_stop", map[string]any{"type": "message_stop"})
	return e.events
}

// anthropicStopReason is the raw stop_reason for a reply: RawFinish when
// given, else the Anthropic spelling of Finish, else tool_use or end_turn.
func anthropicStopReason(r Reply, anyCall bool) string {
	if r.RawFinish != "" {
		return r.RawFinish
	}
	switch r.Finish {
	case llm.FinishCompleted:
		return "end_turn"
	case llm.FinishToolCalls:
		return "tool_use"
	case llm.FinishTruncated:
		return "max_tokens"
	case llm.FinishFiltered:
		return "refusal"
	case llm.FinishPaused:
		return "pause_turn"
	case llm.FinishOther:
		return "other"
	}
	if anyCall {
		return "tool_use"
	}
	return "end_turn"
}

// anthRequest is the part of a Messages request the strict checks read.
type anthRequest struct {
	Model     *string          `json:"model"`
	MaxTokens *int             `json:"max_tokens"`
	Messages  []anthMessage    `json:"messages"`
	Thinking  *anthThinkingReq `json:"thinking"`
}

type anthThinkingReq struct {
	Type         string `json:"type"`
	BudgetTokens *int   `json:"budget_tokens"`
}

type anthMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

type anthBlock struct {
	Type      string          `json:"type"`
	Text      *string         `json:"text"`
	Thinking  *string         `json:"thinking"`
	Signature *string         `json:"signature"`
	ID        string          `json:"id"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
}

// blocks decodes message content: a string is one text block.
func (m anthMessage) blocks() ([]anthBlock, error) {
	c := bytes.TrimSpace(m.Content)
	if len(c) > 0 && c[0] == '"' {
		var s string
		if err := json.Unmarshal(c, &s); err != nil {
			return nil, err
		}
		return []anthBlock{{Type: "text", Text: &s}}, nil
	}
	var bs []anthBlock
	err := json.Unmarshal(c, &bs)
	return bs, err
}

func (d anthropicDialect) check(r *Request) (int, string) {
	if r.Header.Get("Authorization") != "" {
		return http.StatusUnauthorized, "OAuth authentication is currently not supported."
	}
	if r.Header.Get("x-api-key") == "" {
		return http.StatusUnauthorized, "x-api-key header is required"
	}
	if r.Header.Get("anthropic-version") == "" {
		return http.StatusBadRequest, "anthropic-version: header is required"
	}
	var req anthRequest
	if err := json.Unmarshal(r.Body, &req); err != nil {
		return http.StatusBadRequest, "There was an error parsing the body of your request: " + err.Error()
	}
	if req.Model == nil {
		return http.StatusBadRequest, "model: Field required"
	}
	model := *req.Model
	if req.MaxTokens == nil {
		return http.StatusBadRequest, "max_tokens: Field required"
	}
	maxTokens := *req.MaxTokens
	if maxTokens < 1 {
		return http.StatusBadRequest, "max_tokens: Input should be greater than or equal to 1"
	}
	if len(req.Messages) == 0 {
		return http.StatusBadRequest, "messages: at least one message is required"
	}
	if msg := anthCheckMessages(model, req.Messages); msg != "" {
		return http.StatusBadRequest, msg
	}
	claude := strings.Contains(strings.ToLower(model), "claude")
	if th := req.Thinking; th != nil && th.Type == "enabled" {
		switch b := th.BudgetTokens; {
		case b == nil && claude:
			return http.StatusBadRequest, "thinking.enabled.budget_tokens: Field required"
		case b != nil && *b < 1024:
			return http.StatusBadRequest, "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024"
		case b != nil && *b >= maxTokens:
			return http.StatusBadRequest, "`max_tokens` must be greater than `thinking.budget_tokens`. Please consult " +
				"our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking#max-tokens-and-context-window-size"
		}
	}
	if ceiling, ok := anthOutputCeiling(model); ok && maxTokens > ceiling {
		return http.StatusBadRequest, fmt.Sprintf(
			"max_tokens: %d > %d, which is the maximum allowed number of output tokens for %s", maxTokens, ceiling, model)
	}
	if w := d.opts.ContextWindow; w > 0 {
		if tokens := len(r.Body) / 4; tokens > w {
			return http.StatusBadRequest, anthPromptTooLong(tokens, w)
		}
	}
	return 0, ""
}

// anthCheckMessages applies the message rules of the real service and
// returns its error message for the first violation, or "".
func anthCheckMessages(model string, msgs []anthMessage) string {
	claude := strings.Contains(strings.ToLower(model), "claude")
	decoded := make([][]anthBlock, len(msgs))
	for i, m := range msgs {
		bs, err := m.blocks()
		if err != nil {
			return fmt.Sprintf("messages.%d.content: Input should be a valid list", i)
		}
		decoded[i] = bs
		if m.Role != "user" && m.Role != "assistant" {
			return fmt.Sprintf("messages.%d.role: Input should be 'user' or 'assistant'", i)
		}
	}
	if msgs[0].Role != "user" {
		return `messages: first message must use the "user" role`
	}
	for i := 1; i < len(msgs); i++ {
		if msgs[i].Role == msgs[i-1].Role {
			return fmt.Sprintf(`messages: roles must alternate between "user" and "assistant", but found multiple %q roles in a row`, msgs[i].Role)
		}
	}
	seenToolUse := map[string]bool{}
	for i, bs := range decoded {
		if msg := anthCheckText(bs); msg != "" {
			return msg
		}
		for j, b := range bs {
			switch b.Type {
			case "thinking":
				if claude && b.Signature == nil {
					return fmt.Sprintf("messages.%d.content.%d.thinking.signature: Field required", i, j)
				}
				if claude && *b.Signature == "" {
					return fmt.Sprintf("messages.%d.content.%d: Invalid `signature` in `thinking` block", i, j)
				}
			case "tool_use":
				if seenToolUse[b.ID] {
					return fmt.Sprintf("messages.%d.content.%d: `tool_use` ids must be unique", i, j)
				}
				seenToolUse[b.ID] = true
			case "tool_result":
				if i == 0 || !anthHasToolUse(decoded[i-1], b.ToolUseID) {
					return fmt.Sprintf("messages.%d.content.%d: unexpected `tool_use_id` found in `tool_result` blocks: %s. "+
						"Each `tool_result` block must have a corresponding `tool_use` block in the previous message.", i, j, b.ToolUseID)
				}
			}
		}
		if msgs[i].Role != "assistant" {
			continue
		}
		var missing []string
		for _, b := range bs {
			if b.Type != "tool_use" {
				continue
			}
			if i+1 >= len(decoded) || !anthHasToolResult(decoded[i+1], b.ID) {
				missing = append(missing, b.ID)
			}
		}
		if len(missing) > 0 {
			return fmt.Sprintf("messages.%d: `tool_use` ids were found without `tool_result` blocks immediately after: %s. "+
				"Each `tool_use` block must have a corresponding `tool_result` block in the next message.", i, strings.Join(missing, ", "))
		}
	}
	return ""
}

// anthCheckText rejects empty text anywhere, and a message whose text
// blocks are all whitespace (the service accepts a whitespace block next to
// a block with real text).
func anthCheckText(bs []anthBlock) string {
	texts, blank := 0, 0
	for _, b := range bs {
		if b.Type == "tool_result" && len(b.Content) > 0 && b.Content[0] == '[' {
			var inner []anthBlock
			if json.Unmarshal(b.Content, &inner) == nil {
				for _, ib := range inner {
					if ib.Type == "text" && (ib.Text == nil || *ib.Text == "") {
						return "messages: text content blocks must be non-empty"
					}
				}
			}
		}
		if b.Type != "text" {
			continue
		}
		if b.Text == nil || *b.Text == "" {
			return "messages: text content blocks must be non-empty"
		}
		texts++
		if strings.TrimSpace(*b.Text) == "" {
			blank++
		}
	}
	if texts > 0 && blank == texts {
		return "messages: text content blocks must contain non-whitespace text"
	}
	return ""
}

func anthHasToolUse(bs []anthBlock, id string) bool {
	for _, b := range bs {
		if b.Type == "tool_use" && b.ID == id {
			return true
		}
	}
	return false
}

func anthHasToolResult(bs []anthBlock, id string) bool {
	for _, b := range bs {
		if b.Type == "tool_result" && b.ToolUseID == id {
			return true
		}
	}
	return false
}

// The fake's own table of output ceilings. It models the service, so it is
// kept apart from the provider's table on purpose.
var (
	anthFamilyFirst  = regexp.MustCompile(`claude-(opus|sonnet|haiku)-(\d+)(?:-(\d)(?:[^0-9]|$))?`)
	anthVersionFirst = regexp.MustCompile(`claude-(\d)(?:-(\d))?-(opus|sonnet|haiku)`)
	anthCeilings     = map[string]int{
		"opus-4-8": 128000, "opus-4-7": 128000, "opus-4-6": 128000, "opus-4-5": 64000,
		"opus-4-1": 32000, "opus-4": 32000,
		"sonnet-4-6": 128000, "sonnet-4-5": 64000, "sonnet-4": 64000,
		"haiku-4-5":  64000,
		"sonnet-3-7": 64000, "sonnet-3-5": 8192, "haiku-3-5": 8192,
		"opus-3": 4096, "sonnet-3": 4096, "haiku-3": 4096,
	}
)

func anthOutputCeiling(model string) (int, bool) {
	m := strings.ToLower(model)
	var family, major, minor string
	if s := anthFamilyFirst.FindStringSubmatch(m); s != nil {
		family, major, minor = s[1], s[2], s[3]
	} else if s := anthVersionFirst.FindStringSubmatch(m); s != nil {
		family, major, minor = s[3], s[1], s[2]
	} else {
		return 0, false
	}
	if minor != "" {
		if c, ok := anthCeilings[family+"-"+major+"-"+minor]; ok {
			return c, true
		}
	}
	c, ok := anthCeilings[family+"-"+major]
	return c, ok
}
