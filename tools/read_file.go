package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/kimigo/kimigo/internal/runes"
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/loop"
	"github.com/kimigo/kimigo/osenv"
	"github.com/kimigo/kimigo/workspace"
)

// Read limits (spec 05 §4.1).
const (
	ReadMaxLines      = 1000
	ReadMaxLineLength = 2000
	ReadMaxBytes      = 100 << 10
	// ReadMaxTail is the largest |line_offset| of a tail read.
	ReadMaxTail = 1000
	// readLineBytes bounds the bytes kept of one line while streaming:
	// enough for ReadMaxLineLength runes of any width, so cutting never
	// changes what is rendered.
	readLineBytes = 4*ReadMaxLineLength + 64
)

//go:embed read_file.md
var readFileMD string

const readFileSchema = `{
  "type": "object",
  "properties": {
    "path": {"type": "string", "description": "File to read."},
    "line_offset": {
      "description": "First line to read (1-based), or a negative count of lines to read from the end.",
      "anyOf": [{"type": "integer", "minimum": 1}, {"type": "integer", "minimum": -%d, "maximum": -1}]
    },
    "n_lines": {"type": "integer", "minimum": 1, "description": "How many lines to read (default and cap %d)."}
  },
  "required": ["path"],
  "additionalProperties": false
}`

// ReadFile is the Read tool: a UTF-8 text file as numbered lines.
type ReadFile struct {
	b   Base
	def llm.Tool
}

// NewReadFile returns the Read tool.
func NewReadFile(b Base) *ReadFile {
	data := struct{ MaxLines, MaxBytes, MaxLineLength, MaxTail int }{ReadMaxLines, ReadMaxBytes, ReadMaxLineLength,
		ReadMaxTail}
	return &ReadFile{b: b.withDefaults(),
		def: definition(NameRead, readFileMD, data, fmt.Sprintf(readFileSchema, ReadMaxTail, ReadMaxLines))}
}

// Definition implements loop.ExecutableTool.
func (t *ReadFile) Definition() llm.Tool { return t.def }

type readArgs struct {
	Path       string `json:"path"`
	LineOffset *int   `json:"line_offset"`
	NLines     *int   `json:"n_lines"`
}

// ResolveExecution implements loop.ExecutableTool.
func (t *ReadFile) ResolveExecution(raw json.RawMessage) (loop.Execution, *loop.ToolResult, error) {
	var a readArgs
	if r := decodeArgs(NameRead, raw, &a); r != nil {
		return loop.Execution{}, r, nil
	}
	if a.LineOffset != nil && (*a.LineOffset == 0 || *a.LineOffset < -ReadMaxTail) {
		return loop.Execution{}, errorResult("line_offset must be at least 1, or between -%d and -1; got %d.", ReadMaxTail, *a.LineOffset), nil
	}
	if a.NLines != nil && *a.NLines < 1 {
		return loop.Execution{}, errorResult("n_lines must be at least 1; got %d.", *a.NLines), nil
	}
	p, err := workspace.ResolvePath(t.b.Env, t.b.Workspace, a.Path, workspace.IntentRead)
	if err != nil {
		return loop.Execution{}, nil, err
	}
	return loop.Execution{
		Accesses:     loop.ReadFile(p.Path),
		Description:  "Reading " + a.Path,
		Display:      &loop.FileIODisplay{Operation: "read", Path: p.Path},
		ApprovalRule: workspace.ApprovalRule(NameRead, p.Path),
		MatchesRule:  workspace.PathRuleMatcher(t.b.Env, t.b.Workspace, p),
		Execute: func(ctx context.Context, _ loop.ExecCtx) (loop.ToolResult, error) {
			return t.read(ctx, p, a), nil
		},
	}, nil, nil
}

// lineStyle is a file's line-ending style.
type lineStyle int

const (
	styleLF lineStyle = iota
	styleCRLF
	styleMixed
)

func styleOf(s osenv.TextScan) lineStyle {
	switch {
	case s.LoneCR || (s.CRLF && s.LF):
		return styleMixed
	case s.CRLF:
		return styleCRLF
	}
	return styleLF
}

func notReadable(raw string) loop.ToolResult {
	return loop.ErrorResult(fmt.Sprintf("%q is not readable as UTF-8 text. If it is an image or video, use ReadMediaFile. For other binary formats, use Bash or an MCP tool if available.", raw))
}

