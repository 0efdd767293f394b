package plan

import (
	"context"
	"crypto/rand"
	_ "embed"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"math/big"
	"path/filepath"
	"strings"
	"sync"
	"syscall"

	"github.com/kimigo/kimigo/osenv"
)

// ErrAlreadyActive is returned by Enter while plan mode is on.
var ErrAlreadyActive = errors.New("Already in plan mode") //lint:ignore ST1005 the wording is spec 04 §5.1's

// ErrNotActive is returned by Exit while plan mode is off.
var ErrNotActive = errors.New("not in plan mode")

// Options configure a Mode. The zero value is a plan mode on the local
// machine without an agent home: plan files go to <cwd>/plan.
type Options struct {
	// Env is the OS seam for the plan file; nil means the local machine.
	Env osenv.Env
	// HomeDir is the agent's home (<session>/agents/<id>): plan files go
	// to its plans/ directory. Empty means <cwd>/plan.
	HomeDir string
	// Cwd returns the work dir, asked when a path is made; nil means
	// Env.Cwd().
	Cwd func() string
	// NewID names a new plan; nil means a random three-word slug.
	NewID func() string
	// Logger receives logs; nil discards.
	Logger *slog.Logger
	// Unreviewed says nobody reviews plans here (a headless --plan run,
	// whose plan is its answer): the review policy has no opinion and
	// ExitPlanMode runs, leaving plan mode with the plan marked as not
	// reviewed. No permission rule can say this (see Review).
	Unreviewed bool
}

// State is plan mode at one instant.
type State struct {
	Active bool   `json:"active"`
	ID     string `json:"id,omitempty"`
	// Path is the plan file; empty while plan mode is off.
	Path string `json:"path,omitempty"`
}

// Data is the current plan (spec 04 §5.1 getPlan).
type Data struct {
	ID      string `json:"id"`
	Content string `json:"content"`
	Path    string `json:"path"`
}

// Mode is one agent's plan mode (spec 04 §5): whether it is on and which
// plan file it writes. It changes only through Apply, of the records its
// operations commit through the Host, so a resume restores it exactly. It
// also provides the plan policies of the permission chain (policy.go), the
// plan reminder (reminder.go) and the plan tools' view (tools.PlanMode).
// Every method is safe for concurrent use.
type Mode struct {
	o      Options
	env    osenv.Env
	logger *slog.Logger

	// op serializes the operations: each reads the state, commits a
	// record and lets Apply change the state. It is taken before the
	// agent's state lock (inside Commit), never after it.
	op sync.Mutex

	mu    sync.Mutex // guards the fields below; taken by Apply under the agent's lock
	host  Host
	state State
}

// New returns plan mode, off, for o.
func New(o Options) *Mode {
	m := &Mode{o: o, env: o.Env, logger: o.Logger}
	if m.env == nil {
		m.env = osenv.NewLocal(osenv.LocalOptions{})
	}
	if m.logger == nil {
		m.logger = slog.New(slog.DiscardHandler)
	}
	if m.o.NewID == nil {
		m.o.NewID = newSlug
	}
	return m
}

// Bind connects plan mode to its agent; the agent calls it once, when it
// is built. Unbound, records are applied without being kept.
func (m *Mode) Bind(h Host) {
	m.mu.Lock()
	m.host = h
	m.mu.Unlock()
}

// State returns plan mode's state.
func (m *Mode) State() State {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.state
}

// PathFor is the plan file of plan id: <home>/plans/<id>.md, or
// <cwd>/plan/<id>.md for an agent without a home (spec 04 §5.2); "" when
// there is neither a home nor an absolute work dir.
func (m *Mode) PathFor(id string) string {
	if m.o.HomeDir != "" {
		return filepath.Join(m.o.HomeDir, "plans", id+".md")
	}
	cwd := ""
	if m.o.Cwd != nil {
		cwd = m.o.Cwd()
	} else {
		cwd = m.env.Cwd()
	}
	if !filepath.IsAbs(cwd) {
		return ""
	}
	return filepath.Join(cwd, "plan", id+".md")
}

// EnterOptions say how plan mode is entered.
type EnterOptions struct {
	// ID names the plan; "" picks a new one.
	ID string
	// CreateFile writes an empty plan file.
	CreateFile bool
}

