package background_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kimigo/kimigo/agent/background"
	"github.com/kimigo/kimigo/loop"
	"github.com/kimigo/kimigo/osenv"
	"github.com/kimigo/kimigo/tools"
)

// rig is a real workspace, a real manager persisting under home, and the
// Bash and task tools on it.
type rig struct {
	dir, home string
	env       osenv.Env
	m         *background.Manager
	r         *recorder
	bash      *tools.Bash
	list      *tools.TaskList
	output    *tools.TaskOutput
	stop      *tools.TaskStop
}

func newRig(t *testing.T, o background.Options, bash tools.BashOptions) *rig {
	t.Helper()
	root := t.TempDir()
	ws, home := filepath.Join(root, "ws"), filepath.Join(root, "agents", "main")
	for _, d := range []string{ws, home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	env := osenv.NewLocal(osenv.LocalOptions{Cwd: ws, Home: root, Environ: []string{"PATH=" + os.Getenv("PATH")}})
	if o.Dir == "" {
		o.Dir = home
	}
	m, r := newManager(t, o)
	bash.Base = tools.Base{Env: env}
	bash.Background = m
	bash.AllowBackground = true
	return &rig{dir: ws, home: home, env: env, m: m, r: r, bash: tools.NewBash(bash),
		list: tools.NewTaskList(m), output: tools.NewTaskOutput(m), stop: tools.NewTaskStop(m)}
}

func args(kv ...any) string {
	m := map[string]any{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i].(string)] = kv[i+1]
	}
	b, _ := json.Marshal(m)
	return string(b)
}

// run resolves and executes one call of tool.
func run(t *testing.T, tool loop.ExecutableTool, raw string) loop.ToolResult {
	t.Helper()
	return runCtx(t, t.Context(), tool, raw)
}

func runCtx(t *testing.T, ctx context.Context, tool loop.ExecutableTool, raw string) loop.ToolResult {
	t.Helper()
	exec, res, err := tool.ResolveExecution(json.RawMessage(raw))
	if err != nil {
		t.Fatalf("resolve %s: %v", raw, err)
	}
	if res != nil {
		return *res
	}
	out, err := exec.Execute(ctx, loop.ExecCtx{ToolCallID: "call-1", OnUpdate: func(loop.ProgressUpdate) {},
		OnForegroundTaskStart: func(string) {}})
	if err != nil {
		t.Fatalf("execute %s: %v", raw, err)
	}
	return out
}

func out(r loop.ToolResult) string { return r.Output.Text() }

var taskIDLine = regexp.MustCompile(`(?m)^task_id: (\S+)$`)

func taskIDIn(t *testing.T, s string) string {
	t.Helper()
	m := taskIDLine.FindStringSubmatch(s)
	if m == nil {
		t.Fatalf("no task_id in %q", s)
	}
	return m[1]
}

// alive reports whether pid is a live process (a zombie counts as gone).
func alive(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return false
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
	return len(fields) > 0 && fields[0] != "Z" && fields[0] != "X"
}

// waitFor polls cond for real processes and files, up to 10 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func waitGone(t *testing.T, pids []int) {
	t.Helper()
	defer func() {
		for _, p := range pids {
			if alive(p) {
				_ = syscall.Kill(p, syscall.SIGKILL)
			}
		}
	}()
	waitFor(t, fmt.Sprintf("processes %v to exit", pids), func() bool {
		for _, p := range pids {
			if alive(p) {
				return false
			}
		}
		return true
	})
}

// processesRunning returns the live processes whose command line holds
// marker.
func processesRunning(marker string) []int {
	entries, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || !alive(pid) {
			continue
		}
		if b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline"); err == nil && strings.Contains(string(b), marker) {
			out = append(out, pid)
		}
	}
	return out
}

var pidLine = regexp.MustCompile(`(?m)^pid (\d+)$`)

func pidsIn(s string) []int {
	var out []int
	for _, m := range pidLine.FindAllStringSubmatch(s, -1) {
		n, _ := strconv.Atoi(m[1])
		out = append(out, n)
	}
	return out
}

// spawnTwo starts two sleeps in the task's group, prints their pids and
// the shell's, and waits.
const spawnTwo = `sleep 100 & echo "pid $!"; sleep 100 & echo "pid $!"; echo "pid $$"; wait`

