package agent

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"hash"
	"slices"
	"sync"

	"github.com/kimigo/kimigo/agent/records"
	"github.com/kimigo/kimigo/agent/turn"
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/llm/plainjson"
	"github.com/kimigo/kimigo/loop"
)

// requestRecord is the payload of llm.request (spec 02 §6.3): the shape of
// one request attempt, never its content.
type requestRecord struct {
	Kind             string          `json:"kind"`
	Provider         string          `json:"provider"`
	Model            string          `json:"model"`
	ModelAlias       string          `json:"modelAlias,omitempty"`
	ThinkingEffort   string          `json:"thinkingEffort,omitempty"`
	MaxTokens        int             `json:"maxTokens,omitempty"`
	ToolSelect       bool            `json:"toolSelect"`
	SystemPromptHash string          `json:"systemPromptHash"`
	ToolsHash        string          `json:"toolsHash"`
	MessageCount     int             `json:"messageCount"`
	TurnStep         string          `json:"turnStep,omitempty"`
	Attempt          string          `json:"attempt,omitempty"`
	Projection       loop.Projection `json:"projection,omitempty"`
	DroppedCount     int             `json:"droppedCount,omitempty"`
}

// toolsSnapshot is the payload of llm.tools_snapshot: a tool table the
// model was offered, written once per distinct table.
type toolsSnapshot struct {
	Hash  string        `json:"hash"`
	Tools []toolSummary `json:"tools"`
}

type toolSummary struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

// generate is the choke point of every model request (spec 03 §2.1): it
// records the request's shape and sends the request once every record so
// far is written; their fsync runs while the request is out, and nothing
// of the response is handed on before it completed (ERRATA 6: the
// records a response builds on are durable before any of it counts).
func (a *Agent) generate(ctx context.Context, p llm.Provider, req llm.Request, cb llm.Callbacks,
	f loop.RequestLogFields) (*llm.Result, error) {
	if ctx.Err() != nil {
		return nil, llm.Aborted(ctx)
	}
	a.recordRequest(ctx, p, req, f)
	a.logger.Debug("model request", "model", p.ModelName(), "turn_step", f.TurnStep, "attempt", f.Attempt,
		"projection", string(f.Projection), "messages", len(req.Messages), "tools", len(req.Tools))
	durable, err := a.log.Stage(ctx)
	if err != nil {
		return nil, &turn.FlushError{Err: err}
	}
	return generateWhileSyncing(ctx, p, req, cb, durable)
}

// generateWhileSyncing sends req while durable waits for the records
// before it; the first streamed part, assembled call or stream end, and
// the result, wait for it. When it fails, the request is cancelled and the
// error is a turn.FlushError; a cancelled ctx stays a cancellation.
func generateWhileSyncing(ctx context.Context, p llm.Provider, req llm.Request, cb llm.Callbacks,
	durable func(context.Context) error) (*llm.Result, error) {
	gctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var (
		once sync.Once
		ferr error
	)
	wait := func() error {
		once.Do(func() {
			if ferr = durable(gctx); ferr != nil {
				cancel(ferr)
			}
		})
		return ferr
	}
	if part := cb.OnMessagePart; part != nil {
		cb.OnMessagePart = func(sp llm.StreamPart) {
			if wait() == nil {
				part(sp)
			}
		}
	}
	if call := cb.OnToolCall; call != nil {
		cb.OnToolCall = func(tc llm.ToolCall) {
			if wait() == nil {
				call(tc)
			}
		}
	}
	if end := cb.OnStreamEnd; end != nil {
		cb.OnStreamEnd = func(st *llm.StreamStats) {
			if wait() == nil {
				end(st)
			}
		}
	}
	res, err := llm.Generate(gctx, p, req, cb)
	if ctx.Err() != nil {
		return res, err
	}
	if werr := wait(); werr != nil {
		return nil, &turn.FlushError{Err: werr}
	}
	return res, err
}

