package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/loop"
	"github.com/kimigo/kimigo/osenv"
	"github.com/kimigo/kimigo/tools/search"
	"github.com/kimigo/kimigo/workspace"
)

// Grep limits (spec 05 §4.5).
const (
	// GrepDefaultHeadLimit is how many lines or entries Grep returns
	// unless head_limit says otherwise.
	GrepDefaultHeadLimit = 250
	// SearchTimeout bounds one Grep or Glob call; partial results are
	// kept.
	SearchTimeout = 20 * time.Second
)

// Grep output modes.
const (
	grepContent          = "content"
	grepFilesWithMatches = "files_with_matches"
	grepCountMatches     = "count_matches"
)

//go:embed grep.md
var grepMD string

const grepSchema = `{
  "type": "object",
  "properties": {
    "pattern": {"type": "string", "description": "Regular expression to search file contents for."},
    "path": {"type": "string", "description": "File or directory to search (default: the working directory)."},
    "glob": {"type": "string", "description": "Only search files matching this glob, e.g. *.go or **/src/*.ts; a leading ! excludes."},
    "type": {"type": "string", "description": "Only search files of this type, e.g. go, ts, py, rust, md."},
    "output_mode": {"type": "string", "enum": ["content", "files_with_matches", "count_matches"], "default": "files_with_matches",
      "description": "content: matching lines; files_with_matches: paths, newest first; count_matches: matches per file."},
    "-i": {"type": "boolean", "default": false, "description": "Case-insensitive search."},
    "-n": {"type": "boolean", "default": true, "description": "Show line numbers (content mode)."},
    "-A": {"type": "integer", "minimum": 0, "description": "Lines of context after each match (content mode)."},
    "-B": {"type": "integer", "minimum": 0, "description": "Lines of context before each match (content mode)."},
    "-C": {"type": "integer", "minimum": 0, "description": "Lines of context before and after each match; overrides -A and -B (content mode)."},
    "head_limit": {"type": "integer", "minimum": 0, "default": %d, "description": "Return at most this many lines or entries; 0 means all."},
    "offset": {"type": "integer", "minimum": 0, "default": 0, "description": "Skip this many lines or entries first (for paging)."},
    "multiline": {"type": "boolean", "default": false, "description": "Let matches span lines; . then matches newlines too."},
    "include_ignored": {"type": "boolean", "default": false, "description": "Also search files excluded by .gitignore, .ignore or .rgignore."}
  },
  "required": ["pattern"],
  "additionalProperties": false
}`

// Grep is the Grep tool: a regular-expression search of file contents.
type Grep struct {
	b       Base
	def     llm.Tool
	engine  *search.Engine
	timeout searchTimeout
}

// NewGrep returns the Grep tool.
func NewGrep(b Base) *Grep {
	b = b.withDefaults()
	data := struct{ HeadLimit, TimeoutSeconds int }{GrepDefaultHeadLimit, int(SearchTimeout.Seconds())}
	return &Grep{b: b, def: definition(NameGrep, grepMD, data, fmt.Sprintf(grepSchema, GrepDefaultHeadLimit)),
		engine: search.New(search.Options{FS: b.Env}), timeout: searchTimeout(SearchTimeout)}
}

// Definition implements loop.ExecutableTool.
func (t *Grep) Definition() llm.Tool { return t.def }

type grepArgs struct {
	Pattern        string  `json:"pattern"`
	Path           *string `json:"path"`
	Glob           string  `json:"glob"`
	Type           string  `json:"type"`
	OutputMode     string  `json:"output_mode"`
	IgnoreCase     bool    `json:"-i"`
	LineNumbers    *bool   `json:"-n"`
	After          *int    `json:"-A"`
	Before         *int    `json:"-B"`
	Context        *int    `json:"-C"`
	HeadLimit      *int    `json:"head_limit"`
	Offset         int     `json:"offset"`
	Multiline      bool    `json:"multiline"`
	IncludeIgnored bool    `json:"include_ignored"`
}

