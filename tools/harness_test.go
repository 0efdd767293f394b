package tools_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/loop"
	"github.com/kimigo/kimigo/loop/looptest"
	"github.com/kimigo/kimigo/osenv"
	"github.com/kimigo/kimigo/tools"
)

// workspace is a real temporary workspace: dir is the agent cwd (like /ws
// in the spec's scenarios) and home a separate home directory.
type workspace struct {
	dir, home string
	env       osenv.Env
	base      tools.Base
}

func newWorkspace(t *testing.T) *workspace {
	t.Helper()
	root := t.TempDir()
	ws := filepath.Join(root, "ws")
	home := filepath.Join(root, "home")
	for _, d := range []string{ws, home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	env := osenv.NewLocal(osenv.LocalOptions{Cwd: ws, Home: home, Environ: []string{"PATH=" + os.Getenv("PATH")}})
	return &workspace{dir: ws, home: home, env: env, base: tools.Base{Env: env}}
}

// path joins names to the workspace dir.
func (w *workspace) path(names ...string) string {
	return filepath.Join(append([]string{w.dir}, names...)...)
}

func (w *workspace) write(t *testing.T, name, content string) string {
	t.Helper()
	p := name
	if !filepath.IsAbs(p) {
		p = w.path(name)
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func (w *workspace) read(t *testing.T, name string) string {
	t.Helper()
	p := name
	if !filepath.IsAbs(p) {
		p = w.path(name)
	}
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func execCtx() loop.ExecCtx {
	return loop.ExecCtx{TurnID: "1", ToolCallID: "call-1",
		OnUpdate: func(loop.ProgressUpdate) {}, OnForegroundTaskStart: func(string) {}}
}

// call resolves and executes one call the way the loop does after
// validation: a verbatim resolve error becomes an error result with its
// message; any other resolve error fails the test.
func call(t *testing.T, tool loop.ExecutableTool, args string) loop.ToolResult {
	t.Helper()
	return callCtx(t, t.Context(), tool, args)
}

func callCtx(t *testing.T, ctx context.Context, tool loop.ExecutableTool, args string) loop.ToolResult {
	t.Helper()
	exec, res, err := tool.ResolveExecution(json.RawMessage(args))
	if err != nil {
		var v loop.VerbatimError
		if errors.As(err, &v) && v.Verbatim() {
			return loop.ErrorResult(err.Error())
		}
		t.Fatalf("ResolveExecution(%s) error: %v", args, err)
	}
	if res != nil {
		return *res
	}
	r, err := exec.Execute(ctx, execCtx())
	if err != nil {
		t.Fatalf("Execute(%s) error: %v", args, err)
	}
	return r
}

// runTurn runs one real loop turn in which the model makes calls (all in
// one response) and then answers "done"; it returns the recorded results
// in provider order.
func runTurn(t *testing.T, table []loop.ExecutableTool, calls ...llm.ToolCall) []loop.ToolResult {
	t.Helper()
	return runTurnCtx(t, t.Context(), table, calls...)
}

func runTurnCtx(t *testing.T, ctx context.Context, table []loop.ExecutableTool, calls ...llm.ToolCall) []loop.ToolResult {
	t.Helper()
	fake := looptest.New(looptest.Calls(calls...), looptest.Text("done"))
	rec := &looptest.Recorder{}
	_, err := loop.RunTurn(ctx, loop.RunTurnInput{
		TurnID: "1", LLM: looptest.WithoutRetry(fake), Dispatch: rec.Dispatcher(), Tools: table,
		BuildMessages: func(context.Context) ([]llm.Message, error) {
			return []llm.Message{{Role: llm.RoleUser, Content: []llm.ContentPart{llm.TextPart("go")}}}, nil
		},
	})
	if err != nil {
		t.Fatalf("RunTurn: %v", err)
	}
	var out []loop.ToolResult
	for _, ev := range looptest.RecordedOfType[loop.ToolResultEvent](rec) {
		out = append(out, ev.Result)
	}
	return out
}

func text(r loop.ToolResult) string { return r.Output.Text() }

func wantError(t *testing.T, r loop.ToolResult, want string) {
	t.Helper()
	if !r.IsError || text(r) != want {
		t.Errorf("result = %q (isError %v); want error %q", text(r), r.IsError, want)
	}
}

func wantOK(t *testing.T, r loop.ToolResult, want string) {
	t.Helper()
	if r.IsError || text(r) != want {
		t.Errorf("result = %q (isError %v); want success %q", text(r), r.IsError, want)
	}
}

func jsonMarshal(v any) (string, error) {
	b, err := json.Marshal(v)
	return string(b), err
}

func callOf(id, name, args string) llm.ToolCall { return looptest.Call(id, name, args) }

// runtimeGosched yields while polling for an external condition (a child
// process writing a file or the kernel reaping one).
func runtimeGosched() { time.Sleep(5 * time.Millisecond) }