func (t *ReadFile) read(ctx context.Context, p workspace.ResolvedPath, a readArgs) loop.ToolResult {
	env := t.b.Env
	fi, err := env.Stat(p.Path)
	switch {
	case err != nil && notExist(err):
		return loop.ErrorResult(fmt.Sprintf("%q does not exist.", p.Raw))
	case err != nil:
		return loop.ErrorResult(fmt.Sprintf("Failed to read %s: %s", p.Raw, errText(err)))
	case !fi.Mode().IsRegular():
		return loop.ErrorResult(fmt.Sprintf("%q is not a file.", p.Raw))
	}
	head, err := osenv.ReadHead(env, p.Path, SniffLen)
	if err != nil {
		return loop.ErrorResult(fmt.Sprintf("Failed to read %s: %s", p.Raw, errText(err)))
	}
	switch ft := DetectFileType(p.Path, head, DetectText); ft.Kind {
	case KindImage, KindVideo:
		return loop.ErrorResult(fmt.Sprintf("%q is a %s file. Use ReadMediaFile to read image or video files.", p.Raw, ft.Kind))
	case KindUnknown:
		return notReadable(p.Raw)
	}
	if ctx.Err() != nil {
		return loop.ErrorResult("Read was cancelled.")
	}
	scan, err := osenv.ScanTextFile(env, p.Path)
	if err != nil {
		return loop.ErrorResult(fmt.Sprintf("Failed to read %s: %s", p.Raw, errText(err)))
	}
	if scan.HasNUL {
		return notReadable(p.Raw)
	}
	offset, requested := 1, ReadMaxLines
	if a.LineOffset != nil {
		offset = *a.LineOffset
	}
	if a.NLines != nil {
		requested = *a.NLines
	}
	limit := min(requested, ReadMaxLines)
	var lines []osenv.Line
	if offset >= 1 {
		lines, err = osenv.ReadLineRange(env, p.Path, offset, limit, readLineBytes)
	} else {
		lines, err = osenv.ReadTailLines(env, p.Path, -offset, readLineBytes)
		first := scan.Lines - len(lines) + 1
		for i := range lines {
			lines[i].Number = first + i
		}
		lines = lines[:min(len(lines), limit)]
	}
	if err != nil {
		return loop.ErrorResult(fmt.Sprintf("Failed to read %s: %s", p.Raw, errText(err)))
	}
	page := renderPage(lines, styleOf(scan), offset < 1)
	page.maxLines = offset >= 1 && limit == ReadMaxLines && scan.Lines >= offset+ReadMaxLines
	if !utf8.ValidString(page.text) {
		// Text with a stray byte (a Latin-1 é, a cut sequence): shown with
		// U+FFFD in its place, and said so, rather than refused whole.
		page.text, page.replaced = strings.ToValidUTF8(page.text, "\uFFFD"), true
	}
	return loop.ToolResult{Output: loop.TextOutput(page.text), Note: page.note(scan, requested)}
}

// readPage is the rendered part of a file one Read returns.
type readPage struct {
	text               string
	first, n           int
	cutLines           []int
	maxLines, maxBytes bool
	mixed              bool
	replaced           bool // bytes that are not UTF-8 were shown as U+FFFD
}

// renderPage renders lines as "<n>\t<content>" under the byte cap. A tail
// read keeps its newest lines when the cap bites; a forward read keeps its
// first ones.
func renderPage(lines []osenv.Line, style lineStyle, tail bool) readPage {
	rendered := make([]string, len(lines))
	cut := make([]bool, len(lines))
	for i, l := range lines {
		rendered[i], cut[i] = renderLine(l, style)
	}
	lo, hi := 0, len(rendered)
	pg := readPage{mixed: style == styleMixed}
	if tail {
		total := 0
		for _, r := range rendered {
			total += len(r) + 1
		}
		if total-1 > ReadMaxBytes {
			pg.maxBytes = true
			size := 0
			for lo = hi; lo > 0 && size+len(rendered[lo-1])+1 <= ReadMaxBytes+1; lo-- {
				size += len(rendered[lo-1]) + 1
			}
		}
	} else {
		size := 0
		for i, r := range rendered {
			add := len(r)
			if i > 0 {
				add++
			}
			if i > 0 && size+add > ReadMaxBytes {
				hi, pg.maxBytes = i, true
				break
			}
			size += add
			if size >= ReadMaxBytes {
				hi, pg.maxBytes = i+1, true
				break
			}
		}
	}
	pg.text = strings.Join(rendered[lo:hi], "\n")
	pg.n = hi - lo
	if pg.n > 0 {
		pg.first = lines[lo].Number
	}
	for i := lo; i < hi; i++ {
		if cut[i] {
			pg.cutLines = append(pg.cutLines, lines[i].Number)
		}
	}
	return pg
}

func renderLine(l osenv.Line, style lineStyle) (string, bool) {
	s := strings.TrimSuffix(l.Text, "\n")
	if style == styleCRLF {
		s = strings.TrimSuffix(s, "\r")
	}
	cut := false
	if l.Cut || utf8.RuneCountInString(s) > ReadMaxLineLength {
		s, cut = runes.Prefix(s, ReadMaxLineLength-3)+"...", true
	}
	if style == styleMixed {
		s = strings.ReplaceAll(s, "\r", `\r`)
	}
	return strconv.Itoa(l.Number) + "\t" + s, cut
}

// note is the <system> status block after the lines.
func (pg readPage) note(scan osenv.TextScan, requested int) string {
	var parts []string
	switch pg.n {
	case 0:
		parts = append(parts, "No lines read from file.")
	case 1:
		parts = append(parts, fmt.Sprintf("1 line read from file starting from line %d.", pg.first))
	default:
		parts = append(parts, fmt.Sprintf("%d lines read from file starting from line %d.", pg.n, pg.first))
	}
	parts = append(parts, fmt.Sprintf("Total lines in file: %d.", scan.Lines))
	switch {
	case pg.maxLines:
		parts = append(parts, fmt.Sprintf("Max %d lines reached.", ReadMaxLines))
	case pg.maxBytes:
		parts = append(parts, fmt.Sprintf("Max %d bytes reached.", ReadMaxBytes))
	case pg.n < requested:
		parts = append(parts, "End of file reached.")
	}
	if len(pg.cutLines) > 0 {
		nums := make([]string, len(pg.cutLines))
		for i, n := range pg.cutLines {
			nums[i] = strconv.Itoa(n)
		}
		parts = append(parts, fmt.Sprintf("Lines [%s] were truncated.", strings.Join(nums, ", ")))
	}
	if pg.replaced {
		parts = append(parts, "These lines are not valid UTF-8: each run of invalid bytes is shown as \uFFFD, "+
			"so an Edit cannot match those spots; use Bash to change them.")
	}
	if pg.mixed {
		parts = append(parts, `This file mixes line endings or has lone CRs, so every CR is shown as \r; an Edit old_string must spell those CRs out exactly (\r\n or \r).`)
	}
	return "<system>" + strings.Join(parts, " ") + "</system>"
}