// ResolveExecution implements loop.ExecutableTool.
func (t *Grep) ResolveExecution(raw json.RawMessage) (loop.Execution, *loop.ToolResult, error) {
	var a grepArgs
	if r := decodeArgs(NameGrep, raw, &a); r != nil {
		return loop.Execution{}, r, nil
	}
	switch a.OutputMode {
	case "":
		a.OutputMode = grepFilesWithMatches
	case grepContent, grepFilesWithMatches, grepCountMatches:
	default:
		return loop.Execution{}, errorResult("output_mode must be one of content, files_with_matches, count_matches; got %q.", a.OutputMode), nil
	}
	for _, arg := range []struct {
		name string
		v    *int
	}{{"-A", a.After}, {"-B", a.Before}, {"-C", a.Context}, {"head_limit", a.HeadLimit}, {"offset", &a.Offset}} {
		if arg.v != nil && *arg.v < 0 {
			return loop.Execution{}, errorResult("%s must not be negative; got %d.", arg.name, *arg.v), nil
		}
	}
	root, shown := t.b.Workspace.Dir, t.b.Workspace.Dir
	if a.Path != nil {
		p, err := workspace.ResolvePath(t.b.Env, t.b.Workspace, *a.Path, workspace.IntentSearch)
		if err != nil {
			return loop.Execution{}, nil, err
		}
		root, shown = p.Path, *a.Path
	}
	return loop.Execution{
		Accesses:     loop.SearchTree(root),
		Description:  fmt.Sprintf("Searching for '%s' in %s", a.Pattern, shown),
		Display:      &loop.FileIODisplay{Operation: "grep", Path: root},
		ApprovalRule: workspace.ApprovalRule(NameGrep, a.Pattern),
		MatchesRule:  workspace.StringRuleMatcher(a.Pattern),
		Execute: func(ctx context.Context, _ loop.ExecCtx) (loop.ToolResult, error) {
			return t.grep(ctx, root, a), nil
		},
	}, nil, nil
}

func (a grepArgs) query(root string) search.GrepQuery {
	q := search.GrepQuery{Root: root, Pattern: a.Pattern, IgnoreCase: a.IgnoreCase, Multiline: a.Multiline,
		Glob: a.Glob, Type: a.Type, Mode: search.FilesWithMatches,
		Filter: search.Filter{IncludeIgnored: a.IncludeIgnored, Exclude: workspace.SensitiveExcludeGlobs()}}
	switch a.OutputMode {
	case grepCountMatches:
		q.Mode = search.CountMatches
	case grepContent:
		q.Mode = search.Content
		if a.Before != nil {
			q.Before = *a.Before
		}
		if a.After != nil {
			q.After = *a.After
		}
		if a.Context != nil {
			q.Before, q.After = *a.Context, *a.Context
		}
	}
	return q
}

func (t *Grep) grep(parent context.Context, root string, a grepArgs) loop.ToolResult {
	if parent.Err() != nil {
		return loop.ErrorResult("Aborted before search started")
	}
	ctx, cancel := t.timeout.context(parent)
	defer cancel()
	q := a.query(root)
	res, err := t.engine.Grep(ctx, q)
	timedOut := errors.Is(err, errSearchTimeout)
	switch {
	case timedOut:
	case parent.Err() != nil:
		return loop.ErrorResult("Grep aborted")
	case err != nil:
		return loop.ErrorResult("Failed to grep: " + err.Error())
	}
	if timedOut && len(res.Files) == 0 {
		return loop.ErrorResult(fmt.Sprintf("Grep timed out after %s. Try a more specific path or pattern.", t.timeout))
	}
	if len(res.Files) == 0 && len(res.Warnings) > 0 {
		return loop.ErrorResult("Failed to grep: " + strings.Join(res.Warnings, "; "))
	}
	r := t.render(res, q, a)
	if timedOut {
		r.trailer = append(r.trailer, fmt.Sprintf("Grep timed out after %s; partial results returned", t.timeout))
	}
	rb := NewResultBuilder(BuilderOptions{})
	rb.Write(r.String())
	out := rb.OK("")
	out.Truncated = out.Truncated || r.paged || res.Truncated || timedOut
	return out
}

// grepReport is Grep's output before the result builder: header lines,
// body records and trailing messages.
type grepReport struct {
	header, body, trailer []string
	paged                 bool // pagination left records out
}

func (r grepReport) String() string {
	lines := append(append(append([]string{}, r.header...), r.body...), r.trailer...)
	if len(lines) == 0 {
		return "No non-sensitive matches found"
	}
	return strings.Join(lines, "\n")
}

