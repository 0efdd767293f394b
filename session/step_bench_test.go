package session_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/kimigo/kimigo/config"
	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/osenv"
	"github.com/kimigo/kimigo/session"
)

// stepServer answers Chat Completions requests with a canned stream: a
// call of toolName per request while steps last, then a text answer; args
// is a format whose %d is the line (1–1000) the call looks at, so no two
// neighbouring calls repeat. It reads
// each body whole and decodes nothing, so nearly everything a step
// allocates is the session's own.
type stepServer struct {
	steps    atomic.Int64 // tool calls still to answer
	served   atomic.Int64
	toolName string
	args     string
}

func (s *stepServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	n := s.served.Add(1)
	w.Header().Set("Content-Type", "text/event-stream")
	const head = `data: {"id":"c","object":"chat.completion.chunk","created":0,"model":"m","choices":[{"index":0,"delta":`
	if s.steps.Add(-1) >= 0 {
		fmt.Fprintf(w, "%s{\"role\":\"assistant\",\"tool_calls\":[{\"index\":0,\"id\":\"call_%d\",\"type\":\"function\","+
			"\"function\":{\"name\":%q,\"arguments\":%q}}]},\"finish_reason\":null}]}\n\n", head, n, s.toolName,
			fmt.Sprintf(s.args, n%1000+1))
		fmt.Fprintf(w, "%s{},\"finish_reason\":\"tool_calls\"}],\"usage\":{\"prompt_tokens\":100,\"completion_tokens\":5,"+
			"\"total_tokens\":105}}\n\ndata: [DONE]\n\n", head)
		return
	}
	fmt.Fprintf(w, "%s{\"role\":\"assistant\",\"content\":\"Done.\"},\"finish_reason\":null}]}\n\n", head)
	fmt.Fprintf(w, "%s{},\"finish_reason\":\"stop\"}],\"usage\":{\"prompt_tokens\":100,\"completion_tokens\":5,"+
		"\"total_tokens\":105}}\n\ndata: [DONE]\n\n", head)
}

// openStepSession opens a new session in a fresh data root whose model is
// srv, with a.txt (1000 lines) in its work dir.
func openStepSession(b testing.TB, srv *httptest.Server, mode event.PermissionMode) *session.Session {
	b.Helper()
	base := b.TempDir()
	root, cfgHome, work := filepath.Join(base, "home"), filepath.Join(base, "config"), filepath.Join(base, "work")
	for _, d := range []string{cfgHome, work} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			b.Fatal(err)
		}
	}
	lines := make([]byte, 0, 16000)
	for i := 1; i <= 1000; i++ {
		lines = fmt.Appendf(lines, "line %d\n", i)
	}
	if err := os.WriteFile(filepath.Join(work, "a.txt"), lines, 0o600); err != nil {
		b.Fatal(err)
	}
	toml := fmt.Sprintf(`default_model = "fake"

[providers.fake]
type = "openai"
base_url = %q

[models.fake]
provider = "fake"
model = "fake-model"
max_context_size = 1000000
`, srv.URL+"/v1")
	if err := os.WriteFile(config.ConfigFile(cfgHome), []byte(toml), 0o600); err != nil {
		b.Fatal(err)
	}
	cfg, _, err := config.Load(config.LoadOptions{Home: cfgHome, Env: config.Env{}})
	if err != nil {
		b.Fatal(err)
	}
	s, err := session.Open(b.Context(), session.Options{Config: cfg, Home: root, WorkDir: work, Mode: mode,
		Env: osenv.NewLocal(osenv.LocalOptions{Cwd: work, Environ: []string{"PATH=" + os.Getenv("PATH")}}), Version: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = s.Close(b.Context()) })
	return s
}

// runSteps runs one turn of n tool round trips.
func runSteps(tb testing.TB, s *session.Session, sub *event.Subscription, st *stepServer, n int) {
	tb.Helper()
	st.steps.Store(int64(n))
	before := st.served.Load()
	if err := s.Prompt(tb.Context(), []llm.ContentPart{llm.TextPart("go")}); err != nil {
		tb.Fatal(err)
	}
	for {
		ev, err := sub.Next(tb.Context())
		if err != nil {
			tb.Fatal(err)
		}
		if e, ok := ev.(event.TurnEnded); ok {
			if e.Reason != event.EndCompleted {
				tb.Fatalf("turn ended %+v", e)
			}
			break
		}
	}
	if got := st.served.Load() - before; got != int64(n)+1 {
		tb.Fatalf("%d requests for %d steps", got, n)
	}
}

// benchSteps runs one turn of b.N tool round trips (each a model request
// over loopback HTTP, its streamed answer, the tool and its records) and
// reports the time and allocations per step.
func benchSteps(b *testing.B, toolName, args string, mode event.PermissionMode) {
	st := &stepServer{toolName: toolName, args: args}
	srv := httptest.NewServer(st)
	defer srv.Close()
	s := openStepSession(b, srv, mode)
	sub := s.Subscribe()
	defer sub.Close()
	b.ReportAllocs()
	b.ResetTimer()
	runSteps(b, s, sub, st, b.N)
	b.StopTimer()
}

// BenchmarkSessionReadStep is one Read round trip of a session's main
// agent on the real path: the openai provider over loopback HTTP, the
// file-backed records with their fsyncs, the Read tool.
func BenchmarkSessionReadStep(b *testing.B) {
	benchSteps(b, "Read", `{"path":"a.txt","line_offset":%d,"n_lines":1}`, "")
}

// BenchmarkSessionBashStep is one Bash round trip (sed printing a line of
// a.txt), a shell command per step as the floor program's.
func BenchmarkSessionBashStep(b *testing.B) {
	benchSteps(b, "Bash", `{"command":"sed -n %dp a.txt"}`, event.PermissionMode("yolo"))
}

// TestLiveHeapIsProportionalToTheConversation is issue 23's "no per-step
// residue": from 50 to 250 Read round trips in one session, the live heap
// (after a GC) grows by no more than a small multiple of what the records
// grew by on disk (the conversation, plus request traces the heap does not
// keep), so nothing is left behind per step beyond the conversation.
func TestLiveHeapIsProportionalToTheConversation(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 250 steps")
	}
	st := &stepServer{toolName: "Read", args: `{"path":"a.txt","line_offset":%d,"n_lines":1}`}
	srv := httptest.NewServer(st)
	defer srv.Close()
	s := openStepSession(t, srv, "")
	sub := s.Subscribe()
	defer sub.Close()
	wire := filepath.Join(s.Dir(), "agents", session.MainAgentID, "wire.jsonl")
	measure := func() (heap, disk int64) {
		runtime.GC()
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		fi, err := os.Stat(wire)
		if err != nil {
			t.Fatal(err)
		}
		return int64(m.HeapAlloc), fi.Size()
	}
	runSteps(t, s, sub, st, 50)
	heap1, disk1 := measure()
	runSteps(t, s, sub, st, 200)
	heap2, disk2 := measure()
	grew, conv := heap2-heap1, disk2-disk1
	t.Logf("200 steps: live heap %+d B (%d B/step), records %+d B (%d B/step)", grew, grew/200, conv, conv/200)
	if grew > 3*conv {
		t.Errorf("the live heap grew by %d B over 200 steps, more than 3× the %d B the records grew by: a per-step residue",
			grew, conv)
	}
}
