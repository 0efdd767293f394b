package anthropic

import (
	"bytes"
	"encoding/json"

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
// them into the body; encodeBody writes them in one piece.
type requestOptions struct {
	MaxTokens         int                `json:"max_tokens"`
	Temperature       *float64           `json:"temperature,omitempty"`
	TopK              *int               `json:"top_k,omitempty"`
	TopP              *float64           `json:"top_p,omitempty"`
	Thinking          *thinkingParam     `json:"thinking,omitempty"`
	OutputConfig      *outputConfig      `json:"output_config,omitempty"`
	ContextManagement *contextManagement `json:"context_management,omitempty"`
	System            []*textBlock       `json:"system,omitempty"`
	Tools             []wireTool         `json:"tools,omitempty"`
	Metadata          *metadata          `json:"metadata,omitempty"`
	Stream            bool               `json:"stream"`
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

// emptySchema stands in for a tool without parameters: input_schema is
// required on the wire.
var emptySchema = json.RawMessage(`{"type":"object","properties":{}}`)

// newBody is the request as plainjson.Marshal(b) would marshal it, encoded a
// message at a time as the transport reads it (wire.Body): no buffer the
// size of the conversation is allocated, and encoding/json's buffer pool,
// which keeps the buffer of every Encode for the next one, holds nothing
// larger than one message (a whole conversation in one Encode left a
// request-sized buffer there after every request, issue 13 item 8).
func newBody(b *requestBody, sizes *wire.Sizes[wireMessage]) (*wire.Body[wireMessage], error) {
	var head bytes.Buffer
	head.WriteString(`{"model":`)
	if err := plainjson.Write(&head, b.Model); err != nil {
		return nil, err
	}
	head.WriteString(`,"messages":`)
	var tail bytes.Buffer
	if b.Messages == nil {
		head.WriteString("null")
	} else {
		head.WriteByte('[')
		tail.WriteByte(']')
	}
	opts := tail.Len()
	if err := plainjson.Write(&tail, &b.requestOptions); err != nil {
		return nil, err
	}
	tail.Bytes()[opts] = ',' // the options object's "{" continues the body
	return wire.NewBody(wire.BodyParts[wireMessage]{
		Head: head.Bytes(), Tail: tail.Bytes(), Messages: b.Messages, Sizes: sizes,
		Encode: func(dst []byte, m *wireMessage) ([]byte, error) {
			buf := bytes.NewBuffer(dst)
			if err := plainjson.Write(buf, m); err != nil {
				return nil, err
			}
			return buf.Bytes(), nil
		},
	})
}

// buildBody turns one request into the wire body. Every failure is an
// *llm.Error raised before anything is sent.
func (p *Provider) buildBody(req *llm.Request) (*requestBody, error) {
	msgs, err := convertMessages(p.model, req.Messages)
	if err != nil {
		return nil, err
	}
	b := &requestBody{Model: p.model, Messages: msgs, requestOptions: requestOptions{
		MaxTokens:   p.maxTokens,
		Temperature: p.temperature,
		TopK:        p.topK,
		TopP:        p.topP,
		Thinking:    p.thinking,
		Stream:      true,
	}}
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
		b.System = []*textBlock{{Type: blockText, Text: req.System, CacheControl: ephemeral}}
	}
	for _, t := range req.Tools {
		schema := t.Parameters
		if len(bytes.TrimSpace(schema)) == 0 {
			schema = emptySchema
		}
		b.Tools = append(b.Tools, wireTool{Name: t.Name, Description: t.Description, InputSchema: schema})
	}
	if n := len(b.Tools); n > 0 {
		b.Tools[n-1].CacheControl = ephemeral
	}
	if p.metadataUserID != "" {
		b.Metadata = &metadata{UserID: p.metadataUserID}
	}
	return b, nil
}