// pidsOf waits until the task printed n pids and returns them.
func (g *rig) pidsOf(t *testing.T, id string, n int) []int {
	t.Helper()
	var pids []int
	waitFor(t, "the task's pids", func() bool {
		snap, _, _ := g.m.Snapshot(t.Context(), id, 1<<20)
		pids = pidsIn(snap.Preview)
		return len(pids) >= n
	})
	return pids
}

func TestS35ForegroundTimeoutMovesToTheBackground(t *testing.T) {
	t.Parallel()
	g := newRig(t, background.Options{}, tools.BashOptions{})
	r := run(t, g.bash, args("command", "echo started; sleep 2; echo done", "timeout", 1))
	text := out(r)
	if r.IsError || !strings.HasPrefix(text, "task_id: bash-") || !strings.Contains(text, "\nstatus: running\n") ||
		!strings.Contains(text, "automatic_notification: true") || !strings.HasSuffix(text, "foreground_output:\nstarted\n") {
		t.Fatalf("result = %q", text)
	}
	if r.Message != "Command timed out and moved to background." || !strings.HasSuffix(r.Brief, " after timeout") {
		t.Errorf("message %q brief %q", r.Message, r.Brief)
	}
	id := taskIDIn(t, text)
	info, _ := g.m.Wait(t.Context(), id)
	if info.Status != tools.TaskCompleted || !info.Detached || info.ExitCode == nil || *info.ExitCode != 0 {
		t.Fatalf("task = %+v", info)
	}
	steers := g.r.steers()
	if len(steers) != 1 {
		t.Fatalf("%d notifications; want 1", len(steers))
	}
	log := filepath.Join(g.home, "tasks", id, "output.log")
	contains(t, textOf(steers[0]), `<notification id="task:`+id+`:completed"`, "Title: Background process completed",
		`<output-file path="`+log+`" bytes="13">`)
	if b, err := os.ReadFile(log); err != nil || string(b) != "started\ndone\n" {
		t.Errorf("output.log = %q, %v", b, err)
	}
	if b, err := os.ReadFile(filepath.Join(g.home, "tasks", id+".json")); err != nil || !strings.Contains(string(b), `"status": "completed"`) {
		t.Errorf("record = %s, %v", b, err)
	}
}

func TestS36TimeoutKillsWithoutAutoBackground(t *testing.T) {
	t.Parallel()
	g := newRig(t, background.Options{KillGrace: time.Second}, tools.BashOptions{NoAutoBackground: true})
	if d := g.bash.Definition().Description; !strings.Contains(d, "runs out of time is killed") {
		t.Errorf("description does not say timed-out commands are killed:\n%s", d)
	}
	r := run(t, g.bash, args("command", spawnTwo, "timeout", 1))
	if !r.IsError || !strings.HasSuffix(out(r), "Command killed by timeout (1s)") {
		t.Fatalf("result = %q", out(r))
	}
	pids := pidsIn(out(r))
	if len(pids) != 3 {
		t.Fatalf("pids = %v", pids)
	}
	waitGone(t, pids)
	if s := g.r.steers(); len(s) != 0 {
		t.Errorf("a foreground command notified: %v", s)
	}
}

func TestS37TaskListShowsABackgroundCommand(t *testing.T) {
	t.Parallel()
	g := newRig(t, background.Options{}, tools.BashOptions{})
	r := run(t, g.bash, args("command", "sleep 100", "run_in_background", true, "description", "long sleep"))
	id := taskIDIn(t, out(r))
	list := out(run(t, g.list, `{}`))
	contains(t, list, "active_background_tasks: 1\ntask_id: "+id+"\ndescription: long sleep\nstatus: running\ndetached: true",
		"kind: process\ncommand: sleep 100\npid: ")
	if _, _, err := g.m.Stop(t.Context(), id, ""); err != nil {
		t.Fatal(err)
	}
	if got := out(run(t, g.list, `{}`)); got != "active_background_tasks: 0\nNo background tasks found." {
		t.Errorf("empty list = %q", got)
	}
	if got := out(run(t, g.list, `{"active_only":false}`)); !strings.HasPrefix(got, "background_tasks: 1\ntask_id: "+id) ||
		!strings.Contains(got, "status: killed") || !strings.Contains(got, "stop_reason: Stopped by TaskStop") {
		t.Errorf("full list = %q", got)
	}
}

