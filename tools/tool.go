package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"text/template"

	"github.com/kimigo/kimigo/internal/bug"
	"github.com/kimigo/kimigo/internal/runes"
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/llm/plainjson"
	"github.com/kimigo/kimigo/loop"
	"github.com/kimigo/kimigo/osenv"
	"github.com/kimigo/kimigo/workspace"
)

// Built-in tool names, as the model sees them.
const (
	NameRead            = "Read"
	NameWrite           = "Write"
	NameEdit            = "Edit"
	NameGlob            = "Glob"
	NameGrep            = "Grep"
	NameBash            = "Bash"
	NameReadMediaFile   = "ReadMediaFile"
	NameFetchURL        = "FetchURL"
	NameWebSearch       = "WebSearch"
	NameTodoList        = "TodoList"
	NameAskUserQuestion = "AskUserQuestion"
	NameTaskList        = "TaskList"
	NameTaskOutput      = "TaskOutput"
	NameTaskStop        = "TaskStop"
	NameSelectTools     = "select_tools"
)

// Base is what every built-in tool that touches files or processes is built
// with. A tool keeps these for its whole life; the manager rebuilds the
// table when the working directory or the additional dirs change.
type Base struct {
	// Env is the OS seam. Required.
	Env osenv.Env
	// Workspace is where relative paths resolve; a zero Dir means
	// Env.Cwd().
	Workspace workspace.Dirs
	// Logger receives warnings; nil discards.
	Logger *slog.Logger
}

func (b Base) withDefaults() Base {
	if b.Env == nil {
		bug.Reportf("tools: Base.Env is nil")
		b.Env = osenv.NewLocal(osenv.LocalOptions{})
	}
	if b.Workspace.Dir == "" {
		b.Workspace.Dir = b.Env.Cwd()
	}
	if b.Logger == nil {
		b.Logger = slog.New(slog.DiscardHandler)
	}
	return b
}

// definition builds an llm.Tool from a name, an embedded description
// template rendered with data, and a JSON schema literal (compacted). The
// result is kept per process when data is comparable (a struct of plain
// fields): tool tables are built at every session start, for every
// subagent and again when a profile changes what they offer, from a few
// distinct inputs.
func definition(name, descTemplate string, data any, schema string) llm.Tool {
	if data == nil || reflect.ValueOf(data).Comparable() {
		return definitionFor(data, name, descTemplate, data, schema)
	}
	return llm.Tool{Name: name, Description: renderDescription(name, descTemplate, data), Parameters: compactSchema(name, schema)}
}

// definitionFor is definition kept under key, a comparable value that
// stands for data (which need not be comparable). The Parameters of the
// tools it returns share their bytes; nothing modifies a tool's schema.
func definitionFor(key any, name, descTemplate string, data any, schema string) llm.Tool {
	k := definitionKey{name: name, template: descTemplate, schema: schema, data: key}
	if d, ok := definitions.Load(k); ok {
		return d.(llm.Tool)
	}
	d := llm.Tool{Name: name, Description: renderDescription(name, descTemplate, data), Parameters: compactSchema(name, schema)}
	if definitionCount.Add(1) <= maxDefinitions {
		definitions.Store(k, d)
	}
	return d
}

type definitionKey struct {
	name, template, schema string
	data                   any
}

// definitions holds built definitions by definitionKey, at most
// maxDefinitions of them (a process that keeps meeting new subagent types
// stops adding); a definition is never changed once stored.
var (
	definitions     sync.Map // definitionKey → llm.Tool
	definitionCount atomic.Int64
)

const maxDefinitions = 256

// renderDescription renders a tool description from its .md template. The
// templates are embedded and tested, so a failure is a bug. A description
// without actions is its own text, and each template is parsed once per
// process: tool tables are built at every session start.
func renderDescription(name, tmpl string, data any) string {
	if !strings.Contains(tmpl, "{{") {
		return strings.TrimSpace(tmpl)
	}
	t, err := parsedDescription(name, tmpl)
	if err != nil {
		bug.Reportf("tools: parse description of %s: %v", name, err)
		return tmpl
	}
	var b strings.Builder
	if err := t.Execute(&b, data); err != nil {
		bug.Reportf("tools: render description of %s: %v", name, err)
		return tmpl
	}
	return strings.TrimSpace(b.String())
}

// descriptionTemplates holds parsed description templates by name and
// text; a parsed template may be executed concurrently.
var descriptionTemplates sync.Map // string → *template.Template

func parsedDescription(name, tmpl string) (*template.Template, error) {
	key := name + "\x00" + tmpl
	if t, ok := descriptionTemplates.Load(key); ok {
		return t.(*template.Template), nil
	}
	t, err := template.New(name).Option("missingkey=error").Parse(tmpl)
	if err != nil {
		return nil, err
	}
	descriptionTemplates.Store(key, t)
	return t, nil
}

func compactSchema(name, schema string) json.RawMessage {
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(schema)); err != nil {
		bug.Reportf("tools: schema of %s: %v", name, err)
		return json.RawMessage(`{"type":"object"}`)
	}
	return b.Bytes()
}

// decodeArgs decodes schema-checked arguments into v. The loop validated
// them already, so a failure here means a caller that skipped validation;
// it still becomes a result the model can act on.
func decodeArgs(name string, args json.RawMessage, v any) *loop.ToolResult {
	if len(bytes.TrimSpace(args)) == 0 || string(bytes.TrimSpace(args)) == "null" {
		args = json.RawMessage("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		r := loop.ErrorResult(fmt.Sprintf("Invalid args for tool %q: %s", name, describeDecodeError(err)))
		return &r
	}
	return nil
}

func describeDecodeError(err error) string {
	var te *json.UnmarshalTypeError
	if ok := asError(err, &te); ok && te.Field != "" {
		return fmt.Sprintf("/%s must be %s", strings.ReplaceAll(te.Field, ".", "/"), te.Type.Kind())
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}

// errorResult is an immediate error result for ResolveExecution.
func errorResult(format string, args ...any) *loop.ToolResult {
	r := loop.ErrorResult(fmt.Sprintf(format, args...))
	return &r
}

// firstRunes returns s cut to n runes, with "…" when it was longer.
func firstRunes(s string, n int) string {
	t := runes.Prefix(s, n)
	if len(t) < len(s) {
		return t + "…"
	}
	return s
}

// marshalNoEscape encodes v as compact JSON without HTML escaping.
func marshalNoEscape(v any) (string, error) {
	b, err := plainjson.Marshal(v)
	return string(b), err
}
