package anthropic

import (
	"bytes"
	"encoding/json"
	"slices"
	"sync"

	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/llm/internal/wire"
	"github.com/kimigo/kimigo/llm/plainjson"
)

// requestBody is the Messages request. Field order is the wire order, and
// optional keys are absent rather than empty.
type requestBody struct {
	Model    string        `json:"model"`
	Messages []wireMessage `json:"messages"`
	requestOptions
}

// requestOptions are the fields after the messages. encoding/json promotes
// them into the body; newBody writes the settings with encoding/json and
// the rest by hand (appendTail). System and Tools are encoded already: the
// system blocks and the tool table are the same from one step to the
// next, and are encoded once while they stay so (promptCache).
type requestOptions struct {
	settings
	System   json.RawMessage `json:"system,omitempty"` // an array of one text block
	Tools    json.RawMessage `json:"tools,omitempty"`  // an array of wireTool
	Metadata *metadata       `json:"metadata,omitempty"`
	Stream   bool            `json:"stream"`
}

// settings are the provider's generation settings and the response format.
type settings struct {
	MaxTokens         int                `json:"max_tokens"`
	Temperature       *float64           `json:"temperature,omitempty"`
	TopK              *int               `json:"top_k,omitempty"`
	TopP              *float64           `json:"top_p,omitempty"`
	Thinking          *thinkingParam     `json:"thinking,omitempty"`
	OutputConfig      *outputConfig      `json:"output_config,omitempty"`
	ContextManagement *contextManagement `json:"context_management,omitempty"`
}

// thinkingParam is the thinking setting. BudgetTokens is a pointer because
// Kimi's {type:"enabled"} must go without it.
type thinkingParam struct {
	Type         thinkingType `json:"type"`
	BudgetTokens *int         `json:"budget_tokens,omitempty"`
	Display      string       `json:"display,omitempty"`
}

// outputConfig carries the effort and a structured-output format.
type outputConfig struct {
	Effort string        `json:"effort,omitempty"`
	Format *outputFormat `json:"format,omitempty"`
}

// formatJSONSchema is the only structured-output format Anthropic takes.
const formatJSONSchema = "json_schema"

type outputFormat struct {
	Type   string          `json:"type"`
	Schema json.RawMessage `json:"schema"`
}

type contextManagement struct {
	Edits []contextEdit `json:"edits"`
}

type contextEdit struct {
	Type string `json:"type"`
	Keep string `json:"keep,omitempty"`
}

type metadata struct {
	UserID string `json:"user_id"`
}

// cacheEphemeral is the only cache_control type.
const cacheEphemeral = "ephemeral"

type cacheControl struct {
	Type string `json:"type"`
}

var ephemeral = &cacheControl{Type: cacheEphemeral}

type wireTool struct {
	Name         string          `json:"name"`
	Description  string          `json:"description"`
	InputSchema  json.RawMessage `json:"input_schema"`
	CacheControl *cacheControl   `json:"cache_control,omitempty"`
}

// encodeTools is the tool table on the wire, with the prompt-cache
// breakpoint on its last tool.
func encodeTools(tools []llm.Tool) (json.RawMessage, error) {
	wt := make([]wireTool, len(tools))
	for i, t := range tools {
		schema := t.Parameters
		if len(bytes.TrimSpace(schema)) == 0 {
			schema = emptySchema
		}
		wt[i] = wireTool{Name: t.Name, Description: t.Description, InputSchema: schema}
	}
	wt[len(wt)-1].CacheControl = ephemeral
	return plainjson.Marshal(wt)
}

// promptCache holds the encoded system blocks and tool table of the last
// request. Both are the same from one step to the next (the agent rebuilds
// them only when its prompt or tools change), and encoding the tool table,
// with a validation of every schema, was the largest part of encoding a
// request's options; a request whose system prompt or tools equal the last
// one's reuses their bytes. Safe for concurrent use; copies of a Provider
// share one.
type promptCache struct {
	mu        sync.Mutex
	prompt    string
	systemEnc json.RawMessage // never changed once stored
	toolList  []llm.Tool      // a copy of the table toolsEnc encodes; its strings and schemas share the caller's bytes
	toolsEnc  json.RawMessage // never changed once stored
}

// system returns the system blocks for prompt: one text block carrying a
// prompt-cache breakpoint.
func (c *promptCache) system(prompt string) json.RawMessage {
	c.mu.Lock()
	if c.systemEnc != nil && c.prompt == prompt { // the same string compares by pointer
		enc := c.systemEnc
		c.mu.Unlock()
		return enc
	}
	c.mu.Unlock()
	enc, err := plainjson.Marshal([]*textBlock{{Type: blockText, Text: prompt, CacheControl: ephemeral}})
	if err != nil {
		panic(err) // strings always encode
	}
	c.mu.Lock()
	c.prompt, c.systemEnc = prompt, enc
	c.mu.Unlock()
	return enc
}

// tools returns tools encoded, from the cache when they equal the last
// table encoded. Equal tables share their strings and schemas, so
// comparing them costs little. A table that cannot be encoded is not
// stored.
func (c *promptCache) tools(tools []llm.Tool) (json.RawMessage, error) {
	c.mu.Lock()
	if c.toolsEnc != nil && slices.EqualFunc(c.toolList, tools, sameTool) {
		enc := c.toolsEnc
		c.mu.Unlock()
		return enc, nil
	}
	c.mu.Unlock()
	enc, err := encodeTools(tools)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.toolList, c.toolsEnc = slices.Clone(tools), enc
	c.mu.Unlock()
	return enc, nil
}