func TestS39TaskStopSuppressesTheNotification(t *testing.T) {
	t.Parallel()
	g := newRig(t, background.Options{}, tools.BashOptions{})
	id := taskIDIn(t, out(run(t, g.bash, args("command", "sleep 100", "run_in_background", true, "description", "x"))))
	r := run(t, g.stop, args("task_id", id))
	if r.IsError || out(r) != "task_id: "+id+"\nstatus: killed\nreason: Stopped by TaskStop" {
		t.Fatalf("stop = %q (error %v)", out(r), r.IsError)
	}
	done := taskIDIn(t, out(run(t, g.bash, args("command", "true", "run_in_background", true, "description", "quick"))))
	g.m.Wait(t.Context(), done)
	r = run(t, g.stop, args("task_id", done))
	if !r.IsError || out(r) != "task_id: "+done+"\nstatus: completed\nreason: Task already in terminal state" {
		t.Errorf("stop of a finished task = %q (error %v)", out(r), r.IsError)
	}
	if r := run(t, g.stop, args("task_id", "bash-zzzzzzzz")); !r.IsError || out(r) != "Task not found: bash-zzzzzzzz" {
		t.Errorf("unknown = %q", out(r))
	}
	for _, s := range g.r.steers() {
		if s.Origin.TaskID == id {
			t.Errorf("the stopped task notified: %s", textOf(s))
		}
	}
}

func TestS40TaskOutput(t *testing.T) {
	t.Parallel()
	g := newRig(t, background.Options{}, tools.BashOptions{})
	if r := run(t, g.output, args("task_id", "bash-zzzzzzzz")); !r.IsError || out(r) != "Task not found: bash-zzzzzzzz" {
		t.Errorf("unknown = %q", out(r))
	}
	id := taskIDIn(t, out(run(t, g.bash, args("command", `echo first-line; sleep 100`, "run_in_background", true, "description", "x"))))
	waitFor(t, "output", func() bool {
		s, _, _ := g.m.Snapshot(t.Context(), id, 100)
		return s.Preview != ""
	})
	r := out(run(t, g.output, args("task_id", id)))
	contains(t, r, "retrieval_status: not_ready\ntask_id: "+id, "output_truncated: false", "\n[output]\nfirst-line\n")
	if _, _, err := g.m.Stop(t.Context(), id, ""); err != nil {
		t.Fatal(err)
	}

	big := taskIDIn(t, out(run(t, g.bash, args("command", `head -c 102400 /dev/zero | tr '\0' a; printf END`, "run_in_background", true, "description", "big"))))
	g.m.Wait(t.Context(), big)
	r = out(run(t, g.output, args("task_id", big)))
	log := filepath.Join(g.home, "tasks", big, "output.log")
	contains(t, r, "retrieval_status: success", "output_path: "+log, "output_size_bytes: 102403", "output_preview_bytes: 32768",
		"output_truncated: true", "full_output_available: true", "full_output_tool: Read",
		"\n\n[Truncated. Full output: "+log+"]\n[output]\n")
	preview := r[strings.Index(r, "[output]\n")+len("[output]\n"):]
	if len(preview) != 32768 || !strings.HasSuffix(preview, "aEND") {
		t.Errorf("preview is %d bytes ending %q", len(preview), preview[max(0, len(preview)-8):])
	}
}

func TestS41TruncatedForegroundOutputIsTheTasksLog(t *testing.T) {
	t.Parallel()
	g := newRig(t, background.Options{}, tools.BashOptions{})
	text := out(run(t, g.bash, args("command", "seq 1 100000")))
	tail := regexp.MustCompile(`Output is truncated to fit in the message\.\n\n\[Full output saved\]\ntask_id: (bash-[0-9a-z]{8})\noutput_path: (\S+)\noutput_size_bytes: 588895\nnext_step: Use Read with output_path to page through the full log, or TaskOutput\(task_id="(bash-[0-9a-z]{8})"\)\.$`)
	m := tail.FindStringSubmatch(text)
	if m == nil || m[1] != m[3] {
		t.Fatalf("output does not end with the saved-log block:\n%s", text[max(0, len(text)-600):])
	}
	if m[2] != filepath.Join(g.home, "tasks", m[1], "output.log") {
		t.Errorf("output_path = %s", m[2])
	}
	if fi, err := os.Stat(m[2]); err != nil || fi.Size() != 588895 {
		t.Errorf("log %s: %v, %v", m[2], fi, err)
	}
	if s := g.r.steers(); len(s) != 0 {
		t.Errorf("a foreground command notified: %v", s)
	}
}