// recordRequest writes llm.request, and llm.tools_snapshot for a tool
// table not written before. Failures are logged: they are observability.
func (a *Agent) recordRequest(ctx context.Context, p llm.Provider, req llm.Request, f loop.RequestLogFields) {
	if !a.log.ObservabilityReady() {
		return
	}
	toolsHash, systemHash, tools := a.requestHashes(req)
	a.mu.Lock()
	fresh := !a.toolsHashes[toolsHash]
	alias := a.config.ModelAlias
	a.mu.Unlock()
	kind := f.Kind
	if kind == "" {
		kind = loop.RequestKindLoop
	}
	if fresh {
		if _, err := a.commitPayload(ctx, records.TypeToolsSnapshot, toolsSnapshot{Hash: toolsHash, Tools: tools}); err != nil {
			a.logger.Warn("record tool table failed", "error", err)
		}
	}
	rec := requestRecord{Kind: kind, Provider: p.Name(), Model: p.ModelName(), ModelAlias: alias,
		ThinkingEffort: p.ThinkingEffort(), MaxTokens: p.MaxCompletionTokens(),
		SystemPromptHash: systemHash, ToolsHash: toolsHash, MessageCount: len(req.Messages),
		TurnStep: f.TurnStep, Attempt: f.Attempt, Projection: f.Projection, DroppedCount: f.DroppedCount}
	if _, err := a.commitPayload(ctx, records.TypeLLMRequest, rec); err != nil {
		a.logger.Warn("record request failed", "error", err)
	}
}

// requestHashes returns the hashes of req's offered tools and system
// prompt, and the tool summaries. Both rarely change between requests:
// the last ones are kept and compared, so a step hashes (and encodes its
// tool table) only when they changed.
func (a *Agent) requestHashes(req llm.Request) (toolsHash, systemHash string, tools []toolSummary) {
	a.hashMu.Lock()
	defer a.hashMu.Unlock()
	c := &a.hashes
	if !c.set || !slices.EqualFunc(c.tools, req.Tools, sameTool) {
		tools = make([]toolSummary, 0, len(req.Tools))
		for _, t := range req.Tools {
			if !t.Deferred {
				tools = append(tools, toolSummary{Name: t.Name, Description: t.Description, Parameters: t.Parameters})
			}
		}
		c.tools, c.toolsHash, c.summaries = slices.Clone(req.Tools), hashSummaries(tools), tools
	}
	if !c.set || c.system != req.System {
		c.system, c.systemHash = req.System, hashText(req.System)
	}
	c.set = true
	return c.toolsHash, c.systemHash, c.summaries
}

// requestHashCache is what requestHashes keeps from the last request.
type requestHashCache struct {
	set                   bool
	tools                 []llm.Tool
	summaries             []toolSummary
	toolsHash, systemHash string
	system                string
}

func sameTool(a, b llm.Tool) bool {
	return a.Name == b.Name && a.Description == b.Description && a.Deferred == b.Deferred &&
		bytes.Equal(a.Parameters, b.Parameters)
}

// hashText is the hex SHA-256 of s. The text goes to the hash a piece at
// a time: a system prompt is not copied to be hashed.
func hashText(s string) string {
	h := sha256.New()
	writeHashString(h, s)
	return hex.EncodeToString(h.Sum(nil))
}

func writeHashString(h hash.Hash, s string) {
	var buf [1024]byte
	for len(s) > 0 {
		n := copy(buf[:], s)
		h.Write(buf[:n])
		s = s[n:]
	}
}

// hashSummaries is the hex SHA-256 of tools as plainjson.Marshal encodes
// them (the llm.tools_snapshot hash), written straight to the hash a
// summary at a time instead of encoding the table into memory first; a
// table that does not encode hashes as no bytes, as before.
// TestHashSummariesIsTheHashOfTheEncoding pins the equality.
func hashSummaries(tools []toolSummary) string {
	h := sha256.New()
	if tools == nil {
		h.Write([]byte("null"))
		return hex.EncodeToString(h.Sum(nil))
	}
	var params bytes.Buffer
	buf := make([]byte, 0, 4096)
	buf = append(buf, '[')
	for i, t := range tools {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, `{"name":`...)
		buf = plainjson.AppendQuote(buf, t.Name)
		buf = append(buf, `,"description":`...)
		h.Write(buf)
		buf = plainjson.AppendQuote(buf[:0], t.Description) // the largest part: the buffer grows to the longest
		h.Write(buf)
		buf = append(buf[:0], `,"parameters":`...)
		if t.Parameters == nil {
			buf = append(buf, "null"...)
		} else {
			// Raw JSON is compacted as encoding/json writes it, and
			// invalid JSON fails the encoding.
			params.Reset()
			if err := json.Compact(&params, t.Parameters); err != nil {
				return hashText("")
			}
			h.Write(buf)
			h.Write(params.Bytes())
			buf = buf[:0]
		}
		buf = append(buf, '}')
	}
	buf = append(buf, ']')
	h.Write(buf)
	return hex.EncodeToString(h.Sum(nil))
}
