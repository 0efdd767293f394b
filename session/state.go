package session

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path/filepath"
	"slices"
	"time"

	"github.com/kimigo/kimigo/osenv"
)

// StateFileName is the session metadata file inside a session directory.
const StateFileName = "state.json"

// DefaultTitle is the title of a session nobody named yet.
const DefaultTitle = "New Session"

// AgentType is the kind of an agent of a session (state.json agents).
type AgentType string

// Agent types.
const (
	AgentMain        AgentType = "main"
	AgentSub         AgentType = "sub"
	AgentIndependent AgentType = "independent"
)

// MainAgentID is the id, and home directory name, of the main agent.
const MainAgentID = "main"

// AgentEntry is one agent of a session in state.json.
type AgentEntry struct {
	HomeDir       string          `json:"homedir"`
	Type          AgentType       `json:"type"`
	ParentAgentID *string         `json:"parentAgentId"`
	SwarmItem     json.RawMessage `json:"swarmItem,omitempty"`
}

// State is the content of state.json (spec 02 §6.15, spec 06 §4.1).
// Timestamps are ISO-8601 strings as written. Fields this version does not
// know (a newer kimigo's, the profile catalogue snapshot) are kept in
// Extra and written back unchanged.
type State struct {
	CreatedAt      string                     `json:"createdAt,omitempty"`
	UpdatedAt      string                     `json:"updatedAt,omitempty"`
	Title          string                     `json:"title"`
	IsCustomTitle  bool                       `json:"isCustomTitle"`
	LastPrompt     string                     `json:"lastPrompt,omitempty"`
	ForkedFrom     string                     `json:"forkedFrom,omitempty"`
	WorkDir        string                     `json:"workDir,omitempty"`
	AdditionalDirs []string                   `json:"additionalDirs,omitempty"`
	Agents         map[string]AgentEntry      `json:"agents"`
	Custom         map[string]json.RawMessage `json:"custom"`
	Archived       bool                       `json:"archived,omitempty"`
	// Turns counts the user prompts recorded (kimigo's field, so a listing
	// shows a session's size without reading its records); 0 in files
	// written before it existed.
	Turns int `json:"turns,omitempty"`

	// Extra holds the fields not listed above, by name.
	Extra map[string]json.RawMessage `json:"-"`
	// hasCustomFlag is set when the file had a boolean isCustomTitle;
	// older files carried a customTitle string instead.
	hasCustomFlag bool
}

// isStateField reports the keys State decodes itself; the rest go to
// Extra.
func isStateField(k string) bool {
	switch k {
	case "createdAt", "updatedAt", "title", "isCustomTitle", "lastPrompt",
		"forkedFrom", "workDir", "additionalDirs", "agents", "custom", "archived", "turns":
		return true
	}
	return false
}

// stateJSON has State's fields without its methods.
type stateJSON State

// UnmarshalJSON decodes state.json, keeping unknown fields.
func (s *State) UnmarshalJSON(b []byte) error {
	var all map[string]json.RawMessage
	if err := json.Unmarshal(b, &all); err != nil {
		return err
	}
	if all == nil {
		return errors.New("not a JSON object")
	}
	known := map[string]json.RawMessage{}
	extra := map[string]json.RawMessage{}
	for k, v := range all {
		if isStateField(k) {
			known[k] = v
		} else {
			extra[k] = v
		}
	}
	kb, err := json.Marshal(known)
	if err != nil {
		return err
	}
	var st stateJSON
	if err := json.Unmarshal(kb, &st); err != nil {
		return err
	}
	*s = State(st)
	var flag bool
	s.hasCustomFlag = json.Unmarshal(all["isCustomTitle"], &flag) == nil
	if len(extra) > 0 {
		s.Extra = extra
	}
	return nil
}

