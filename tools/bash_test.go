package tools_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/kimigo/kimigo/loop"
	"github.com/kimigo/kimigo/osenv"
	"github.com/kimigo/kimigo/osenv/osenvtest"
	"github.com/kimigo/kimigo/tools"
)

func bashArgs(cmd string, extra ...any) string {
	m := map[string]any{"command": cmd}
	for i := 0; i+1 < len(extra); i += 2 {
		m[extra[i].(string)] = extra[i+1]
	}
	b, _ := jsonMarshal(m)
	return b
}

func TestS32BashSuccess(t *testing.T) {
	w := newWorkspace(t)
	bash := tools.NewBash(tools.BashOptions{Base: w.base})
	wantOK(t, call(t, bash, bashArgs("echo out; echo warn >&2")), "out\nwarn\n")
	wantOK(t, call(t, bash, bashArgs("true")), "Command executed successfully.")
}

func TestS33BashFailure(t *testing.T) {
	w := newWorkspace(t)
	bash := tools.NewBash(tools.BashOptions{Base: w.base})
	r := call(t, bash, bashArgs("echo boom >&2; exit 2"))
	wantError(t, r, "boom\nCommand failed with exit code: 2.")
	if r.Brief != "Failed with exit code: 2" {
		t.Errorf("brief = %q", r.Brief)
	}
	wantError(t, call(t, bash, bashArgs("exit 3")), "Process exited with code 3\nCommand failed with exit code: 3.")
}

func TestS34BashFreshShellCwdStdin(t *testing.T) {
	w := newWorkspace(t)
	if err := os.MkdirAll(w.path("src"), 0o755); err != nil {
		t.Fatal(err)
	}
	bash := tools.NewBash(tools.BashOptions{Base: w.base})
	wantOK(t, call(t, bash, bashArgs("cd /")), "Command executed successfully.")
	wantOK(t, call(t, bash, bashArgs("pwd")), w.dir+"\n")
	wantOK(t, call(t, bash, bashArgs("pwd", "cwd", w.path("src"))), w.path("src")+"\n")
	wantOK(t, call(t, bash, bashArgs(`read x; echo "[$x]"`)), "[]\n")
	wantOK(t, call(t, bash, bashArgs(`echo "$TERM $NO_COLOR $GIT_TERMINAL_PROMPT"`)), "dumb 1 0\n")
	r := call(t, bash, bashArgs("pwd", "cwd", w.path("missing")))
	if !r.IsError || !strings.Contains(text(r), "Command failed with exit code: 1.") {
		t.Errorf("bad cwd = %q; want the shell's cd failure", text(r))
	}
}

