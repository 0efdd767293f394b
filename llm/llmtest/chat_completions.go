package llmtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/kimigo/kimigo/llm"
)

// ChatCompletionsPath is the path a Chat Completions fake serves. Clients
// append /chat/completions to their base URL, so point them at
// ChatBaseURL(srv), which is srv.URL + "/v1".
const ChatCompletionsPath = "/v1/chat/completions"

// ChatBaseURL is the base URL to give a Chat Completions client for srv.
func ChatBaseURL(srv *Server) string { return srv.URL + "/v1" }

// ChatFlavour selects which real service a Chat Completions fake imitates:
// the error texts differ, and Kimi enforces one rule OpenAI does not.
type ChatFlavour string

// Chat Completions fake flavours.
const (
	// ChatOpenAI imitates api.openai.com (the default), with one rule of
	// the strict OpenAI-compatible servers on top: the first message
	// after the system and developer messages is a user message.
	// api.openai.com accepts an assistant there; Kimi and many
	// self-hosted servers refuse it, so a conversation kimigo sends must
	// never start that way.
	ChatOpenAI ChatFlavour = "openai"
	// ChatKimi imitates Moonshot's API: Kimi error texts, usage inside
	// choices[0] with a top-level cached_tokens, and the same first-message
	// rule.
	ChatKimi ChatFlavour = "kimi"
)

// ChatOptions configure FakeChatCompletionsWith.
type ChatOptions struct {
	// Flavour defaults to ChatOpenAI.
	Flavour ChatFlavour
	// ContextWindow, when positive, rejects requests whose estimated token
	// count (body bytes / 4) exceeds it, with the real context-length 400.
	ContextWindow int
	// ReasoningKey is the delta field thinking streams under; default
	// reasoning_content.
	ReasoningKey string
	// Model is reported in chunks; default "fake-model".
	Model string
	// InMemory serves over in-memory pipes instead of loopback TCP, for
	// tests under testing/synctest; reach it with Server.Client.
	InMemory bool
}

// FakeChatCompletions starts an OpenAI-flavoured Chat Completions fake
// serving POST /v1/chat/completions.
func FakeChatCompletions(t testing.TB, replies ...Reply) *Server {
	t.Helper()
	return FakeChatCompletionsWith(t, ChatOptions{}, replies...)
}

// FakeChatCompletionsWith starts a Chat Completions fake configured by o.
func FakeChatCompletionsWith(t testing.TB, o ChatOptions, replies ...Reply) *Server {
	t.Helper()
	if o.Flavour == "" {
		o.Flavour = ChatOpenAI
	}
	if o.ReasoningKey == "" {
		o.ReasoningKey = "reasoning_content"
	}
	if o.Model == "" {
		o.Model = "fake-model"
	}
	return newServer(t, chatDialect{o}, replies, o.InMemory)
}

// chatDialect speaks Chat Completions.
type chatDialect struct{ o ChatOptions }

func (chatDialect) path() string { return ChatCompletionsPath }

// chatError is the error body of OpenAI and Kimi.
type chatError struct {
	Message string  `json:"message"`
	Type    string  `json:"type"`
	Param   *string `json:"param"`
	Code    *string `json:"code"`
}

func strp(s string) *string { return &s }

// encodeChatError renders {"error":{…}}.
func encodeChatError(e chatError) string {
	return string(mustJSON(struct {
		Error chatError `json:"error"`
	}{e}))
}

// errorBody wraps msg in the flavour's error body. A msg that is already a
// full error body (from check) is sent as it is.
func (d chatDialect) errorBody(status int, msg string) string {
	if strings.HasPrefix(msg, `{"error":`) {
		return msg
	}
	e := chatError{Message: msg, Type: "invalid_request_error"}
	switch {
	case status == http.StatusUnauthorized:
		e.Type, e.Code = "invalid_request_error", strp("invalid_api_key")
		if d.o.Flavour == ChatKimi {
			e.Type, e.Code = "invalid_authentication_error", nil
		}
	case status == http.StatusNotFound:
		e.Type = "not_found_error"
	case status == http.StatusTooManyRequests:
		e.Type, e.Code = "requests", strp("rate_limit_exceeded")
		if d.o.Flavour == ChatKimi {
			e.Type, e.Code = "rate_limit_reached_error", nil
		}
	case status >= 500:
		e.Type = "server_error"
	}
	return encodeChatError(e)
}

// The wire request, as far as the strict checks read it.
type chatWireRequest struct {
	Model    *string            `json:"model"`
	Messages *[]chatWireMessage `json:"messages"`
	Stream   bool               `json:"stream"`
}

type chatWireMessage struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"`
	ToolCalls  []chatWireCall  `json:"tool_calls"`
	ToolCallID *string         `json:"tool_call_id"`
}

type chatWireCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name string `json:"name"`
	} `json:"function"`
}

// reject400 builds a 400 answer with a full error body.
func reject400(msg, param, code string) (int, string) {
	e := chatError{Message: msg, Type: "invalid_request_error"}
	if param != "" {
		e.Param = strp(param)
	}
	if code != "" {
		e.Code = strp(code)
	}
	return http.StatusBadRequest, encodeChatError(e)
}

// check applies the rules the real services enforce, in the order they
// report them.
func (d chatDialect) check(r *Request) (int, string) {
	kimi := d.o.Flavour == ChatKimi
	var req chatWireRequest
	if err := json.Unmarshal(r.Body, &req); err != nil {
		return reject400("We could not parse the JSON body of your request. "+
			"(HINT: This likely means you aren't using your HTTP library correctly.)", "", "")
	}
	if req.Model == nil || *req.Model == "" {
		return reject400("you must provide a model parameter", "", "")
	}
	if req.Messages == nil {
		return reject400("Missing required parameter: 'messages'.", "messages", "missing_required_parameter")
	}
	msgs := *req.Messages
	if len(msgs) == 0 {
		return reject400("Invalid 'messages': empty array. Expected an array with minimum length 1, "+
			"but got an empty array instead.", "messages", "empty_array")
	}
	if !req.Stream {
		return reject400("fake server: only streaming requests (\"stream\": true) are served", "stream", "")
	}
	if status, body := d.checkMessages(msgs, kimi); status != 0 {
		return status, body
	}
	if w := d.o.ContextWindow; w > 0 {
		if n := r.Tokens(); n > w {
			if kimi {
				return reject400(fmt.Sprintf("Invalid request: Your request exceeded model token limit: %d (requested: %d)", w, n), "", "")
			}
			return reject400(fmt.Sprintf("This model's maximum context length is %d tokens. However, your messages "+
				"resulted in %d tokens. Please reduce the length of the messages.", w, n), "messages", "context_length_exceeded")
		}
	}
	return 0, ""
}

// checkMessages enforces the message sequence rules: every tool message
// answers a call of the assistant message right before its run, every call
// is answered before the next non-tool message, ids are unique within an
// assistant message (Kimi's ids such as "Read:0" repeat across turns) and
// names and ids are non-empty, assistants are not empty, and the
// conversation starts with a user message after any system and developer
// messages (no assistant or tool message before the first user message).
func (d chatDialect) checkMessages(msgs []chatWireMessage, kimi bool) (int, string) {
	var open []string // ids of the current assistant run not yet answered
	openAt := -1      // index of the assistant message that opened the run
	inRun := false    // only tool messages since that assistant message
	started := false  // a non-system message was seen
	unanswered := func() (int, string) {
		return reject400("An assistant message with 'tool_calls' must be followed by tool messages responding "+
			"to each 'tool_call_id'. The following tool_call_ids did not have response messages: "+
			strings.Join(open, ", "), fmt.Sprintf("messages.[%d].role", openAt), "")
	}
	for i, m := range msgs {
		switch m.Role {
		case "system", "developer", "user", "assistant", "tool":
		default:
			return reject400(fmt.Sprintf("Invalid value: '%s'. Supported values are: 'system', 'assistant', "+
				"'user', 'function', 'tool', and 'developer'.", m.Role), fmt.Sprintf("messages[%d].role", i), "invalid_value")
		}
		if m.Role != "tool" {
			if len(open) > 0 {
				return unanswered()
			}
			inRun = false
		}
		if !started && m.Role != "system" && m.Role != "developer" {
			started = true
			if m.Role != "user" {
				if kimi {
					return reject400(fmt.Sprintf("Invalid request: first message must use the user role "+
						"(after system messages), got '%s' at position %d", m.Role, i), "", "")
				}
				return reject400(fmt.Sprintf("Invalid 'messages': first message must use the user role (after system "+
					"and developer messages), got '%s' at position %d.", m.Role, i), fmt.Sprintf("messages[%d].role", i), "invalid_value")
			}
		}
		switch m.Role {
		case "assistant":
			if len(m.ToolCalls) == 0 && emptyContent(m.Content) {
				msg := fmt.Sprintf("the message at position %d with role 'assistant' must not be empty", i)
				if kimi {
					msg = "Invalid request: " + msg
				}
				return reject400(msg, fmt.Sprintf("messages[%d].content", i), "")
			}
			seen := map[string]bool{}
			for j, c := range m.ToolCalls {
				at := fmt.Sprintf("messages[%d].tool_calls[%d]", i, j)
				if c.ID == "" {
					return reject400(fmt.Sprintf("Invalid '%s.id': empty string. Expected a string with minimum "+
						"length 1, but got an empty string instead.", at), at+".id", "empty_string")
				}
				if c.Function.Name == "" {
					return reject400(fmt.Sprintf("Invalid '%s.function.name': empty string. Expected a string with "+
						"minimum length 1, but got an empty string instead.", at), at+".function.name", "empty_string")
				}
				if seen[c.ID] {
					return reject400(fmt.Sprintf("Invalid parameter: Duplicate value for 'tool_call_id' of %s in "+
						"message[%d]. Please ensure all function call IDs are unique.", c.ID, i), at+".id", "")
				}
				seen[c.ID] = true
				open = append(open, c.ID)
			}
			if len(m.ToolCalls) > 0 {
				openAt, inRun = i, true
			}
		case "tool":
			if m.ToolCallID == nil || *m.ToolCallID == "" {
				return reject400("Missing parameter 'tool_call_id': messages with role 'tool' must have a "+
					"'tool_call_id'.", fmt.Sprintf("messages.[%d].tool_call_id", i), "")
			}
			k := -1
			for j, id := range open {
				if id == *m.ToolCallID {
					k = j
				}
			}
			if !inRun || k < 0 {
				if kimi {
					return reject400("tool_call_id  is not found", fmt.Sprintf("messages[%d].tool_call_id", i), "")
				}
				return reject400("Invalid parameter: messages with role 'tool' must be a response to a preceeding "+
					"message with 'tool_calls'.", fmt.Sprintf("messages.[%d].role", i), "")
			}
			open = append(open[:k], open[k+1:]...)
		}
	}
	if len(open) > 0 {
		return unanswered()
	}
	return 0, ""
}