// MarshalJSON writes the known fields in spec order, then Extra sorted by
// name.
func (s State) MarshalJSON() ([]byte, error) {
	if s.Agents == nil {
		s.Agents = map[string]AgentEntry{}
	}
	if s.Custom == nil {
		s.Custom = map[string]json.RawMessage{}
	}
	b, err := json.Marshal(stateJSON(s))
	if err != nil || len(s.Extra) == 0 {
		return b, err
	}
	var buf bytes.Buffer
	buf.Write(b[:len(b)-1]) // without the closing brace
	for _, k := range slices.Sorted(maps.Keys(s.Extra)) {
		if isStateField(k) {
			continue // a known field set through Extra is not written twice
		}
		kb, _ := json.Marshal(k) // a string always marshals
		fmt.Fprintf(&buf, ",%s:%s", kb, s.Extra[k])
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// DisplayTitle is the title to show: the title, or a legacy file's
// customTitle when it has no isCustomTitle flag (spec 02 §6.15).
func (s State) DisplayTitle() string {
	if !s.hasCustomFlag {
		var legacy string
		if json.Unmarshal(s.Extra["customTitle"], &legacy) == nil && legacy != "" {
			return legacy
		}
	}
	return s.Title
}

// legacyCwd is the work dir of an old state.json that kept it in
// custom.cwd.
func (s State) legacyCwd() string {
	var cwd string
	if json.Unmarshal(s.Custom["cwd"], &cwd) != nil {
		return ""
	}
	return cwd
}

// newState is the state of a session created now.
func newState(now time.Time, sessionDir, workDir string, additionalDirs []string) State {
	ts := formatTime(now)
	return State{
		CreatedAt:      ts,
		UpdatedAt:      ts,
		Title:          DefaultTitle,
		WorkDir:        workDir,
		AdditionalDirs: slices.Clone(additionalDirs),
		Agents: map[string]AgentEntry{MainAgentID: {
			HomeDir: agentHome(sessionDir, MainAgentID), Type: AgentMain}},
		Custom:        map[string]json.RawMessage{},
		hasCustomFlag: true,
	}
}

// agentHome is the home directory of agent id in a session directory.
func agentHome(sessionDir, id string) string { return filepath.Join(sessionDir, "agents", id) }

// formatTime writes t the way JavaScript's toISOString does, which is what
// state.json has always held.
func formatTime(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

// parseTime reads an ISO-8601 timestamp; ok is false when s is not one.
func parseTime(s string) (time.Time, bool) {
	t, err := time.Parse(time.RFC3339Nano, s)
	return t, err == nil
}

// readState reads and decodes <dir>/state.json. A missing file is a
// CodeStateNotFound error, an unreadable or undecodable one a
// CodeStateInvalid error; both name the file.
func readState(fsys osenv.FS, dir string) (State, error) {
	name := filepath.Join(dir, StateFileName)
	b, err := fsys.ReadFile(name)
	if errors.Is(err, fs.ErrNotExist) {
		return State{}, &Error{Code: CodeStateNotFound, Path: name, Err: err}
	}
	if err != nil {
		return State{}, &Error{Code: CodeStateInvalid, Path: name, Err: err}
	}
	var st State
	if err := json.Unmarshal(b, &st); err != nil {
		return State{}, &Error{Code: CodeStateInvalid, Path: name, Err: err}
	}
	return st, nil
}

// writeState replaces <dir>/state.json atomically (temp file + rename +
// directory sync): pretty-printed, two-space indent, trailing newline.
func writeState(fsys osenv.FS, dir string, st State) error {
	return writeStateWith(fsys, dir, st, true)
}

// writeStateNoSync writes a new session's state.json without making it
// durable: the session's first records commit does (Store.create).
func writeStateNoSync(fsys osenv.FS, dir string, st State) error {
	return writeStateWith(fsys, dir, st, false)
}

func writeStateWith(fsys osenv.FS, dir string, st State, sync bool) error {
	name := filepath.Join(dir, StateFileName)
	b, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return fmt.Errorf("encode %s: %w", name, err)
	}
	if err := osenv.WriteFileAtomicWith(fsys, name, append(b, '\n'), osenv.AtomicWrite{Perm: 0o600, NoSync: !sync}); err != nil {
		return err // names the file
	}
	if !sync {
		return nil
	}
	if err := fsys.SyncDir(dir); err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	return nil
}