func TestS42OutputCeiling(t *testing.T) {
	t.Parallel()
	g := newRig(t, background.Options{}, tools.BashOptions{})
	r := run(t, g.bash, args("command", `head -c 20971520 /dev/zero | tr '\0' x; echo never`))
	if !r.IsError || !strings.Contains(out(r), "more than 16 MiB") || !strings.Contains(out(r), "Redirect large output to a file") {
		t.Errorf("result tail = %q", out(r)[max(0, len(out(r))-300):])
	}
	// A background command over the ceiling is stopped the same way.
	id := taskIDIn(t, out(run(t, g.bash, args("command", `head -c 20971520 /dev/zero | tr '\0' x`, "run_in_background", true, "description", "flood"))))
	info, _ := g.m.Wait(t.Context(), id)
	if info.Status != tools.TaskKilled || !strings.Contains(info.StopReason, "16 MiB") {
		t.Errorf("flood = %+v", info)
	}
	if fi, err := os.Stat(filepath.Join(g.home, "tasks", id, "output.log")); err != nil || fi.Size() > background.OutputCeiling {
		t.Errorf("log after the ceiling: %v, %v", fi, err)
	}
}

func TestS43TaskStopKillsTheWholeGroup(t *testing.T) {
	t.Parallel()
	g := newRig(t, background.Options{}, tools.BashOptions{})
	id := taskIDIn(t, out(run(t, g.bash, args("command", spawnTwo, "run_in_background", true, "description", "two sleeps"))))
	pids := g.pidsOf(t, id, 3)
	start := time.Now()
	if r := run(t, g.stop, args("task_id", id)); r.IsError {
		t.Fatalf("stop = %q", out(r))
	}
	waitGone(t, pids)
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the group took %v to go", d)
	}
}

func TestS44RunningTaskCap(t *testing.T) {
	t.Parallel()
	g := newRig(t, background.Options{MaxRunning: 1}, tools.BashOptions{})
	first := taskIDIn(t, out(run(t, g.bash, args("command", "sleep 100", "run_in_background", true, "description", "one"))))
	r := run(t, g.bash, args("command", "sleep 98765", "run_in_background", true, "description", "two"))
	if !r.IsError || out(r) != "Too many background tasks are already running." {
		t.Fatalf("second = %q", out(r))
	}
	if r := run(t, g.bash, args("command", "echo fg")); r.IsError || out(r) != "fg\n" {
		t.Errorf("foreground under the cap = %q", out(r))
	}
	waitFor(t, "the refused command to be killed", func() bool { return len(processesRunning("98765")) == 0 })
	if _, _, err := g.m.Stop(t.Context(), first, ""); err != nil {
		t.Fatal(err)
	}
}

func TestStopLetsACleanExitWin(t *testing.T) {
	t.Parallel()
	g := newRig(t, background.Options{}, tools.BashOptions{})
	id := taskIDIn(t, out(run(t, g.bash, args("command", `trap 'exit 0' TERM; echo ready; while :; do sleep 0.05; done`,
		"run_in_background", true, "description", "polite"))))
	waitFor(t, "the trap", func() bool {
		s, _, _ := g.m.Snapshot(t.Context(), id, 100)
		return s.Preview != ""
	})
	info, _, err := g.m.Stop(t.Context(), id, "enough")
	if err != nil || info.Status != tools.TaskCompleted {
		t.Errorf("stop = %+v, %v; want the clean exit to win", info, err)
	}
}