// emptyContent reports an absent, null, empty-string or empty-array content.
func emptyContent(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	switch string(raw) {
	case "", "null", `""`, "[]":
		return true
	}
	return false
}

// chunkMeta is the envelope of every streamed chunk.
type chunkMeta struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Created int64  `json:"created"`
	Model   string `json:"model"`
}

// fakeCreated is the fixed creation time of streamed chunks.
const fakeCreated = 1700000000

func (d chatDialect) chunk(id string, choices []map[string]any, usage map[string]any) string {
	v := struct {
		chunkMeta
		Choices []map[string]any `json:"choices"`
		Usage   map[string]any   `json:"usage,omitempty"`
	}{chunkMeta{id, "chat.completion.chunk", fakeCreated, d.o.Model}, choices, usage}
	if v.Choices == nil {
		v.Choices = []map[string]any{}
	}
	return sseEvent("", mustJSON(v))
}

func deltaChoice(delta map[string]any) []map[string]any {
	return []map[string]any{{"index": 0, "delta": delta, "logprobs": nil, "finish_reason": nil}}
}

// events encodes a reply: a role chunk, one chunk per part, a finish chunk,
// a usage chunk (OpenAI; Kimi puts usage in the finish chunk), and [DONE].
// NoFinish leaves out finish, usage and [DONE].
func (d chatDialect) events(r Reply) []string {
	id := r.ID
	if id == "" {
		id = "chatcmpl-fake"
	}
	out := []string{d.chunk(id, deltaChoice(map[string]any{"role": "assistant", "content": ""}), nil)}
	hasCalls := false
	for _, p := range r.Parts {
		var delta map[string]any
		switch p.Kind {
		case llm.KindContent:
			switch p.Content.Type {
			case llm.PartText:
				delta = map[string]any{"content": p.Content.Text}
			case llm.PartThink:
				delta = map[string]any{d.o.ReasoningKey: p.Content.Think}
			default:
				continue // Chat Completions does not stream media
			}
		case llm.KindToolCall:
			hasCalls = true
			fn := map[string]any{"arguments": p.ToolCall.Arguments}
			if p.ToolCall.Name != "" {
				fn["name"] = p.ToolCall.Name
			}
			call := map[string]any{"type": "function", "function": fn}
			if p.ToolCall.ID != "" {
				call["id"] = p.ToolCall.ID
			}
			if p.Indexed {
				call["index"] = p.Index
			}
			delta = map[string]any{"tool_calls": []any{call}}
		case llm.KindToolCallPart:
			call := map[string]any{"function": map[string]any{"arguments": p.ArgumentsPart}}
			if p.Indexed {
				call["index"] = p.Index
			}
			delta = map[string]any{"tool_calls": []any{call}}
		}
		out = append(out, d.chunk(id, deltaChoice(delta), nil))
	}
	if r.NoFinish {
		return out
	}
	finish := []map[string]any{{"index": 0, "delta": map[string]any{}, "logprobs": nil,
		"finish_reason": rawFinish(r, hasCalls)}}
	if r.Usage != nil && d.o.Flavour == ChatKimi {
		finish[0]["usage"] = d.usage(*r.Usage)
	}
	out = append(out, d.chunk(id, finish, nil))
	if r.Usage != nil && d.o.Flavour != ChatKimi {
		out = append(out, d.chunk(id, nil, d.usage(*r.Usage)))
	}
	return append(out, "data: [DONE]\n\n")
}

