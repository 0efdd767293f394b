package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/loop"
	"github.com/kimigo/kimigo/tools/search"
	"github.com/kimigo/kimigo/workspace"
)

// GlobMaxMatches is how many paths Glob returns at most (spec 05 §4.4).
const GlobMaxMatches = 100

//go:embed glob.md
var globMD string

const globSchema = `{
  "type": "object",
  "properties": {
    "pattern": {"type": "string", "description": "Glob to match file paths against, e.g. *.go or src/**/*.ts."},
    "path": {"type": "string", "description": "Directory to search in (default: the working directory)."},
    "include_ignored": {"type": "boolean", "default": false, "description": "Also list files excluded by .gitignore, .ignore or .rgignore."},
    "include_dirs": {"type": "boolean", "description": "Deprecated and ignored: only files are listed."}
  },
  "required": ["pattern"],
  "additionalProperties": false
}`

// Glob is the Glob tool: files whose paths match a glob, newest first.
type Glob struct {
	b       Base
	def     llm.Tool
	engine  *search.Engine
	timeout searchTimeout
}

// NewGlob returns the Glob tool.
func NewGlob(b Base) *Glob {
	b = b.withDefaults()
	data := struct{ MaxMatches, TimeoutSeconds int }{GlobMaxMatches, int(SearchTimeout.Seconds())}
	return &Glob{b: b, def: definition(NameGlob, globMD, data, globSchema),
		engine: search.New(search.Options{FS: b.Env}), timeout: searchTimeout(SearchTimeout)}
}

// Definition implements loop.ExecutableTool.
func (t *Glob) Definition() llm.Tool { return t.def }

type globArgs struct {
	Pattern        string  `json:"pattern"`
	Path           *string `json:"path"`
	IncludeIgnored bool    `json:"include_ignored"`
	IncludeDirs    *bool   `json:"include_dirs"` // deprecated, accepted and ignored
}

// ResolveExecution implements loop.ExecutableTool.
func (t *Glob) ResolveExecution(raw json.RawMessage) (loop.Execution, *loop.ToolResult, error) {
	var a globArgs
	if r := decodeArgs(NameGlob, raw, &a); r != nil {
		return loop.Execution{}, r, nil
	}
	root := t.b.Workspace.Dir
	detail := "pattern: " + a.Pattern
	if a.Path != nil {
		p, err := workspace.ResolvePath(t.b.Env, t.b.Workspace, *a.Path, workspace.IntentSearch)
		if err != nil {
			return loop.Execution{}, nil, err
		}
		root = p.Path
		detail += ", path: " + *a.Path
	}
	if a.IncludeIgnored {
		detail += ", include_ignored: true"
	}
	return loop.Execution{
		Accesses:     loop.SearchTree(root),
		Description:  "Searching " + a.Pattern,
		Display:      &loop.FileIODisplay{Operation: "glob", Path: root, Detail: detail},
		ApprovalRule: workspace.ApprovalRule(NameGlob, a.Pattern),
		MatchesRule:  workspace.StringRuleMatcher(a.Pattern),
		Execute: func(ctx context.Context, _ loop.ExecCtx) (loop.ToolResult, error) {
			return t.glob(ctx, root, a), nil
		},
	}, nil, nil
}

func (t *Glob) glob(parent context.Context, root string, a globArgs) loop.ToolResult {
	if a.Pattern == "" {
		return loop.ErrorResult(`Glob failed: invalid pattern "": it must not be empty`)
	}
	ctx, cancel := t.timeout.context(parent)
	defer cancel()
	res, err := t.engine.Find(ctx, search.FindQuery{Root: root, Pattern: a.Pattern,
		Filter: search.Filter{IncludeIgnored: a.IncludeIgnored, Exclude: workspace.SensitiveExcludeGlobs()}})
	timedOut := false
	var ae *search.ArgError
	switch {
	case errors.As(err, &ae) && ae.Arg == "path" && errors.Is(err, fs.ErrNotExist):
		return loop.ErrorResult(root + " does not exist")
	case errors.As(err, &ae) && ae.Arg == "path" && errors.Is(err, search.ErrNotDir):
		return loop.ErrorResult(root + " is not a directory")
	case errors.Is(err, errSearchTimeout):
		timedOut = true
	case parent.Err() != nil:
		return loop.ErrorResult("Glob aborted")
	case err != nil:
		return loop.ErrorResult("Glob failed: " + err.Error())
	}
	var paths []string
	filtered := 0
	for _, f := range res.Files {
		if workspace.IsSensitive(f.Path) {
			filtered++
			continue
		}
		paths = append(paths, f.Path)
	}
	if len(paths) == 0 && !timedOut {
		switch {
		case len(res.Warnings) > 0:
			return loop.ErrorResult("Glob failed: " + strings.Join(res.Warnings, "; "))
		case filtered > 0:
			return loop.TextResult(fmt.Sprintf("No non-sensitive matches found (%d sensitive file(s) filtered).", filtered))
		}
		return loop.TextResult("No matches found")
	}
	var lines []string
	if timedOut {
		lines = append(lines, fmt.Sprintf("Glob timed out after %s; partial results returned.", t.timeout))
	}
	if res.Truncated {
		lines = append(lines, fmt.Sprintf("[stdout truncated at %d bytes; results may be incomplete — use a more specific pattern]", search.DefaultMaxResultBytes))
	}
	if len(res.Warnings) > 0 {
		lines = append(lines, "Glob completed with warnings; some directories could not be read: "+strings.Join(res.Warnings, "; "))
	}
	truncated := len(paths) > GlobMaxMatches
	if truncated {
		paths = paths[:GlobMaxMatches]
		lines = append(lines, fmt.Sprintf("[Truncated at %d matches — use a more specific pattern]", GlobMaxMatches),
			fmt.Sprintf("Only the first %d matches are returned.", GlobMaxMatches))
	}
	inside := inDir(root, t.b.Workspace.Dir)
	for _, p := range paths {
		if inside {
			p = relativeTo(root, p)
		}
		lines = append(lines, p)
	}
	if filtered > 0 {
		lines = append(lines, fmt.Sprintf("Filtered %d sensitive file(s).", filtered))
	}
	if !truncated && len(paths) == GlobMaxMatches {
		lines = append(lines, fmt.Sprintf("Found %d matches", GlobMaxMatches))
	}
	return loop.ToolResult{Output: loop.TextOutput(strings.Join(lines, "\n")), Truncated: truncated || res.Truncated}
}
