package turn

import (
	crand "crypto/rand"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/loop"
	"github.com/kimigo/kimigo/osenv"
)

// Tool-result budget limits (spec 03 §4, §7.9), in runes.
const (
	spillThreshold = 50_000
	spillPreview   = 2_000
	spillStemMax   = 80
	spillDirName   = "tool-results"
	spillStemEmpty = "tool-result"
)

//go:embed text/budget_next_step.md
var spillNextStepText string

// ResultBudgetOptions configure a ResultBudget. The zero value never
// spills, because there is no home directory.
type ResultBudgetOptions struct {
	// FS receives the spill files; nil means osenv.LocalFS{}.
	FS osenv.FS
	// HomeDir is the agent's home directory, an absolute path; spill files
	// go to HomeDir/tool-results. Empty (or relative) means no spilling.
	HomeDir string
	// NewUUID names the spill files; nil means a random version 4 UUID.
	// It must be safe for concurrent use if Apply is called concurrently.
	NewUUID func() string
	// Logger receives a warning when a spill fails; nil discards.
	Logger *slog.Logger
}

// ResultBudget keeps oversized tool output out of the context (spec 03
// §4). A text result longer than 50,000 runes is written in full to
// <HomeDir>/tool-results/<stem>-<uuid>.txt and replaced by a notice that
// names the file and shows the first 2,000 runes. TurnFlow applies it
// last in FinalizeToolResult, after the deduplicator and PostToolUse, so it
// governs what the model sees and what history stores:
//
//	model := budget.Apply(h.ToolCall.Name, h.ToolCall.ID, final)
//
// Apply is safe for concurrent use when NewUUID is.
type ResultBudget struct {
	fs      osenv.FS
	home    string
	newUUID func() string
	log     *slog.Logger
}

// NewResultBudget returns a ResultBudget with o's settings.
func NewResultBudget(o ResultBudgetOptions) *ResultBudget {
	b := &ResultBudget{fs: o.FS, home: o.HomeDir, newUUID: o.NewUUID, log: o.Logger}
	if b.fs == nil {
		b.fs = osenv.LocalFS{}
	}
	if b.newUUID == nil {
		b.newUUID = spillUUID
	}
	if b.log == nil {
		b.log = slog.New(slog.DiscardHandler)
	}
	return b
}

// Apply returns res, or res with its output replaced by the spill notice.
// Every other field, IsError included, is kept. res comes back unchanged
// when its output has a non-text part, is at most 50,000 runes, is marked
// Truncated (the tool already shortened it), when there is no home
// directory, and when any file-system step fails (then a warning is
// logged and the model sees the full output).
func (b *ResultBudget) Apply(toolName, toolCallID string, res loop.ToolResult) loop.ToolResult {
	text, ok := spillableText(res.Output)
	if !ok || len(text) <= spillThreshold || res.Truncated {
		return res // a string of at most 50,000 bytes has at most 50,000 runes
	}
	chars := utf8.RuneCountInString(text)
	if chars <= spillThreshold {
		return res
	}
	if b.home == "" || !filepath.IsAbs(b.home) {
		return res
	}
	path, err := b.spill(spillStem(toolName, toolCallID), text)
	if err != nil {
		b.log.Warn("tool result spill failed", "tool", toolName, "call_id", toolCallID, "error", err)
		return res
	}
	res.Output = loop.TextOutput(spillNotice(toolName, toolCallID, text, chars, path))
	return res
}

// spillableText returns the text of o, and false when o has a part that is
// not text.
func spillableText(o loop.Output) (string, bool) {
	for _, p := range o.Parts() {
		if p.Type != llm.PartText {
			return "", false
		}
	}
	return o.Text(), true
}

// spill writes text to a new file in the tool-results directory and
// returns its path. It never overwrites: the file is created exclusively.
// A file that could not be written in full is removed.
func (b *ResultBudget) spill(stem, text string) (string, error) {
	dir := filepath.Join(b.home, spillDirName)
	if err := b.fs.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("create %s: %w", dir, err)
	}
	path := filepath.Join(dir, stem+"-"+b.newUUID()+".txt")
	f, err := b.fs.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return "", fmt.Errorf("create %s: %w", path, err)
	}
	_, werr := io.WriteString(f, text)
	cerr := f.Close()
	if werr == nil && cerr == nil {
		return path, nil
	}
	err = fmt.Errorf("write %s: %w", path, errors.Join(werr, cerr))
	if rerr := b.fs.Remove(path); rerr != nil {
		err = fmt.Errorf("%w; remove partial file: %w", err, rerr)
	}
	return "", err
}

// spillStem is the file-name stem for a call: "<tool>-<call id>" with each
// run of characters outside [A-Za-z0-9._-] replaced by "_", underscores
// trimmed from both ends, cut to 80 characters, and "tool-result" if
// nothing is left.
func spillStem(toolName, toolCallID string) string {
	var b strings.Builder
	inRun := false
	for _, r := range toolName + "-" + toolCallID {
		if stemSafe(r) {
			b.WriteRune(r)
			inRun = false
			continue
		}
		if !inRun {
			b.WriteByte('_')
			inRun = true
		}
	}
	stem := strings.Trim(b.String(), "_")
	if len(stem) > spillStemMax {
		stem = stem[:spillStemMax] // all ASCII: bytes are characters
	}
	if stem == "" {
		return spillStemEmpty
	}
	return stem
}

func stemSafe(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-'
}

// spillNotice is what the model sees instead of a spilled output.
func spillNotice(toolName, toolCallID, text string, chars int, path string) string {
	return strings.Join([]string{
		"Tool output exceeded " + strconv.Itoa(spillThreshold) + " characters; showing a preview only.",
		"tool_name: " + toolName,
		"tool_call_id: " + toolCallID,
		"output_size_chars: " + strconv.Itoa(chars),
		"output_size_bytes: " + strconv.Itoa(len(text)),
		"output_path: " + path,
		"next_step: " + strings.TrimSpace(spillNextStepText),
		"",
		"[preview]",
		spillPrefix(text, spillPreview),
	}, "\n")
}

// spillPrefix returns the first n runes of s.
func spillPrefix(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[:i]
		}
		n--
	}
	return s
}

// spillUUID returns a random version 4 UUID.
func spillUUID() string {
	var b [16]byte
	_, _ = crand.Read(b[:]) // crypto/rand.Read never returns an error
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