// usage renders u the flavour's way: Kimi reports cached tokens at the top
// level of usage, OpenAI under prompt_tokens_details.
func (d chatDialect) usage(u llm.TokenUsage) map[string]any {
	prompt := u.InputTotal()
	m := map[string]any{"prompt_tokens": prompt, "completion_tokens": u.Output, "total_tokens": prompt + u.Output}
	if d.o.Flavour == ChatKimi {
		m["cached_tokens"] = u.InputCacheRead
	} else {
		m["prompt_tokens_details"] = map[string]any{"cached_tokens": u.InputCacheRead}
	}
	return m
}

// rawFinish is the wire finish_reason for a reply.
func rawFinish(r Reply, hasCalls bool) string {
	if r.RawFinish != "" {
		return r.RawFinish
	}
	switch r.Finish {
	case llm.FinishCompleted:
		return "stop"
	case llm.FinishToolCalls:
		return "tool_calls"
	case llm.FinishTruncated:
		return "length"
	case llm.FinishFiltered:
		return "content_filter"
	case llm.FinishPaused, llm.FinishOther:
		return string(r.Finish)
	}
	if hasCalls {
		return "tool_calls"
	}
	return "stop"
}

func (chatDialect) errorEvent(msg string) string {
	return sseEvent("", mustJSON(map[string]any{"error": chatError{Message: msg, Type: "server_error"}}))
}

func (chatDialect) malformed() string {
	return "data: {\"id\":\"chatcmpl-fake\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"trunc\n\n"
}

// Preset faults for Chat Completions fakes. Their bodies are the ones the
// real services send.

// ChatRateLimited is a 429 asking the client to wait retryAfterSeconds.
func ChatRateLimited(retryAfterSeconds int) Reply {
	return Status(http.StatusTooManyRequests, encodeChatError(chatError{
		Message: "Rate limit reached for requests. Please try again in " + strconv.Itoa(retryAfterSeconds) + "s.",
		Type:    "requests", Code: strp("rate_limit_exceeded")}),
		"Retry-After", strconv.Itoa(retryAfterSeconds))
}

// ChatServerError is a 500.
func ChatServerError() Reply {
	return Status(http.StatusInternalServerError, encodeChatError(chatError{
		Message: "The server had an error while processing your request. Sorry about that!", Type: "server_error"}))
}

// ChatUnavailable is a 503 for an overloaded engine.
func ChatUnavailable() Reply {
	return Status(http.StatusServiceUnavailable, encodeChatError(chatError{
		Message: "The engine is currently overloaded, please try again later.", Type: "server_error"}))
}

// ChatTooLarge is a 413 for a body over the size limit.
func ChatTooLarge() Reply {
	return Status(http.StatusRequestEntityTooLarge, encodeChatError(chatError{
		Message: "Request exceeds the maximum size", Type: "invalid_request_error"}))
}

// ChatContextOverflow is Kimi's 400 for a prompt over the model's window.
func ChatContextOverflow(limit, requested int) Reply {
	return Status(http.StatusBadRequest, encodeChatError(chatError{
		Message: fmt.Sprintf("Invalid request: Your request exceeded model token limit: %d (requested: %d)", limit, requested),
		Type:    "invalid_request_error"}))
}

// ChatQuotaExhausted is Kimi's 429 for an account out of balance.
func ChatQuotaExhausted() Reply {
	return Status(http.StatusTooManyRequests, encodeChatError(chatError{
		Message: "Your account org-fake<ak-fake> is suspended due to insufficient balance, " +
			"please recharge your account or check your plan and billing details",
		Type: "exceeded_current_quota_error"}), "Retry-After", "1")
}

// ChatInsufficientQuota is OpenAI's 429 for an account out of quota.
func ChatInsufficientQuota() Reply {
	return Status(http.StatusTooManyRequests, encodeChatError(chatError{
		Message: "You exceeded your current quota, please check your plan and billing details.",
		Type:    "insufficient_quota", Code: strp("insufficient_quota")}))
}

// proxyErrorPage is what an nginx front answers when the upstream fails.
const proxyErrorPage = "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n" +
	"<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n"

// ChatProxyError is a 502 with an HTML page from a proxy in front of the
// service.
func ChatProxyError() Reply {
	return Status(http.StatusBadGateway, proxyErrorPage)
}
