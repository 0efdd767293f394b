package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"slices"
	"strings"

	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/loop"
)

//go:embed select_tools.md
var selectToolsMD string

const selectToolsSchema = `{
  "type": "object",
  "properties": {
    "names": {"type": "array", "items": {"type": "string"}, "minItems": 1, "description": "Exact names of the tools to load, as announced."}
  },
  "required": ["names"],
  "additionalProperties": false
}`

// SelectTools is the select_tools tool of progressive disclosure (spec 05
// §2.6, §4.17): it loads the definitions of announced tools into history,
// after which the executable table offers them. Its description never
// names tools, so it stays byte-stable.
type SelectTools struct {
	m   *Manager
	ctx ContextAppender
	def llm.Tool
}

func newSelectTools(m *Manager, ctx ContextAppender) *SelectTools {
	return &SelectTools{m: m, ctx: ctx, def: definition(NameSelectTools, selectToolsMD, nil, selectToolsSchema)}
}

// Definition implements loop.ExecutableTool.
func (t *SelectTools) Definition() llm.Tool { return t.def }

// ResolveExecution implements loop.ExecutableTool. Two calls never run at
// once (no accesses declared: all), so a schema is never appended twice.
func (t *SelectTools) ResolveExecution(raw json.RawMessage) (loop.Execution, *loop.ToolResult, error) {
	var a struct {
		Names []string `json:"names"`
	}
	if r := decodeArgs(NameSelectTools, raw, &a); r != nil {
		return loop.Execution{}, r, nil
	}
	return loop.Execution{
		Description:  "Loading tools",
		ApprovalRule: NameSelectTools,
		Execute:      func(ctx context.Context, _ loop.ExecCtx) (loop.ToolResult, error) { return t.load(ctx, a.Names) },
	}, nil, nil
}

func (t *SelectTools) load(ctx context.Context, names []string) (loop.ToolResult, error) {
	if !t.m.DisclosureEnabled() {
		return loop.ErrorResult("select_tools is not available for the current model."), nil
	}
	loaded := map[string]bool{}
	for _, n := range t.ctx.LoadedTools() {
		loaded[n] = true
	}
	for _, n := range t.m.pendingLoaded() {
		loaded[n] = true
	}
	loadable := t.m.Loadable()
	var toLoad, already, unknown []string
	seen := map[string]bool{}
	for _, n := range names {
		n = strings.TrimSpace(n)
		if seen[n] {
			continue
		}
		seen[n] = true
		switch {
		case loaded[n]:
			already = append(already, n)
		case slices.Contains(loadable, n):
			toLoad = append(toLoad, n)
		default:
			unknown = append(unknown, n)
		}
	}
	var lines []string
	if len(toLoad) > 0 {
		sortNames(toLoad)
		defs := t.m.definitions(toLoad)
		if err := t.ctx.AppendToolSchemas(ctx, defs); err != nil {
			return loop.ToolResult{}, err
		}
		t.m.MarkPendingLoaded(toLoad)
		lines = append(lines, "Loaded: "+strings.Join(toLoad, ", "))
	}
	if len(already) > 0 {
		lines = append(lines, "Already available: "+strings.Join(already, ", "))
	}
	for _, n := range unknown {
		lines = append(lines, "Unknown tool: "+n+". Pick from the latest announced tools list.")
	}
	return loop.ToolResult{Output: loop.TextOutput(strings.Join(lines, "\n")),
		IsError: len(toLoad) == 0 && len(already) == 0}, nil
}
