package loop

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
)

// DisplayKind discriminates a display block on the wire.
type DisplayKind string

// The display kinds of the built-in tools and the permission layer (spec
// 05 §1.5). A feature with a display of its own (a plan review, a goal
// start, a subagent call) declares its kind and type next to the tool that
// shows it.
const (
	DisplayCommand  DisplayKind = "command"
	DisplayFileIO   DisplayKind = "file_io"
	DisplayDiff     DisplayKind = "diff"
	DisplaySearch   DisplayKind = "search"
	DisplayURLFetch DisplayKind = "url_fetch"
	DisplayTodoList DisplayKind = "todo_list"
	DisplayGeneric  DisplayKind = "generic"
)

// Display is a structured rendering of a tool call for UIs and approval
// prompts. It marshals to one JSON object {"kind":…,…} (MarshalDisplay
// writes that shape). The loop defines the displays of the built-in
// tools; any package may define more. DecodeDisplay reads the kinds of
// this file into their types and any other kind into a *RawDisplay, which
// keeps its bytes.
type Display interface {
	DisplayKind() DisplayKind
}

// CommandDisplay shows a shell command.
type CommandDisplay struct {
	Command     string `json:"command"`
	Cwd         string `json:"cwd,omitempty"`
	Description string `json:"description,omitempty"`
	Language    string `json:"language,omitempty"`
}

// FileIODisplay shows a file operation (read, write, edit, glob, grep).
type FileIODisplay struct {
	Operation string `json:"operation"`
	Path      string `json:"path"`
	Detail    string `json:"detail,omitempty"`
	Content   string `json:"content,omitempty"`
	Before    string `json:"before,omitempty"`
	After     string `json:"after,omitempty"`
}

// DiffDisplay shows a change to a file.
type DiffDisplay struct {
	Path   string          `json:"path"`
	Before string          `json:"before"`
	After  string          `json:"after"`
	Hunks  json.RawMessage `json:"hunks,omitempty"`
}

// SearchDisplay shows a search.
type SearchDisplay struct {
	Query string `json:"query"`
	Scope string `json:"scope,omitempty"`
}

// URLFetchDisplay shows a fetch.
type URLFetchDisplay struct {
	URL    string `json:"url"`
	Method string `json:"method,omitempty"`
}

// TodoItem is one entry of a TodoListDisplay.
type TodoItem struct {
	Title  string `json:"title"`
	Status string `json:"status"`
}

// TodoListDisplay shows a todo list.
type TodoListDisplay struct {
	Items []TodoItem `json:"items"`
}

// GenericDisplay is a summary with optional detail (any JSON value).
type GenericDisplay struct {
	Summary string `json:"summary"`
	Detail  any    `json:"detail,omitempty"`
}

// DisplayKind implementations.
func (*CommandDisplay) DisplayKind() DisplayKind  { return DisplayCommand }
func (*FileIODisplay) DisplayKind() DisplayKind   { return DisplayFileIO }
func (*DiffDisplay) DisplayKind() DisplayKind     { return DisplayDiff }
func (*SearchDisplay) DisplayKind() DisplayKind   { return DisplaySearch }
func (*URLFetchDisplay) DisplayKind() DisplayKind { return DisplayURLFetch }
func (*TodoListDisplay) DisplayKind() DisplayKind { return DisplayTodoList }
func (*GenericDisplay) DisplayKind() DisplayKind  { return DisplayGeneric }

// MarshalJSON writes {"kind":"…",…}.
func (d *CommandDisplay) MarshalJSON() ([]byte, error) {
	type plain CommandDisplay
	return MarshalDisplay(DisplayCommand, (*plain)(d))
}

// MarshalJSON writes {"kind":"…",…}.
func (d *FileIODisplay) MarshalJSON() ([]byte, error) {
	type plain FileIODisplay
	return MarshalDisplay(DisplayFileIO, (*plain)(d))
}

// MarshalJSON writes {"kind":"…",…}.
func (d *DiffDisplay) MarshalJSON() ([]byte, error) {
	type plain DiffDisplay
	return MarshalDisplay(DisplayDiff, (*plain)(d))
}

// MarshalJSON writes {"kind":"…",…}.
func (d *SearchDisplay) MarshalJSON() ([]byte, error) {
	type plain SearchDisplay
	return MarshalDisplay(DisplaySearch, (*plain)(d))
}

// MarshalJSON writes {"kind":"…",…}.
func (d *URLFetchDisplay) MarshalJSON() ([]byte, error) {
	type plain URLFetchDisplay
	return MarshalDisplay(DisplayURLFetch, (*plain)(d))
}

// MarshalJSON writes {"kind":"…",…}.
func (d *TodoListDisplay) MarshalJSON() ([]byte, error) {
	type plain TodoListDisplay
	return MarshalDisplay(DisplayTodoList, (*plain)(d))
}

// MarshalJSON writes {"kind":"…",…}.
func (d *GenericDisplay) MarshalJSON() ([]byte, error) {
	type plain GenericDisplay
	return MarshalDisplay(DisplayGeneric, (*plain)(d))
}

// MarshalDisplay writes v, which must encode as a JSON object, as the
// display block {"kind":kind,…}. A Display's MarshalJSON calls it with a
// type that has no MarshalJSON of its own.
func MarshalDisplay(kind DisplayKind, v any) ([]byte, error) {
	return marshalTagged("kind", string(kind), v)
}

// RawDisplay is a display block of a kind DecodeDisplay has no type for:
// a feature's own display, or one a newer kimigo wrote. It marshals back
// to the bytes it was read from.
type RawDisplay struct {
	Kind DisplayKind
	JSON json.RawMessage
}

// DisplayKind returns the block's kind.
func (d *RawDisplay) DisplayKind() DisplayKind { return d.Kind }

// MarshalJSON returns the block as it was read.
func (d *RawDisplay) MarshalJSON() ([]byte, error) { return d.JSON, nil }

// DecodeDisplay reads a display block {"kind":…,…}. A kind this package
// has no type for comes back as a *RawDisplay.
func DecodeDisplay(data []byte) (Display, error) {
	var head struct {
		Kind DisplayKind `json:"kind"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return nil, fmt.Errorf("display: %w", err)
	}
	if head.Kind == "" {
		return nil, errors.New("display: no kind")
	}
	d := newDisplay(head.Kind)
	if d == nil {
		return &RawDisplay{Kind: head.Kind, JSON: slices.Clone(json.RawMessage(data))}, nil
	}
	if err := json.Unmarshal(data, d); err != nil {
		return nil, fmt.Errorf("display %s: %w", head.Kind, err)
	}
	return d, nil
}

func newDisplay(k DisplayKind) Display {
	switch k {
	case DisplayCommand:
		return &CommandDisplay{}
	case DisplayFileIO:
		return &FileIODisplay{}
	case DisplayDiff:
		return &DiffDisplay{}
	case DisplaySearch:
		return &SearchDisplay{}
	case DisplayURLFetch:
		return &URLFetchDisplay{}
	case DisplayTodoList:
		return &TodoListDisplay{}
	case DisplayGeneric:
		return &GenericDisplay{}
	}
	return nil
}
