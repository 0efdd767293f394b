package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"syscall"

	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/loop"
	"github.com/kimigo/kimigo/osenv"
	"github.com/kimigo/kimigo/workspace"
)

//go:embed write_file.md
var writeFileMD string

const writeFileSchema = `{
  "type": "object",
  "properties": {
    "path": {"type": "string", "description": "File to write."},
    "content": {"type": "string", "description": "Exact text to write."},
    "mode": {"type": "string", "enum": ["overwrite", "append"], "default": "overwrite"}
  },
  "required": ["path", "content"],
  "additionalProperties": false
}`

// Write modes.
const (
	writeOverwrite = "overwrite"
	writeAppend    = "append"
)

// newFilePerm is the mode of files Write and Edit create.
const newFilePerm fs.FileMode = 0o644

// WriteFile is the Write tool: create, replace or append to a file.
type WriteFile struct {
	b   Base
	def llm.Tool
}

// NewWriteFile returns the Write tool.
func NewWriteFile(b Base) *WriteFile {
	return &WriteFile{b: b.withDefaults(), def: definition(NameWrite, writeFileMD, nil, writeFileSchema)}
}

// Definition implements loop.ExecutableTool.
func (t *WriteFile) Definition() llm.Tool { return t.def }

type writeArgs struct {
	Path    string `json:"path"`
	Content string `json:"content"`
	Mode    string `json:"mode"`
}

// ResolveExecution implements loop.ExecutableTool.
func (t *WriteFile) ResolveExecution(raw json.RawMessage) (loop.Execution, *loop.ToolResult, error) {
	var a writeArgs
	if r := decodeArgs(NameWrite, raw, &a); r != nil {
		return loop.Execution{}, r, nil
	}
	if a.Mode == "" {
		a.Mode = writeOverwrite
	}
	if a.Mode != writeOverwrite && a.Mode != writeAppend {
		return loop.Execution{}, errorResult("mode must be %q or %q; got %q.", writeOverwrite, writeAppend, a.Mode), nil
	}
	p, err := workspace.ResolvePath(t.b.Env, t.b.Workspace, a.Path, workspace.IntentWrite)
	if err != nil {
		return loop.Execution{}, nil, err
	}
	return loop.Execution{
		Accesses:     loop.WriteFile(p.Path),
		Description:  "Writing " + a.Path,
		Display:      &loop.FileIODisplay{Operation: "write", Path: p.Path, Content: a.Content},
		ApprovalRule: workspace.ApprovalRule(NameWrite, p.Path),
		MatchesRule:  workspace.PathRuleMatcher(t.b.Env, t.b.Workspace, p),
		Execute: func(context.Context, loop.ExecCtx) (loop.ToolResult, error) {
			return t.write(p, a), nil
		},
	}, nil, nil
}

func (t *WriteFile) write(p workspace.ResolvedPath, a writeArgs) loop.ToolResult {
	env := t.b.Env
	if r := ensureParent(env, p.Path); r != nil {
		return *r
	}
	data := []byte(a.Content)
	if a.Mode == writeAppend {
		old, err := env.ReadFile(p.Path)
		switch {
		case err == nil:
			data = append(old, data...)
		case !notExist(err):
			return writeFailure(p.Raw, err)
		}
	}
	if err := osenv.WriteFileAtomic(env, p.Path, data, newFilePerm); err != nil {
		return writeFailure(p.Raw, err)
	}
	verb := "Wrote"
	if a.Mode == writeAppend {
		verb = "Appended"
	}
	return loop.TextResult(fmt.Sprintf("%s %d bytes to %s", verb, len(a.Content), p.Raw))
}

// ensureParent creates the parent directory of p when it is missing.
func ensureParent(env osenv.Env, p string) *loop.ToolResult {
	parent := path.Dir(p)
	fi, err := env.Stat(parent)
	switch {
	case err == nil && !fi.IsDir():
		return errorResult("Parent path is not a directory: %s.", parent)
	case err != nil && notExist(err):
		if err := env.MkdirAll(parent, 0o755); err != nil {
			return errorResult("Failed to create directory %s: %s", parent, errText(err))
		}
	}
	return nil // another stat failure: let the write report it
}

func writeFailure(raw string, err error) loop.ToolResult {
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOENT) {
		return loop.ErrorResult(fmt.Sprintf("Failed to write %s: parent directory does not exist.", raw))
	}
	return loop.ErrorResult(fmt.Sprintf("Failed to write %s: %s", raw, errText(unwrapWrite(err))))
}

// unwrapWrite drops the "write <path>: " layer WriteFileAtomic adds, since
// the message already names the path.
func unwrapWrite(err error) error {
	if u := errors.Unwrap(err); u != nil {
		return u
	}
	return err
}
