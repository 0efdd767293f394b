package session_test

import (
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/kimigo/kimigo/agent"
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/llm/scripted"
	"github.com/kimigo/kimigo/osenv"
	"github.com/kimigo/kimigo/session"
)

// rig is a data root and a work dir on the real file system, with a
// scripted model shared by every session it opens.
type rig struct {
	t       *testing.T
	root    string
	workDir string
	store   *session.Store
	model   *scripted.Provider
}

func newRig(t *testing.T, replies ...string) *rig {
	t.Helper()
	var responses []scripted.Response
	for _, r := range replies {
		responses = append(responses, scripted.Text(r))
	}
	base := t.TempDir()
	r := &rig{t: t, root: filepath.Join(base, "home"), workDir: filepath.Join(base, "work"),
		model: scripted.New(scripted.Options{Responses: responses})}
	if err := os.MkdirAll(r.workDir, 0o755); err != nil {
		t.Fatal(err)
	}
	r.store = session.NewStore(session.StoreOptions{FS: osenv.LocalFS{}, Root: r.root})
	return r
}

// opts are session options for work dir w ("" means the rig's).
func (r *rig) opts(w string) session.Options {
	if w == "" {
		w = r.workDir
	}
	return session.Options{Store: r.store, WorkDir: w,
		Env: osenv.NewLocal(osenv.LocalOptions{Cwd: w, Environ: []string{}}),
		Agent: func(session.AgentSetup) agent.Options {
			return agent.Options{Provider: r.model, Config: agent.Config{SystemPrompt: "You are kimigo."}}
		}}
}

// prompt runs one prompt to the end of its turn.
func prompt(t *testing.T, s *session.Session, text string) {
	t.Helper()
	ctx := t.Context()
	if err := s.Prompt(ctx, []llm.ContentPart{llm.TextPart(text)}); err != nil {
		t.Fatalf("Prompt(%q): %v", text, err)
	}
	res, err := s.Agent().WaitForCurrentTurn(ctx)
	if err != nil {
		t.Fatalf("turn of %q: %v", text, err)
	}
	if res.Event.Reason != "completed" {
		t.Fatalf("turn of %q ended %q", text, res.Event.Reason)
	}
}

func closeSession(t *testing.T, s *session.Session) {
	t.Helper()
	if err := s.Close(context.WithoutCancel(t.Context())); err != nil {
		t.Fatalf("Close: %v", err)
	}
}

// fileState is what snapshot records of one file.
type fileState struct {
	Data    string
	Mode    fs.FileMode
	ModTime time.Time
}

// snapshot records every file and directory below dir, to prove that
// something changed nothing.
func snapshot(t *testing.T, dir string) map[string]fileState {
	t.Helper()
	out := map[string]fileState{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		st := fileState{Mode: fi.Mode(), ModTime: fi.ModTime()}
		if d.Type().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			st.Data = string(b)
		}
		out[p] = st
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func readState(t *testing.T, dir string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, session.StateFileName))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("state.json: %v\n%s", err, b)
	}
	return m
}

func textParts(s string) []llm.ContentPart { return []llm.ContentPart{llm.TextPart(s)} }

func textOf(m llm.Message) string { return llm.ExtractText(m, "\n") }

// blockingModel is a model whose every answer waits until its request is
// cancelled: a run that can only end by being interrupted.
type blockingModel struct {
	*scripted.Provider
	started chan struct{} // closed by the first Generate
	once    *sync.Once
}

func newBlockingModel() blockingModel {
	return blockingModel{Provider: scripted.New(scripted.Options{}), started: make(chan struct{}), once: &sync.Once{}}
}

func (b blockingModel) WithThinking(string) llm.Provider { return b }

func (b blockingModel) WithMaxCompletionTokens(int, llm.ContextBudget) llm.Provider { return b }

func (b blockingModel) Generate(ctx context.Context, _ *llm.Request) (llm.Stream, error) {
	b.once.Do(func() { close(b.started) })
	<-ctx.Done()
	return nil, llm.Aborted(ctx)
}