func TestForegroundInterruptKillsTheCommand(t *testing.T) {
	t.Parallel()
	g := newRig(t, background.Options{KillGrace: time.Second}, tools.BashOptions{})
	exec, _, _ := g.bash.ResolveExecution(json.RawMessage(args("command", spawnTwo)))
	ctx, cancel := context.WithCancelCause(t.Context())
	var id string
	done := make(chan error, 1)
	go func() {
		_, err := exec.Execute(ctx, loop.ExecCtx{OnUpdate: func(loop.ProgressUpdate) {},
			OnForegroundTaskStart: func(s string) { id = s }})
		done <- err
	}()
	var pids []int
	waitFor(t, "the task", func() bool {
		for _, info := range g.m.List(true) {
			if snap, _, _ := g.m.Snapshot(t.Context(), info.TaskID, 1<<10); len(pidsIn(snap.Preview)) == 3 {
				pids = pidsIn(snap.Preview)
				return true
			}
		}
		return false
	})
	cancel(loop.ErrUserCancelled)
	if err := <-done; !errors.Is(err, loop.ErrUserCancelled) {
		t.Fatalf("execute = %v; want the cancel cause", err)
	}
	waitGone(t, pids)
	info, _ := g.m.Wait(t.Context(), id)
	if info.Status != tools.TaskKilled || info.StopReason != "Interrupted by user" {
		t.Errorf("task = %+v", info)
	}
}

func TestForegroundCommandKeepsARecordOnlyWhileItRuns(t *testing.T) {
	t.Parallel()
	g := newRig(t, background.Options{}, tools.BashOptions{})
	done := make(chan loop.ToolResult, 1)
	go func() {
		done <- runCtx(t, t.Context(), g.bash, args("command", `while [ ! -e go ]; do sleep 0.01; done; echo ok`))
	}()
	var records []string
	waitFor(t, "the running record", func() bool {
		records, _ = filepath.Glob(filepath.Join(g.home, "tasks", "bash-*.json"))
		return len(records) == 1
	})
	b, _ := os.ReadFile(records[0])
	var info tools.TaskInfo
	if err := json.Unmarshal(b, &info); err != nil || info.Status != tools.TaskRunning || info.Detached || info.Pid == 0 || info.ProcessStart == 0 {
		t.Errorf("running record = %s (%v)", b, err)
	}
	if err := os.WriteFile(filepath.Join(g.dir, "go"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if r := <-done; r.IsError || out(r) != "ok\n" {
		t.Fatalf("result = %q", out(r))
	}
	if _, err := os.Stat(records[0]); !os.IsNotExist(err) {
		t.Errorf("the record outlived the command: %v", err)
	}
}

// asker answers every question after the test says so.
type asker struct{ answer chan map[string]string }

func (a asker) AskQuestions(ctx context.Context, _ tools.QuestionRequest) (map[string]string, error) {
	select {
	case ans := <-a.answer:
		return ans, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func TestAskUserQuestionInTheBackground(t *testing.T) {
	t.Parallel()
	g := newRig(t, background.Options{}, tools.BashOptions{})
	a := asker{answer: make(chan map[string]string, 1)}
	ask := tools.NewAskUserQuestion(tools.AskUserQuestionOptions{Asker: a, Background: g.m, AllowBackground: true})
	if d := ask.Definition().Description; !strings.Contains(d, "background: true") {
		t.Errorf("description lacks the background mode:\n%s", d)
	}
	r := run(t, ask, `{"questions":[{"question":"Which database?","options":[{"label":"Postgres"},{"label":"SQLite"}]}],"background":true}`)
	id := taskIDIn(t, out(r))
	if r.IsError || !strings.HasPrefix(id, "question-") || !strings.Contains(out(r), "description: Starting background question: Which database?") ||
		r.Message != "Started "+id {
		t.Fatalf("result = %q (%q)", out(r), r.Message)
	}
	if info, _ := g.m.Get(id); info.Kind != tools.TaskKindQuestion || info.QuestionCount != 1 || info.ToolCallID != "call-1" {
		t.Errorf("task = %+v", info)
	}
	a.answer <- map[string]string{"Which database?": "SQLite"}
	if info, _ := g.m.Wait(t.Context(), id); info.Status != tools.TaskCompleted {
		t.Fatalf("task = %+v", info)
	}
	waitFor(t, "the notification", func() bool { return len(g.r.steers()) == 1 })
	contains(t, textOf(g.r.steers()[0]), "Title: Background question completed", "<output-file path=")
	snap, _, _ := g.m.Snapshot(t.Context(), id, 1000)
	if snap.Preview != `{"answers":{"Which database?":"SQLite"}}` {
		t.Errorf("answer = %q", snap.Preview)
	}
}
