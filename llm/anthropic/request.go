package anthropic

import (
	"bytes"
	"encoding/json"

	"github.com/kimigo/kimigo/llm"
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

// encodeBody marshals the request as plainjson.Marshal(b) would, one message at
// a time. encoding/json keeps the buffer of every Encode in a pool for the
// next one, and a whole conversation in one Encode left a buffer the size
// of the request in that pool after every request: a long session on this
// wire held several of them, about three times the live heap of the Chat
// Completions wire (issue 13 item 8). The pooled buffers are now as large
// as one message.
//
// sizeHint, when positive, is what the buffer is allocated with
// (llm.BodySizeHint).
func encodeBody(b *requestBody, sizeHint int) ([]byte, error) {
	var buf bytes.Buffer
	buf.Grow(sizeHint)
	buf.WriteString(`{"model":`)
	if err := plainjson.Write(&buf, b.Model); err != nil {
		return nil, err
	}
	buf.WriteString(`,"messages":`)
	if b.Messages == nil {
		buf.WriteString("null")
	} else {
		buf.WriteByte('[')
		for i := range b.Messages {
			if i > 0 {
				buf.WriteByte(',')
			}
			if err := plainjson.Write(&buf, &b.Messages[i]); err != nil {
				return nil, err
			}
		}
		buf.WriteByte(']')
	}
	opts := buf.Len()
	if err := plainjson.Write(&buf, &b.requestOptions); err != nil {
		return nil, err
	}
	buf.Bytes()[opts] = ',' // the options object's "{" continues the body
	return buf.Bytes(), nil
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
