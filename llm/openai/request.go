package openai

import (
	"bytes"
	"encoding/json"
	"maps"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/llm/internal/wire"
)

// Response format types of llm.ResponseFormat.
const (
	formatJSONObject = "json_object"
	formatJSONSchema = "json_schema"
)

// effortMedium is the openai flavour's automatic effort when the history
// holds thinking and nothing else chose an effort.
const effortMedium = "medium"

// protectedKeys are request keys the extra body may not replace: they carry
// the protocol itself.
var protectedKeys = map[string]bool{
	"model": true, "messages": true, "stream": true, "stream_options": true, "tools": true,
}

// reasoningModel matches OpenAI models that take max_completion_tokens; it
// is compiled on first use, not at process start.
var reasoningModel = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(?:o\d|gpt-5)(?:$|[-.])`) })

// encoder holds what message and tool encoding needs from the provider.
type encoder struct {
	kimi         bool
	reasoningKey ReasoningKey
}

// requestBody builds the request body with the field order of spec 01
// §3.2.1: model, messages, stream, sampling kwargs, prompt_cache_key, the
// completion cap, reasoning_effort (openai), extra body keys (sorted),
// response_format, tools, stream_options. The messages are encoded as the
// body is read (wire.Body).
func (p *Provider) requestBody(req *llm.Request) (*wire.Body[wireMessage], error) {
	e := &encoder{kimi: p.flavour == Kimi, reasoningKey: p.dialect.outbound()}
	msgs := llm.NormalizeToolCalls(req.Messages)
	var msgWire []wireMessage
	var err error
	if e.kimi {
		msgWire, err = convertKimi(msgs, p.body.preservedThinking())
	} else {
		msgWire, err = convertOpenAI(msgs, p.toolConv)
	}
	if err != nil {
		return nil, err
	}
	extra, err := p.extraFields()
	if err != nil {
		return nil, err
	}
	overridden := func(k string) bool { _, ok := extra[k]; return ok }

	w := newWriter()
	w.beginObject()
	w.strField("model", p.model)
	w.key("messages")
	w.beginArray()
	if req.System != "" {
		w.beginObject()
		w.strField("role", string(llm.RoleSystem))
		w.strField("content", req.System)
		w.endObject()
	}
	head := bytes.Clone(w.bytes())
	w.buf.Reset()
	w.endArray()
	w.key("stream")
	w.bool(true)

	k := p.kwargs
	floatField := func(name string, v *float64) {
		if v != nil && !overridden(name) {
			b, _ := json.Marshal(*v) // NaN and Inf were rejected above
			w.rawField(name, b)
		}
	}
	for _, f := range []*float64{k.Temperature, k.TopP, k.PresencePenalty, k.FrequencyPenalty} {
		if f != nil && !validFloat(*f) {
			return nil, invalidRequest("generation kwargs: %v is not a JSON number", *f)
		}
	}
	floatField("temperature", k.Temperature)
	floatField("top_p", k.TopP)
	if k.N != nil && !overridden("n") {
		w.intField("n", *k.N)
	}
	floatField("presence_penalty", k.PresencePenalty)
	floatField("frequency_penalty", k.FrequencyPenalty)
	if len(k.Stop) > 0 && !overridden("stop") {
		w.key("stop")
		w.beginArray()
		for _, s := range k.Stop {
			w.str(s)
		}
		w.endArray()
	}
	if p.cacheKey != "" && !overridden("prompt_cache_key") {
		w.strField("prompt_cache_key", p.cacheKey)
	}
	if limit := p.MaxCompletionTokens(); limit > 0 {
		if f := p.capField(); !overridden(f) {
			w.intField(f, limit)
		}
	}
	if !e.kimi {
		if eff := p.reasoningEffort(req.Messages); eff != "" && !overridden("reasoning_effort") {
			w.strField("reasoning_effort", eff)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(extra)) {
		if name == thinkingKey && e.kimi && p.body.thinking != nil {
			w.key(name)
			p.body.encodeThinking(w)
			continue
		}
		w.rawField(name, extra[name])
	}
	if req.ResponseFormat != nil {
		w.key("response_format")
		if err := encodeResponseFormat(w, req.ResponseFormat); err != nil {
			return nil, err
		}
	}
	// The tool table is sent from the cache as it is, not copied into the
	// tail; "stream" always precedes it, so its key starts with a comma.
	more := onlyStreamOptions[:]
	if len(req.Tools) > 0 {
		tools, err := p.tools.encode(e, req.Tools)
		if err != nil {
			return nil, err
		}
		more = [][]byte{keyTools, tools, streamOptions}
	}
	return wire.NewBody(wire.BodyParts[wireMessage]{
		Head: head, Tail: w.bytes(), More: more, Messages: msgWire, Comma: req.System != "",
		Encode: func(dst []byte, m *wireMessage) ([]byte, error) { return appendMessage(dst, m, e) },
		Sizes:  p.sizes, Key: *e, Equal: sameMessage,
	})
}

// Pieces of the body after the tail: the tool table's key, and the last
// field, which closes the body. Never changed.
var (
	keyTools          = []byte(`,"tools":`)
	streamOptions     = []byte(`,"stream_options":{"include_usage":true}}`)
	onlyStreamOptions = [1][]byte{streamOptions}
)

func validFloat(f float64) bool { _, err := json.Marshal(f); return err == nil }

// extraFields returns the extra body keys to hoist, after checking that
// every value is JSON. Protected keys are dropped. Kimi's thinking object is
// listed under "thinking" with a nil value and encoded separately.
func (p *Provider) extraFields() (map[string]json.RawMessage, error) {
	out := make(map[string]json.RawMessage, len(p.body.keys)+1)
	for k, v := range p.body.keys {
		if protectedKeys[k] {
			p.log.Debug("extra body key ignored", "key", k)
			continue
		}
		if !json.Valid(v) {
			return nil, invalidRequest("extra body key %q is not valid JSON", k)
		}
		out[k] = v
	}
	if p.flavour == Kimi && p.body.thinking != nil {
		for k, v := range p.body.thinking {
			if !json.Valid(v) {
				return nil, invalidRequest("thinking.%s is not valid JSON", k)
			}
		}
		out[thinkingKey] = nil
	}
	return out, nil
}

// capField is the wire name of the completion cap: Kimi and OpenAI
// reasoning models (o1…, gpt-5…) take max_completion_tokens, other OpenAI
// models max_tokens.
func (p *Provider) capField() string {
	if p.flavour == OpenAI && !reasoningModel().MatchString(strings.ToLower(p.model)) {
		return "max_tokens"
	}
	return "max_completion_tokens"
}

// reasoningEffort is the openai flavour's reasoning_effort (spec 01 §3.3):
// "off" sends the configured off value or nothing; none and "on" send
// nothing; other efforts go verbatim. When nothing was chosen and the
// history holds thinking, "medium" keeps the model reasoning, unless the
// kwargs carry their own effort.
func (p *Provider) reasoningEffort(history []llm.Message) string {
	switch p.effort {
	case effortOff:
		return p.offEffort
	case "", effortOn:
	default:
		return p.effort
	}
	if p.kwargs.ReasoningEffort != "" {
		return p.kwargs.ReasoningEffort
	}
	for _, m := range history {
		for _, c := range m.Content {
			if c.Type == llm.PartThink {
				return effortMedium
			}
		}
	}
	return ""
}

func encodeResponseFormat(w *writer, f *llm.ResponseFormat) error {
	w.beginObject()
	switch f.Type {
	case formatJSONObject:
		w.strField("type", formatJSONObject)
	case formatJSONSchema:
		if len(f.Schema) == 0 || !json.Valid(f.Schema) {
			return invalidRequest("response format %q: schema is not valid JSON", f.Name)
		}
		w.strField("type", formatJSONSchema)
		w.key(formatJSONSchema)
		w.beginObject()
		w.strField("name", f.Name)
		w.rawField("schema", f.Schema)
		if f.Strict != nil {
			w.key("strict")
			w.bool(*f.Strict)
		}
		if f.Description != "" {
			w.strField("description", f.Description)
		}
		w.endObject()
	default:
		return invalidRequest("unknown response format type %q", f.Type)
	}
	w.endObject()
	return nil
}

// encodeTools writes a tool array. Kimi sends $-named tools as builtin
// functions and normalises schemas; the openai flavour sends schemas
// byte-for-byte.
// toolsCache holds the encoded tool table of the last request. The table
// is the same from one step to the next (the agent rebuilds it only when
// its tools change), and encoding it, with a validation of every schema,
// was the largest part of encoding a request; a request whose tools equal
// the last one's reuses the bytes. Safe for concurrent use.
type toolsCache struct {
	mu    sync.Mutex
	kimi  bool
	tools []llm.Tool // a copy of the table enc encodes; its strings and schemas share the caller's bytes
	enc   []byte     // never changed once stored
}

// encode returns tools encoded as a JSON array, from the cache when they
// equal the last table encoded for the same flavour. Equal tables share
// their strings and schemas, so comparing them costs little.
func (c *toolsCache) encode(e *encoder, tools []llm.Tool) ([]byte, error) {
	c.mu.Lock()
	if c.enc != nil && c.kimi == e.kimi && slices.EqualFunc(c.tools, tools, sameTool) {
		enc := c.enc
		c.mu.Unlock()
		return enc, nil
	}
	c.mu.Unlock()
	// Sized for the table up front (escapes and Kimi's added types take
	// the eighth added), not grown to twice its size a doubling at a time.
	size := 2
	for _, t := range tools {
		size += 64 + len(t.Name) + len(t.Description) + len(t.Parameters)
	}
	w := newWriterOn(make([]byte, 0, size+size/8))
	if err := e.encodeTools(w, tools); err != nil {
		return nil, err
	}
	enc := w.bytes()
	c.mu.Lock()
	c.kimi, c.tools, c.enc = e.kimi, slices.Clone(tools), enc
	c.mu.Unlock()
	return enc, nil
}

// sameTool reports whether a and b encode the same.
func sameTool(a, b llm.Tool) bool {
	return a.Name == b.Name && a.Description == b.Description && bytes.Equal(a.Parameters, b.Parameters) &&
		a.Deferred == b.Deferred
}

// kimiSchemas keeps the Kimi form of tool schemas by their source, per
// process: each provider (a subagent's, a model switch's) encodes the
// same builtin schemas once more, and normalizing one decodes and
// re-encodes it whole. At most maxKimiSchemas are kept; a stored schema
// is never changed.
var (
	kimiSchemas     sync.Map // string → json.RawMessage
	kimiSchemaCount atomic.Int64
)

const maxKimiSchemas = 512

// normalizedKimiSchema is NormalizeKimiSchema, kept in kimiSchemas.
func normalizedKimiSchema(params json.RawMessage) (json.RawMessage, error) {
	if s, ok := kimiSchemas.Load(string(params)); ok {
		return s.(json.RawMessage), nil
	}
	s, err := NormalizeKimiSchema(params)
	if err == nil && kimiSchemaCount.Add(1) <= maxKimiSchemas {
		kimiSchemas.Store(string(params), json.RawMessage(bytes.Clone(s)))
	}
	return s, err
}

func (e *encoder) encodeTools(w *writer, tools []llm.Tool) error {
	w.beginArray()
	for _, t := range tools {
		if e.kimi && t.IsBuiltin() {
			w.beginObject()
			w.strField("type", "builtin_function")
			w.key("function")
			w.beginObject()
			w.strField("name", t.Name)
			w.endObject()
			w.endObject()
			continue
		}
		params := t.Parameters
		if len(params) > 0 {
			if !json.Valid(params) {
				return invalidRequest("tool %s: parameters are not valid JSON", t.Name)
			}
			if e.kimi {
				var err error
				if params, err = normalizedKimiSchema(params); err != nil {
					return invalidRequest("tool %s: %v", t.Name, err)
				}
			}
		}
		w.beginObject()
		w.strField("type", "function")
		w.key("function")
		w.beginObject()
		w.strField("name", t.Name)
		w.strField("description", t.Description)
		if len(params) > 0 {
			w.rawField("parameters", params)
		}
		w.endObject()
		w.endObject()
	}
	w.endArray()
	return nil
}