// A command in the workspace dir starts there without a cd in its script,
// and sees what the cd would have set: PWD and OLDPWD the dir as named
// (through a symbolic link too), pwd the same; a cwd elsewhere still goes
// through cd.
func TestBashInTheWorkspaceDirSeesWhatCdSets(t *testing.T) {
	root := t.TempDir()
	real, link := filepath.Join(root, "real"), filepath.Join(root, "link")
	if err := os.MkdirAll(filepath.Join(real, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	env := osenv.NewLocal(osenv.LocalOptions{Cwd: link, Environ: []string{"PATH=" + os.Getenv("PATH"), "PWD=/", "OLDPWD=/tmp"}})
	bash := tools.NewBash(tools.BashOptions{Base: tools.Base{Env: env}})
	const show = `echo "$PWD|$OLDPWD|$(pwd)"`
	wantOK(t, call(t, bash, bashArgs(show)), link+"|"+link+"|"+link+"\n")
	sub := filepath.Join(link, "sub")
	wantOK(t, call(t, bash, bashArgs(`echo "$PWD|$(pwd)"`, "cwd", sub)), sub+"|"+sub+"\n")
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

// waitGone polls until every pid has exited, or fails after 10 s. The
// processes were already signalled; this only waits for the kernel.
func waitGone(t *testing.T, pids []int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		var live []int
		for _, p := range pids {
			if alive(p) {
				live = append(live, p)
			}
		}
		if len(live) == 0 {
			return
		}
		if time.Now().After(deadline) {
			for _, p := range live {
				_ = syscall.Kill(p, syscall.SIGKILL)
			}
			t.Fatalf("processes %v outlived their command", live)
		}
		runtimeGosched()
	}
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

// spawnTwo starts two background sleeps, prints their pids and waits.
const spawnTwo = `sleep 100 & echo "pid $!"; sleep 100 & echo "pid $!"; echo "pid $$"; wait`

func TestS36BashTimeoutKillsTheGroup(t *testing.T) {
	w := newWorkspace(t)
	bash := tools.NewBash(tools.BashOptions{Base: w.base})
	tools.SetBashSecond(bash, 300*time.Millisecond)
	r := call(t, bash, bashArgs(spawnTwo, "timeout", 2))
	if !r.IsError || !strings.HasSuffix(text(r), "Command killed by timeout (2s)") {
		t.Fatalf("result = %q; want the timeout error", text(r))
	}
	pids := pidsIn(text(r))
	if len(pids) != 3 {
		t.Fatalf("pids = %v from %q", pids, text(r))
	}
	waitGone(t, pids)

	// An oversized timeout is clamped to the foreground maximum.
	tools.SetBashSecond(bash, time.Millisecond)
	r = call(t, bash, bashArgs("sleep 30", "timeout", 1000))
	if !r.IsError || !strings.HasSuffix(text(r), "Command killed by timeout (300s)") {
		t.Errorf("timeout 1000 = %q; want it clamped to 300s", text(r))
	}
}

func TestBashTimeoutKillsGrandchildrenIgnoringTerm(t *testing.T) {
	w := newWorkspace(t)
	bash := tools.NewBash(tools.BashOptions{Base: w.base})
	tools.SetBashSecond(bash, 200*time.Millisecond)
	// The grandchild ignores SIGTERM; it dies with the SIGKILL that
	// follows the shell's exit.
	r := call(t, bash, bashArgs(`sh -c 'trap "" TERM; echo "pid $$"; sleep 100' & sleep 100`, "timeout", 1))
	if !r.IsError || !strings.HasSuffix(text(r), "Command killed by timeout (1s)") {
		t.Fatalf("result = %q", text(r))
	}
	waitGone(t, pidsIn(text(r)))
}

func TestBashCancelKillsTheCommand(t *testing.T) {
	w := newWorkspace(t)
	bash := tools.NewBash(tools.BashOptions{Base: w.base})
	exec, _, err := bash.ResolveExecution([]byte(bashArgs(spawnTwo)))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancelCause(t.Context())
	var mu sync.Mutex
	var seen strings.Builder
	ec := execCtx()
	ec.OnUpdate = func(u loop.ProgressUpdate) {
		mu.Lock()
		defer mu.Unlock()
		seen.WriteString(u.Text)
		if len(pidsIn(seen.String())) == 3 {
			cancel(loop.ErrUserCancelled)
		}
	}
	start := time.Now()
	_, err = exec.Execute(ctx, ec)
	if !errors.Is(err, loop.ErrUserCancelled) {
		t.Fatalf("Execute error = %v; want the cancel cause", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("cancel took %v", d)
	}
	mu.Lock()
	pids := pidsIn(seen.String())
	mu.Unlock()
	waitGone(t, pids)
}

func TestBashCancelledTurnKillsTheCommand(t *testing.T) {
	w := newWorkspace(t)
	bash := tools.NewBash(tools.BashOptions{Base: w.base})
	marker := w.path("started")
	ctx, cancel := context.WithCancelCause(t.Context())
	defer cancel(nil)
	go func() {
		for {
			if b, err := os.ReadFile(marker); err == nil && len(pidsIn(string(b))) == 3 {
				cancel(loop.ErrUserCancelled)
				return
			}
			if ctx.Err() != nil {
				return
			}
			runtimeGosched()
		}
	}()
	cmd := fmt.Sprintf(`sleep 100 & echo "pid $!" >> %[1]s; sleep 100 & echo "pid $!" >> %[1]s; echo "pid $$" >> %[1]s; wait`, marker)
	got := runTurnCtx(t, ctx, []loop.ExecutableTool{bash}, callOf("c1", "Bash", bashArgs(cmd)))
	if len(got) != 1 || !got[0].IsError || strings.Contains(text(got[0]), "grace timeout") {
		t.Fatalf("results = %v; want one aborted result", got)
	}
	b, _ := os.ReadFile(marker)
	waitGone(t, pidsIn(string(b)))
}

func TestBashTenMegabytesStayBounded(t *testing.T) {
	w := newWorkspace(t)
	logs := t.TempDir()
	bash := tools.NewBash(tools.BashOptions{Base: w.base, LogDir: logs})
	// 10 MB: 163 840 numbered lines of 64 bytes, then a last marker line.
	cmd := `awk 'BEGIN { for (i = 1; i <= 163840; i++) printf "%063d\n", i; print "THE END" }'`
	r := call(t, bash, bashArgs(cmd))
	out := text(r)
	if r.IsError || !r.Truncated {
		t.Fatalf("isError %v truncated %v", r.IsError, r.Truncated)
	}
	if len(out) > tools.BashOutputLimit+2000 {
		t.Errorf("inline output is %d bytes; want about %d", len(out), tools.BashOutputLimit)
	}
	if !strings.HasPrefix(out, fmt.Sprintf("%063d\n", 1)) {
		t.Errorf("head lost: %q", out[:80])
	}
	if !strings.Contains(out, "THE END\n") || !strings.Contains(out, fmt.Sprintf("%063d\n", 163840)) {
		t.Error("tail lost")
	}
	if !strings.Contains(out, "bytes of output omitted here ...]") || !strings.Contains(out, "Output is truncated to fit in the message.\n\n[Full output saved]") {
		t.Errorf("markers missing:\n%s", out[len(out)-400:])
	}
	m := regexp.MustCompile(`output_path: (\S+)`).FindStringSubmatch(out)
	if m == nil {
		t.Fatal("no output_path")
	}
	fi, err := os.Stat(m[1])
	if err != nil || fi.Size() != 163840*64+8 {
		t.Errorf("full log %v: %v bytes; want %d", err, fi.Size(), 163840*64+8)
	}
}

func TestS41TruncatedForegroundOutputSaved(t *testing.T) {
	w := newWorkspace(t)
	bash := tools.NewBash(tools.BashOptions{Base: w.base, LogDir: t.TempDir()})
	out := text(call(t, bash, bashArgs("seq 1 100000")))
	tail := regexp.MustCompile(`Output is truncated to fit in the message\.\n\n\[Full output saved\]\noutput_path: (\S+)\noutput_size_bytes: 588895\nnext_step: Use Read with output_path to page through the full log\.$`)
	m := tail.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("output does not end with the saved-log block:\n%s", out[max(0, len(out)-500):])
	}
	if fi, err := os.Stat(m[1]); err != nil || fi.Size() != 588895 {
		t.Errorf("log %s: %v, %v", m[1], fi, err)
	}
}

func TestS42OutputCeiling(t *testing.T) {
	w := newWorkspace(t)
	bash := tools.NewBash(tools.BashOptions{Base: w.base, LogDir: t.TempDir()})
	r := call(t, bash, bashArgs(`head -c 20971520 /dev/zero | tr '\0' x; echo never`))
	if !r.IsError || !strings.Contains(text(r), "more than 16 MiB") || !strings.Contains(text(r), "Redirect large output to a file") {
		t.Errorf("result tail = %q", text(r)[max(0, len(text(r))-300):])
	}
}

func TestS8BackgroundFollowsTaskTools(t *testing.T) {
	w := newWorkspace(t)
	bash := tools.NewBash(tools.BashOptions{Base: w.base, Background: &fakeBackground{}, AllowBackground: false})
	if d := bash.Definition().Description; !strings.Contains(d, "Background execution is disabled") || strings.Contains(d, "run_in_background: true") {
		t.Errorf("description does not say background is disabled:\n%s", d)
	}
	wantError(t, call(t, bash, bashArgs("sleep 1", "run_in_background", true, "description", "x")),
		"Background execution is not available for this agent because TaskOutput and TaskStop are not enabled.")
	// With no background manager at all, the same.
	none := tools.NewBash(tools.BashOptions{Base: w.base, AllowBackground: true})
	wantError(t, call(t, none, bashArgs("sleep 1", "run_in_background", true, "description", "x")),
		"Background execution is not available for this agent because TaskOutput and TaskStop are not enabled.")
	on := tools.NewBash(tools.BashOptions{Base: w.base, Background: &fakeBackground{}, AllowBackground: true})
	if d := on.Definition().Description; !strings.Contains(d, "run_in_background: true") || !strings.Contains(d, "defaults to 600 s") {
		t.Errorf("enabled description lacks the background paragraph:\n%s", d)
	}
}

func TestS9SessionApprovalIsLiteral(t *testing.T) {
	w := newWorkspace(t)
	bash := tools.NewBash(tools.BashOptions{Base: w.base})
	exec, _, err := bash.ResolveExecution([]byte(bashArgs("ls *")))
	if err != nil {
		t.Fatal(err)
	}
	if exec.ApprovalRule != `Bash(ls \*)` {
		t.Fatalf("rule = %q", exec.ApprovalRule)
	}
	ruleArgs := strings.TrimSuffix(strings.TrimPrefix(exec.ApprovalRule, "Bash("), ")")
	for cmd, want := range map[string]bool{"ls *": true, "ls -la": false} {
		e, _, _ := bash.ResolveExecution([]byte(bashArgs(cmd)))
		if got := e.MatchesRule(ruleArgs); got != want {
			t.Errorf("rule %q matches %q = %v; want %v", exec.ApprovalRule, cmd, got, want)
		}
	}
	if exec.Accesses != nil {
		t.Errorf("Bash declares accesses %v; want none (runs alone)", exec.Accesses)
	}
	if exec.Description != "Running: ls *" {
		t.Errorf("description = %q", exec.Description)
	}
	long, _, _ := bash.ResolveExecution([]byte(bashArgs(strings.Repeat("a", 60))))
	if long.Description != "Running: "+strings.Repeat("a", 50)+"…" {
		t.Errorf("long description = %q", long.Description)
	}
}

// fakeBackground is a BackgroundTasks that takes every process, or refuses
// with err.
type fakeBackground struct {
	err error
	mu  sync.Mutex
	got []tools.BackgroundProcess
}

func (f *fakeBackground) StartProcess(_ context.Context, p tools.BackgroundProcess) (tools.BackgroundTask, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err != nil {
		return tools.BackgroundTask{}, f.err
	}
	f.got = append(f.got, p)
	return tools.BackgroundTask{ID: fmt.Sprintf("bash-%08d", len(f.got))}, nil
}

// The rest of tools.BackgroundTasks: these tests only start background
// processes (agent/background's tests run Bash on the real manager).
func (f *fakeBackground) RunProcess(context.Context, tools.ForegroundProcess) (tools.ForegroundTask, error) {
	return nil, errors.New("fakeBackground runs no foreground tasks")
}
func (f *fakeBackground) StartQuestion(context.Context, tools.BackgroundQuestion) (tools.BackgroundTask, error) {
	return tools.BackgroundTask{}, errors.New("fakeBackground runs no questions")
}
func (f *fakeBackground) RunAgent(context.Context, tools.AgentTask) (tools.ForegroundTask, error) {
	return nil, errors.New("fakeBackground runs no subagents")
}
func (f *fakeBackground) List(bool) []tools.TaskInfo        { return nil }
func (f *fakeBackground) Get(string) (tools.TaskInfo, bool) { return tools.TaskInfo{}, false }
func (f *fakeBackground) Snapshot(context.Context, string, int) (tools.OutputSnapshot, tools.TaskInfo, bool) {
	return tools.OutputSnapshot{}, tools.TaskInfo{}, false
}
func (f *fakeBackground) Stop(context.Context, string, string) (tools.TaskInfo, bool, error) {
	return tools.TaskInfo{}, false, nil
}

func TestS37BackgroundStartValidation(t *testing.T) {
	env := osenvtest.New(osenvtest.Options{Run: func(osenv.Cmd) osenvtest.Result { return osenvtest.Result{Block: true} }})
	bg := &fakeBackground{}
	bash := tools.NewBash(tools.BashOptions{Base: tools.Base{Env: env}, Background: bg, AllowBackground: true})
	wantError(t, call(t, bash, bashArgs("make", "run_in_background", true)), "description is required when run_in_background is true.")
	if n := len(env.Runner().Commands()); n != 0 {
		t.Errorf("%d processes started for a refused call", n)
	}
	r := call(t, bash, bashArgs("make", "run_in_background", true, "description", " build ", "timeout", 100000))
	if r.IsError || !strings.HasPrefix(text(r), "task_id: bash-00000001\npid: 10001\ndescription: build\nstatus: running\nautomatic_notification: true\n") ||
		r.Brief != "Started bash-00000001" || r.Message != "Background task started." {
		t.Errorf("result = %q (brief %q)", text(r), r.Brief)
	}
	if len(bg.got) != 1 || bg.got[0].Timeout != tools.BashBackgroundMax || bg.got[0].Command != "make" {
		t.Errorf("handed over %+v", bg.got)
	}
	call(t, bash, bashArgs("serve", "run_in_background", true, "description", "srv", "disable_timeout", true))
	call(t, bash, bashArgs("serve", "run_in_background", true, "description", "srv"))
	if bg.got[1].Timeout != 0 || bg.got[2].Timeout != tools.BashBackgroundDefault {
		t.Errorf("timeouts %v, %v; want none and the default", bg.got[1].Timeout, bg.got[2].Timeout)
	}
	cmds := env.Runner().Commands()
	// In the workspace dir itself the shell starts there, without a cd.
	if want := []string{"/bin/bash", "-c", "make"}; fmt.Sprint(cmds[0].Args) != fmt.Sprint(want) || cmds[0].Dir != "/ws" {
		t.Errorf("argv = %q in %q; want %q in /ws", cmds[0].Args, cmds[0].Dir, want)
	}
}

func TestS44RunningTaskCap(t *testing.T) {
	env := osenvtest.New(osenvtest.Options{Run: func(osenv.Cmd) osenvtest.Result { return osenvtest.Result{Block: true} }})
	bg := &fakeBackground{err: errors.New("Too many background tasks are already running.")}
	bash := tools.NewBash(tools.BashOptions{Base: tools.Base{Env: env}, Background: bg, AllowBackground: true})
	wantError(t, call(t, bash, bashArgs("sleep 100", "run_in_background", true, "description", "x")), "Too many background tasks are already running.")
	if sigs := env.Runner().Signals(); len(sigs) != 1 || sigs[0] != syscall.SIGTERM {
		t.Errorf("signals = %v; want the refused process terminated", sigs)
	}
}

func TestBashAbortedBeforeStart(t *testing.T) {
	env := osenvtest.New(osenvtest.Options{})
	bash := tools.NewBash(tools.BashOptions{Base: tools.Base{Env: env}})
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	wantError(t, callCtx(t, ctx, bash, bashArgs("true")), "Aborted before command started")
	if n := len(env.Runner().Commands()); n != 0 {
		t.Errorf("%d commands started after the abort", n)
	}
}

func TestBashDeniedExec(t *testing.T) {
	bash := tools.NewBash(tools.BashOptions{Base: tools.Base{Env: osenvtest.Deny()}})
	r := call(t, bash, bashArgs("true"))
	if !r.IsError || !strings.HasPrefix(text(r), "Failed to start the command: ") {
		t.Errorf("denied exec = %q", text(r))
	}
}

func TestBashProgressAndEnvironment(t *testing.T) {
	env := osenvtest.New(osenvtest.Options{Environ: []string{"GIT_TERMINAL_PROMPT=1"},
		Run: func(osenv.Cmd) osenvtest.Result { return osenvtest.Result{Stdout: "o", Stderr: "e"} }})
	bash := tools.NewBash(tools.BashOptions{Base: tools.Base{Env: env}})
	exec, _, _ := bash.ResolveExecution([]byte(bashArgs("x", "cwd", "it's")))
	var kinds []loop.ProgressKind
	ec := execCtx()
	ec.OnUpdate = func(u loop.ProgressUpdate) { kinds = append(kinds, u.Kind) }
	if _, err := exec.Execute(t.Context(), ec); err != nil {
		t.Fatal(err)
	}
	if len(kinds) != 1 || kinds[0] != loop.ProgressStdout {
		t.Errorf("progress kinds = %v; want one combined stdout chunk", kinds)
	}
	cmd := env.Runner().Commands()[0]
	if cmd.Args[2] != `cd 'it'\''s' && x` {
		t.Errorf("script = %q", cmd.Args[2])
	}
	envs := strings.Join(cmd.Env, "\n")
	for _, want := range []string{"NO_COLOR=1", "TERM=dumb", "GIT_TERMINAL_PROMPT=1", "SHELL=/bin/bash"} {
		if !strings.Contains(envs, want) {
			t.Errorf("environment lacks %s", want)
		}
	}
}