// sameTool reports whether a and b encode the same on this wire.
func sameTool(a, b llm.Tool) bool {
	return a.Name == b.Name && a.Description == b.Description && bytes.Equal(a.Parameters, b.Parameters)
}

// emptySchema stands in for a tool without parameters: input_schema is
// required on the wire.
var emptySchema = json.RawMessage(`{"type":"object","properties":{}}`)

// newBody is the request as plainjson.Marshal(b) would marshal it, encoded a
// message at a time as the transport reads it (wire.Body): no buffer the
// size of the conversation is allocated, and encoding/json's buffer pool,
// which keeps the buffer of every Encode for the next one, holds nothing
// larger than the settings (a whole conversation in one Encode left a
// request-sized buffer there after every request, issue 13 item 8): the
// messages are encoded by hand (encode.go), and the system blocks and the
// tool table come encoded from the prompt cache.
func newBody(b *requestBody, sizes *wire.Sizes[wireMessage]) (*wire.Body[wireMessage], error) {
	head := make([]byte, 0, len(b.Model)+len(`{"model":"","messages":[`)+8)
	head = append(head, `{"model":`...)
	head = plainjson.AppendQuote(head, b.Model)
	head = append(head, `,"messages":`...)
	var tail bytes.Buffer
	if b.Messages == nil {
		head = append(head, "null"...)
	} else {
		head = append(head, '[')
		tail.WriteByte(']')
	}
	more, err := appendTail(&tail, &b.requestOptions)
	if err != nil {
		return nil, err
	}
	return wire.NewBody(wire.BodyParts[wireMessage]{
		Head: head, Tail: tail.Bytes(), More: more, Messages: b.Messages, Sizes: sizes, Equal: sameMessage,
		Encode: func(dst []byte, m *wireMessage) ([]byte, error) { return appendMessage(dst, m), nil },
	})
}

// Pieces of the options that appendTail returns as they are.
var (
	keyTools    = []byte(`,"tools":`)
	streamTrue  = []byte(`,"stream":true}`)
	streamFalse = []byte(`,"stream":false}`)
)

// appendTail writes o as encoding/json would, without its opening "{" (the
// options continue the body): the settings to tail, then the rest as
// pieces to send after it. The system blocks and the tool table are
// pieces of their own, sent from the prompt cache without a copy.
func appendTail(tail *bytes.Buffer, o *requestOptions) ([][]byte, error) {
	n := tail.Len()
	if err := plainjson.Write(tail, &o.settings); err != nil {
		return nil, err
	}
	tail.Bytes()[n] = ','         // the settings object's "{" continues the body
	tail.Truncate(tail.Len() - 1) // and its "}" is the options'
	more := make([][]byte, 0, 4)
	if len(o.System) > 0 {
		tail.WriteString(`,"system":`)
		more = append(more, o.System)
	}
	if len(o.Tools) > 0 {
		more = append(more, keyTools, o.Tools)
	}
	end := streamTrue
	if !o.Stream {
		end = streamFalse
	}
	if o.Metadata != nil {
		meta := make([]byte, 0, len(o.Metadata.UserID)+48)
		meta = append(meta, `,"metadata":{"user_id":`...)
		meta = plainjson.AppendQuote(meta, o.Metadata.UserID)
		end = append(append(meta, '}'), end...)
	}
	return append(more, end), nil
}

// buildBody turns one request into the wire body. Every failure is an
// *llm.Error raised before anything is sent.
func (p *Provider) buildBody(req *llm.Request) (*requestBody, error) {
	msgs, err := convertMessages(p.model, req.Messages)
	if err != nil {
		return nil, err
	}
	b := &requestBody{Model: p.model, Messages: msgs, requestOptions: requestOptions{settings: settings{
		MaxTokens:   p.maxTokens,
		Temperature: p.temperature,
		TopK:        p.topK,
		TopP:        p.topP,
		Thinking:    p.thinking,
	}, Stream: true}}
	if p.effort != "" {
		b.OutputConfig = &outputConfig{Effort: p.effort}
	}
	if rf := req.ResponseFormat; rf != nil {
		if rf.Type != formatJSONSchema {
			return nil, invalidRequestf("anthropic: response format %q is not supported; Anthropic needs a JSON schema for structured output", rf.Type)
		}
		if b.OutputConfig == nil {
			b.OutputConfig = &outputConfig{}
		}
		b.OutputConfig.Format = &outputFormat{Type: formatJSONSchema, Schema: rf.Schema}
	}
	if len(p.contextEdits) > 0 {
		b.ContextManagement = &contextManagement{Edits: p.contextEdits}
	}
	if req.System != "" {
		b.System = p.prompt.system(req.System)
	}
	if len(req.Tools) > 0 {
		if b.Tools, err = p.prompt.tools(req.Tools); err != nil {
			return nil, invalidRequestf("anthropic: encode request: %v", err)
		}
	}
	if p.metadataUserID != "" {
		b.Metadata = &metadata{UserID: p.metadataUserID}
	}
	return b, nil
}
