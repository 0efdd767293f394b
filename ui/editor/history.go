package editor

import (
	"bytes"
	"crypto/md5"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// History is the input history of one work dir (spec 06 §5.3.2): the file
// <root>/user-history/<md5 hex of the work dir>.jsonl, one
// {"content":"<text>"} per line, appended to and never rewritten. Shell
// commands are stored with a leading "!". Browsing sees only the entries
// of the editor's mode, and keeps the draft it left.
//
// A History is used from one goroutine.
type History struct {
	path    string
	entries []string // oldest first, as stored

	browsing   bool
	pos        int // index in entries of the entry shown while browsing
	draft      string
	draftShell bool
}

// maxHistoryTail is how much of the end of the file is read: the newest
// entries, however long the file grew.
const maxHistoryTail = 256 << 10

// HistoryFile is the history file of workDir under root.
func HistoryFile(root, workDir string) string {
	sum := md5.Sum([]byte(workDir))
	return filepath.Join(root, "user-history", hex.EncodeToString(sum[:])+".jsonl")
}

// LoadHistory reads the work dir's history. A missing file is an empty
// history; corrupt lines are skipped; an unreadable file is an error
// naming it, and the history starts empty (it is still appended to).
func LoadHistory(root, workDir string) (*History, error) {
	h := &History{path: HistoryFile(root, workDir)}
	f, err := os.Open(h.path)
	if errors.Is(err, fs.ErrNotExist) {
		return h, nil
	}
	if err != nil {
		return h, fmt.Errorf("read the input history %s: %w", h.path, err)
	}
	defer f.Close() // read-only
	st, err := f.Stat()
	if err != nil {
		return h, fmt.Errorf("read the input history %s: %w", h.path, err)
	}
	off := max(0, st.Size()-maxHistoryTail)
	data, err := io.ReadAll(io.NewSectionReader(f, off, st.Size()-off))
	if err != nil {
		return h, fmt.Errorf("read the input history %s: %w", h.path, err)
	}
	if off > 0 { // the first line may be cut
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			data = data[i+1:]
		}
	}
	for line := range bytes.SplitSeq(data, []byte("\n")) {
		var e struct {
			Content *string `json:"content"`
		}
		if len(bytes.TrimSpace(line)) == 0 || json.Unmarshal(line, &e) != nil || e.Content == nil || *e.Content == "" {
			continue
		}
		h.entries = append(h.entries, *e.Content)
	}
	return h, nil
}

// Path is the history file.
func (h *History) Path() string { return h.path }

// Add records a submitted text (a shell command when shell): trimmed,
// and not when empty or the same as the newest entry. It appends one
// line to the file.
func (h *History) Add(text string, shell bool) error {
	h.browsing = false
	text = strings.TrimSpace(text)
	if text == "" {
		return nil
	}
	if shell {
		text = "!" + text
	}
	if n := len(h.entries); n > 0 && h.entries[n-1] == text {
		return nil
	}
	h.entries = append(h.entries, text)
	line, err := json.Marshal(struct {
		Content string `json:"content"`
	}{text})
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(h.path), 0o700); err != nil {
		return fmt.Errorf("write the input history %s: %w", h.path, err)
	}
	f, err := os.OpenFile(h.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("write the input history %s: %w", h.path, err)
	}
	_, werr := f.Write(append(line, '\n'))
	cerr := f.Close()
	if err := errors.Join(werr, cerr); err != nil {
		return fmt.Errorf("write the input history %s: %w", h.path, err)
	}
	return nil
}

// Browsing reports whether an entry is shown instead of the draft.
func (h *History) Browsing() bool { return h.browsing }

// Prev returns the entry before the one shown (the newest when not
// browsing) among the entries of the mode shell selects, saving draft
// the first time. ok is false when there is none.
func (h *History) Prev(draft string, shell bool) (text string, ok bool) {
	start := len(h.entries)
	if h.browsing {
		start = h.pos
	}
	for i := start - 1; i >= 0; i-- {
		if t, match := h.match(i, shell); match {
			if !h.browsing {
				h.draft, h.draftShell, h.browsing = draft, shell, true
			}
			h.pos = i
			return t, true
		}
	}
	return "", false
}

// Next returns the entry after the one shown, or the saved draft when
// browsing goes past the newest; ok is false when not browsing.
func (h *History) Next(shell bool) (text string, ok bool) {
	if !h.browsing {
		return "", false
	}
	for i := h.pos + 1; i < len(h.entries); i++ {
		if t, match := h.match(i, shell); match {
			h.pos = i
			return t, true
		}
	}
	h.browsing = false
	return h.draft, true
}

// Stop ends browsing (the user edited the recalled entry).
func (h *History) Stop() { h.browsing = false }

func (h *History) match(i int, shell bool) (string, bool) {
	e := h.entries[i]
	if rest, ok := strings.CutPrefix(e, "!"); ok {
		return rest, shell
	}
	return e, !shell
}
