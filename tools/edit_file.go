package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/loop"
	"github.com/kimigo/kimigo/osenv"
	"github.com/kimigo/kimigo/workspace"
)

//go:embed edit_file.md
var editFileMD string

const editFileSchema = `{
  "type": "object",
  "properties": {
    "path": {"type": "string", "description": "File to edit."},
    "old_string": {"type": "string", "minLength": 1, "description": "Exact text to replace."},
    "new_string": {"type": "string", "description": "Replacement text."},
    "replace_all": {"type": "boolean", "default": false, "description": "Replace every occurrence."}
  },
  "required": ["path", "old_string", "new_string"],
  "additionalProperties": false
}`

// EditFile is the Edit tool: exact-match replacement in a text file.
type EditFile struct {
	b   Base
	def llm.Tool
}

// NewEditFile returns the Edit tool.
func NewEditFile(b Base) *EditFile {
	return &EditFile{b: b.withDefaults(), def: definition(NameEdit, editFileMD, nil, editFileSchema)}
}

// Definition implements loop.ExecutableTool.
func (t *EditFile) Definition() llm.Tool { return t.def }

type editArgs struct {
	Path       string `json:"path"`
	OldString  string `json:"old_string"`
	NewString  string `json:"new_string"`
	ReplaceAll bool   `json:"replace_all"`
}

// ResolveExecution implements loop.ExecutableTool.
func (t *EditFile) ResolveExecution(raw json.RawMessage) (loop.Execution, *loop.ToolResult, error) {
	var a editArgs
	if r := decodeArgs(NameEdit, raw, &a); r != nil {
		return loop.Execution{}, r, nil
	}
	if a.OldString == "" {
		return loop.Execution{}, errorResult("old_string must not be empty."), nil
	}
	if a.OldString == a.NewString {
		return loop.Execution{}, errorResult("No changes to make: old_string and new_string are exactly the same."), nil
	}
	p, err := workspace.ResolvePath(t.b.Env, t.b.Workspace, a.Path, workspace.IntentWrite)
	if err != nil {
		return loop.Execution{}, nil, err
	}
	return loop.Execution{
		Accesses:     loop.ReadWriteFile(p.Path),
		Description:  "Editing " + a.Path,
		Display:      &loop.FileIODisplay{Operation: "edit", Path: p.Path, Before: a.OldString, After: a.NewString},
		ApprovalRule: workspace.ApprovalRule(NameEdit, p.Path),
		MatchesRule:  workspace.PathRuleMatcher(t.b.Env, t.b.Workspace, p),
		Execute: func(context.Context, loop.ExecCtx) (loop.ToolResult, error) {
			return t.edit(p, a), nil
		},
	}, nil, nil
}

func (t *EditFile) edit(p workspace.ResolvedPath, a editArgs) loop.ToolResult {
	env := t.b.Env
	fi, err := env.Stat(p.Path)
	switch {
	case err != nil && notExist(err):
		return loop.ErrorResult(fmt.Sprintf("%q does not exist.", p.Raw))
	case err != nil:
		return loop.ErrorResult(fmt.Sprintf("Failed to edit %s: %s", p.Raw, errText(err)))
	case !fi.Mode().IsRegular():
		return loop.ErrorResult(fmt.Sprintf("%q is not a file.", p.Raw))
	}
	data, err := env.ReadFile(p.Path)
	if err != nil {
		return loop.ErrorResult(fmt.Sprintf("Failed to edit %s: %s", p.Raw, errText(err)))
	}
	if !utf8.Valid(data) {
		return loop.ErrorResult(fmt.Sprintf("%q is not valid UTF-8 text; Edit only changes UTF-8 text files.", p.Raw))
	}
	crlf := styleOf(osenv.ScanBytes(data)) == styleCRLF
	view := string(data)
	if crlf {
		view = strings.ReplaceAll(view, "\r\n", "\n")
	}
	n := strings.Count(view, a.OldString)
	switch {
	case n == 0:
		return loop.ErrorResult(fmt.Sprintf("old_string not found in %s, the file contents may be out of date. Read the file again and copy the text exactly.\n", p.Raw))
	case n > 1 && !a.ReplaceAll:
		return loop.ErrorResult(fmt.Sprintf("old_string is not unique in %s (found %d occurrences). Set replace_all=true to replace all of them, or add surrounding context to old_string so that it matches once.", p.Raw, n))
	}
	if a.ReplaceAll {
		view = strings.ReplaceAll(view, a.OldString, a.NewString)
	} else {
		view = strings.Replace(view, a.OldString, a.NewString, 1)
	}
	if crlf {
		view = strings.ReplaceAll(strings.ReplaceAll(view, "\r\n", "\n"), "\n", "\r\n")
	}
	if err := osenv.WriteFileAtomic(env, p.Path, []byte(view), newFilePerm); err != nil {
		return loop.ErrorResult(fmt.Sprintf("Failed to edit %s: %s", p.Raw, errText(unwrapWrite(err))))
	}
	if a.ReplaceAll {
		return loop.TextResult(fmt.Sprintf("Replaced %d occurrences in %s", n, p.Raw))
	}
	return loop.TextResult("Replaced 1 occurrence in " + p.Raw)
}