// render filters sensitive files, formats the records of the mode, pages
// them and adds the notices (spec 05 §4.5 steps 5–10).
func (t *Grep) render(res search.GrepResult, q search.GrepQuery, a grepArgs) grepReport {
	var kept []search.FileMatches
	var filtered []string
	for _, f := range res.Files {
		if workspace.IsSensitive(f.Path) {
			filtered = append(filtered, t.display(f.Path))
			continue
		}
		kept = append(kept, f)
	}
	records := t.records(kept, q, a)
	var r grepReport
	offset := min(a.Offset, len(records))
	page := records[offset:]
	limit := GrepDefaultHeadLimit
	if a.HeadLimit != nil {
		limit = *a.HeadLimit
	}
	var notice string
	if limit > 0 && len(page) > limit {
		notice = fmt.Sprintf("Results truncated to %d lines (total: %d). Use offset=%d to see more.", limit, offset+len(page), offset+limit)
		page = page[:limit]
		r.paged = true
	}
	if q.Mode == search.CountMatches && len(kept) > 0 {
		total := 0
		for _, f := range kept {
			total += f.Count
		}
		what := "total"
		if len(filtered) > 0 {
			what = "total non-sensitive"
		}
		r.header = append(r.header, fmt.Sprintf("Found %d %s %s across %d %s.", total, what, plural(total, "occurrence"), len(kept), plural(len(kept), "file")))
		if notice != "" {
			r.header = append(r.header, notice)
			notice = ""
		}
	}
	r.body = page
	if len(kept) == 0 && len(filtered) > 0 {
		r.body = []string{"No non-sensitive matches found"}
	}
	if len(filtered) > 0 {
		r.trailer = append(r.trailer, fmt.Sprintf("Filtered %d sensitive file(s): %s", len(filtered), strings.Join(filtered, ", ")))
	}
	if notice != "" {
		r.trailer = append(r.trailer, notice)
	}
	if res.Truncated {
		r.trailer = append(r.trailer, fmt.Sprintf("[stdout truncated at %d bytes; incomplete trailing line omitted]", search.DefaultMaxResultBytes))
	}
	if len(res.Warnings) > 0 {
		r.trailer = append(r.trailer, "Grep completed with warnings; some paths could not be read: "+strings.Join(res.Warnings, "; "))
	}
	return r
}

// records formats one line per file (paths, counts) or per output line
// (content, with "--" between groups when context was asked for).
func (t *Grep) records(files []search.FileMatches, q search.GrepQuery, a grepArgs) []string {
	var out []string
	numbers := a.LineNumbers == nil || *a.LineNumbers
	separate := q.Before > 0 || q.After > 0
	for _, f := range files {
		p := t.display(f.Path)
		switch q.Mode {
		case search.FilesWithMatches:
			out = append(out, p)
		case search.CountMatches:
			out = append(out, p+":"+strconv.Itoa(f.Count))
		case search.Content:
			for _, block := range f.Blocks {
				if separate && len(out) > 0 {
					out = append(out, "--")
				}
				for _, l := range block {
					sep := "-"
					if l.Match || !numbers {
						sep = ":"
					}
					if numbers {
						out = append(out, p+sep+strconv.Itoa(l.Num)+sep+l.Text)
					} else {
						out = append(out, p+sep+l.Text)
					}
				}
			}
		}
	}
	return out
}

// display is how Grep shows a path: relative to the workspace dir when
// under it, else absolute.
func (t *Grep) display(p string) string {
	if inDir(p, t.b.Workspace.Dir) {
		return relativeTo(t.b.Workspace.Dir, p)
	}
	return p
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

// searchTimeout is the deadline of one Grep or Glob call.
type searchTimeout time.Duration

// errSearchTimeout is the cause of a search cut short by its deadline, as
// opposed to a cancelled turn.
var errSearchTimeout = errors.New("search timed out")

func (d searchTimeout) context(parent context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeoutCause(parent, time.Duration(d), errSearchTimeout)
}

func (d searchTimeout) String() string { return time.Duration(d).String() }

// inDir reports whether p is dir or lies below it.
func inDir(p, dir string) bool { return dir != "" && osenv.Within(p, dir) }

// relativeTo returns p relative to dir ("." for dir itself); p lies in dir.
func relativeTo(dir, p string) string {
	rel, err := filepath.Rel(dir, p)
	if err != nil {
		return p
	}
	return rel
}
