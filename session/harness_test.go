package session_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/kimigo/kimigo/config"
	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/llm/llmtest"
	"github.com/kimigo/kimigo/osenv"
	"github.com/kimigo/kimigo/session"
)

// rig is a data root and a work dir on the real file system, and a
// configuration whose default model "fake" is a loopback fake model
// server shared by every session it opens.
type rig struct {
	t       testing.TB
	root    string // the data root of the sessions
	cfgHome string // where config.toml is
	workDir string
	store   *session.Store
	srv     *llmtest.Server
	cfg     *config.Config
	cfgText string // config.toml as last written
	notices []session.Notice
}

// newRig starts a fake server answering replies in order, one per
// request.
func newRig(t *testing.T, replies ...string) *rig {
	t.Helper()
	var rs []llmtest.Reply
	for _, r := range replies {
		rs = append(rs, llmtest.Text(r))
	}
	return newRigOn(t, llmtest.FakeChatCompletions(t, rs...))
}

// newRigOn is a rig whose default model is the fake srv.
func newRigOn(t testing.TB, srv *llmtest.Server) *rig {
	t.Helper()
	base := t.TempDir()
	r := &rig{t: t, root: filepath.Join(base, "home"), cfgHome: filepath.Join(base, "config"),
		workDir: filepath.Join(base, "work"), srv: srv}
	for _, d := range []string{r.workDir, r.cfgHome} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	r.writeConfig(fmt.Sprintf(`default_model = "fake"

[providers.fake]
type = "openai"
base_url = %q

[models.fake]
provider = "fake"
model = "fake-model"
max_context_size = 100000
`, llmtest.ChatBaseURL(r.srv)))
	r.store = session.NewStore(session.StoreOptions{FS: osenv.LocalFS{}, Root: r.root})
	return r
}

// writeConfig replaces config.toml and loads it.
func (r *rig) writeConfig(toml string) {
	r.t.Helper()
	r.cfgText = toml
	if err := os.WriteFile(config.ConfigFile(r.cfgHome), []byte(toml), 0o600); err != nil {
		r.t.Fatal(err)
	}
	cfg, warnings, err := config.Load(config.LoadOptions{Home: r.cfgHome, Env: config.Env{}})
	if err != nil || len(warnings) > 0 {
		r.t.Fatalf("load config: %v %v", warnings, err)
	}
	r.cfg = cfg
}

// configText is config.toml as last written.
func (r *rig) configText() string { return r.cfgText }

// opts are the options of a new session in work dir w ("" means the
// rig's).
func (r *rig) opts(w string) session.Options {
	if w == "" {
		w = r.workDir
	}
	return session.Options{Config: r.cfg, Store: r.store, Home: r.root, WorkDir: w,
		Env: osenv.NewLocal(osenv.LocalOptions{Cwd: w, Environ: []string{}}), Version: "test",
		Notify: func(n session.Notice) { r.notices = append(r.notices, n) }}
}

// resumeOpts resume session id from work dir w.
func (r *rig) resumeOpts(id, w string) session.Options {
	o := r.opts(w)
	o.Resume = id
	return o
}

// contOpts continue the latest session of work dir w.
func (r *rig) contOpts(w string) session.Options {
	o := r.opts(w)
	o.Continue = true
	return o
}

// ran opens a new session, runs each prompt in it and closes it.
func (r *rig) ran(t *testing.T, prompts ...string) *session.Session {
	t.Helper()
	s, err := session.Open(t.Context(), r.opts(""))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range prompts {
		prompt(t, s, p)
	}
	closeSession(t, s)
	return s
}

// start opens a new session answering requests as requests says,
// subscribes to it and sends text; the test closes both at its end.
func (r *rig) start(t *testing.T, requests session.Requests, text string) (*session.Session, *event.Subscription) {
	t.Helper()
	o := r.opts("")
	o.Requests = requests
	s, err := session.Open(t.Context(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { closeSession(t, s) })
	sub := s.Subscribe()
	t.Cleanup(sub.Close)
	if err := s.Prompt(t.Context(), textParts(text)); err != nil {
		t.Fatal(err)
	}
	return s, sub
}

// prompt runs one prompt to the end of its turn, which must complete.
func prompt(t *testing.T, s *session.Session, text string) {
	t.Helper()
	if ended := run(t, s, text); ended.Reason != event.EndCompleted {
		t.Fatalf("turn of %q ended %+v", text, ended)
	}
}

// run sends a prompt and reads the session's events until its turn ended.
func run(t *testing.T, s *session.Session, text string) event.TurnEnded {
	t.Helper()
	sub := s.Subscribe()
	defer sub.Close()
	if err := s.Prompt(t.Context(), []llm.ContentPart{llm.TextPart(text)}); err != nil {
		t.Fatalf("Prompt(%q): %v", text, err)
	}
	return waitEnded(t, sub)
}

// waitEnded reads sub until the main agent's turn.ended.
func waitEnded(t *testing.T, sub *event.Subscription) event.TurnEnded {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute) // a deadlock guard, not a measurement
	defer cancel()
	for {
		ev, err := sub.Next(ctx)
		if err != nil {
			t.Fatalf("waiting for turn.ended: %v", err)
		}
		if e, ok := ev.(event.TurnEnded); ok {
			return e
		}
	}
}

func closeSession(t *testing.T, s *session.Session) {
	t.Helper()
	if err := s.Close(context.WithoutCancel(t.Context())); err != nil {
		t.Fatalf("Close: %v", err)
	}
}

// sentMessages are the wire messages of the fake server's request i
// (negative: from the end).
func (r *rig) sentMessages(i int) []map[string]any {
	r.t.Helper()
	reqs := r.srv.Requests()
	if i < 0 {
		i += len(reqs)
	}
	var body struct {
		Messages []map[string]any `json:"messages"`
	}
	if err := json.Unmarshal(reqs[i].Body, &body); err != nil {
		r.t.Fatal(err)
	}
	return body.Messages
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
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
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