// Enter turns plan mode on (spec 04 §5.1): the plan file's directory is
// created, then plan_mode.enter is committed; with CreateFile an empty plan
// file is written, and plan mode is cancelled again when that fails. It
// fails with ErrAlreadyActive while plan mode is on.
func (m *Mode) Enter(ctx context.Context, o EnterOptions) error {
	m.op.Lock()
	defer m.op.Unlock()
	if m.State().Active {
		return ErrAlreadyActive
	}
	id := o.ID
	if id == "" {
		id = m.o.NewID()
	}
	path := m.PathFor(id)
	if path != "" {
		if err := m.env.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return fmt.Errorf("create plan directory: %w", err)
		}
	}
	if err := m.commit(ctx, EnterRecord{ID: id}); err != nil {
		return err
	}
	if o.CreateFile && path != "" {
		if err := osenv.WriteFileAtomic(m.env, path, nil, 0o644); err != nil {
			return errors.Join(fmt.Errorf("create plan file: %w", err), m.commit(ctx, CancelRecord{ID: id}))
		}
	}
	return nil
}

// Cancel turns plan mode off at the user's request (/plan off). It does
// nothing while plan mode is off.
func (m *Mode) Cancel(ctx context.Context) error {
	m.op.Lock()
	defer m.op.Unlock()
	s := m.State()
	if !s.Active {
		return nil
	}
	return m.commit(ctx, CancelRecord{ID: s.ID})
}

// Exit ends plan mode because the plan was accepted or rejected
// (ExitPlanMode). It fails with ErrNotActive while plan mode is off.
func (m *Mode) Exit(ctx context.Context) error {
	m.op.Lock()
	defer m.op.Unlock()
	s := m.State()
	if !s.Active {
		return ErrNotActive
	}
	return m.commit(ctx, ExitRecord{ID: s.ID})
}

// Clear empties the plan file; plan mode stays as it is (/plan clear).
// Nothing is recorded: the file is not agent state.
func (m *Mode) Clear() error {
	s := m.State()
	if s.Path == "" {
		return nil
	}
	if err := osenv.WriteFileAtomic(m.env, s.Path, nil, 0o644); err != nil {
		return fmt.Errorf("clear plan file: %w", err)
	}
	return nil
}

// Data returns the current plan, or nil when plan mode has no plan file.
// A missing file reads as empty; other read errors are returned.
func (m *Mode) Data() (*Data, error) {
	s := m.State()
	if s.ID == "" || s.Path == "" {
		return nil, nil
	}
	content, err := m.read(s.Path)
	if err != nil {
		return nil, err
	}
	return &Data{ID: s.ID, Content: content, Path: s.Path}, nil
}

// read returns the plan file's text, "" when it does not exist.
func (m *Mode) read(path string) (string, error) {
	if path == "" {
		return "", nil
	}
	b, err := m.env.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read plan file: %w", err)
	}
	return string(b), nil
}

// Apply applies one of plan mode's records, live right after its commit
// and on resume. It never writes, emits or does I/O.
func (m *Mode) Apply(p Payload) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	switch r := p.(type) {
	case EnterRecord:
		if r.ID == "" {
			return fmt.Errorf("apply %s: missing id", TypeEnter)
		}
		m.state = State{Active: true, ID: r.ID, Path: m.PathFor(r.ID)}
	case CancelRecord, ExitRecord:
		m.state = State{}
	default:
		return fmt.Errorf("apply plan mode record: unsupported payload %T", p)
	}
	return nil
}

// commit hands p to the host, or applies it when plan mode is unbound.
func (m *Mode) commit(ctx context.Context, p Payload) error {
	m.mu.Lock()
	h := m.host
	m.mu.Unlock()
	if h == nil {
		return m.Apply(p)
	}
	if err := h.Commit(ctx, p); err != nil {
		return fmt.Errorf("commit %s: %w", p.RecordType(), err)
	}
	return nil
}

// permissionMode is the agent's permission mode, manual when unbound.
func (m *Mode) permissionMode() string {
	m.mu.Lock()
	h := m.host
	m.mu.Unlock()
	if h == nil {
		return "manual"
	}
	return h.PermissionMode()
}

//go:embed text/words.txt
var slugWords string

// newSlug is three random words joined by "-" (spec 04 §5.2).
func newSlug() string {
	words := strings.Fields(slugWords)
	parts := make([]string, 3)
	for i := range parts {
		n, err := rand.Int(rand.Reader, big.NewInt(int64(len(words))))
		if err != nil { // crypto/rand does not fail on supported systems
			n = big.NewInt(int64(i))
		}
		parts[i] = words[n.Int64()]
	}
	return strings.Join(parts, "-")
}
