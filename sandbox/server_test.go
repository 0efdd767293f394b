//go:build linux

package sandbox_test

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/kimigo/kimigo/osenv"
	"github.com/kimigo/kimigo/sandbox"
)

// The tests of this file are about the server itself; the file-system,
// network and capability tests run through it too (launcher viaServer).

// serverSandbox is a Sandbox for p, closed with the test, or a skip where
// this system cannot sandbox.
func serverSandbox(t *testing.T, opts sandbox.Options, p sandbox.Policy) *sandbox.Sandbox {
	t.Helper()
	sb := newSandbox(t, setup{opts: opts, via: viaServer})
	requireSandbox(t, sb, p)
	return sb.Sandbox
}

// forEachMethod runs f once per way this system makes the namespaces,
// through servers.
func forEachMethod(t *testing.T, f func(t *testing.T, opts sandbox.Options)) {
	t.Helper()
	for _, m := range namespaceMethods() {
		t.Run(m.name, func(t *testing.T) { f(t, m.opts) })
	}
}

// readLine reads one line of a process's output.
func readLine(t *testing.T, r *bufio.Reader) string {
	t.Helper()
	line, err := r.ReadString('\n')
	if err != nil {
		t.Fatalf("read a line: %q, %v", line, err)
	}
	return strings.TrimSuffix(line, "\n")
}

// waitGone waits until process pid has ended: a pidfd becomes readable
// when its process exits, whoever its parent is.
func waitGone(pid int) error {
	fd, err := unix.PidfdOpen(pid, 0)
	if errors.Is(err, unix.ESRCH) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("pidfd of %d: %w", pid, err)
	}
	defer unix.Close(fd)
	for {
		n, err := unix.Poll([]unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}, 30_000)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return fmt.Errorf("poll the pidfd of %d: %w", pid, err)
		}
		if n == 0 {
			return fmt.Errorf("process %d still runs 30 s later", pid)
		}
		return nil
	}
}

func TestServerStartsOnFirstUseAndServesItsPolicy(t *testing.T) {
	w := newWorkspace(t)
	ww := sandbox.Policy{Mode: sandbox.ModeWorkspaceWrite, WorkDir: w.work}
	sb := serverSandbox(t, sandbox.Options{}, ww)
	// Neither New nor Starter starts anything.
	st, err := sb.Starter(ww)
	if err != nil {
		t.Fatal(err)
	}
	if pids := sandbox.ServerPIDs(sb); len(pids) != 0 {
		t.Fatalf("servers before the first command: %v", pids)
	}
	l := osenv.NewLocal(osenv.LocalOptions{Cwd: w.work, Environ: helperEnv()})
	var first []int
	for i := range 5 {
		out, code, _ := runProcess(t, l, osenv.Cmd{Args: []string{"bash", "-c", "echo $PPID"}, Starter: st})
		pids := sandbox.ServerPIDs(sb)
		if code != 0 || len(pids) != 1 || strings.TrimSpace(out) != strconv.Itoa(pids[0]) {
			t.Fatalf("command %d: exit %d, parent %s; servers %v: want one server, the command's parent", i, code, out, pids)
		}
		if first == nil {
			first = pids
		} else if !slices.Equal(pids, first) {
			t.Fatalf("command %d ran in server %v, the first in %v", i, pids, first)
		}
	}
	// Another policy gets a server of its own.
	ro := sandbox.Policy{Mode: sandbox.ModeReadOnly}
	if r := runStarted(t, sb, ro, w.work, "true"); r.code != 0 {
		t.Fatalf("read-only: %+v", r)
	}
	if pids := sandbox.ServerPIDs(sb); len(pids) != 2 {
		t.Errorf("servers for two policies: %v", pids)
	}
	// Close ends them.
	all := sandbox.ServerPIDs(sb)
	if err := sb.Close(); err != nil {
		t.Fatal(err)
	}
	for _, pid := range all {
		if err := waitGone(pid); err != nil {
			t.Error(err)
		}
	}
}

func TestServerStreamsOutputAndInput(t *testing.T) {
	w := newWorkspace(t)
	p := sandbox.Policy{Mode: sandbox.ModeWorkspaceWrite, WorkDir: w.work}
	sb := serverSandbox(t, sandbox.Options{}, p)
	in, feed := io.Pipe()
	proc, err := startIn(sb, p, w.work, osenv.Cmd{Args: []string{"bash", "-c", `echo first; read -r x; echo "got $x" >&2; echo last`}, Stdin: in})
	if err != nil {
		t.Fatal(err)
	}
	defer proc.Close()
	out := bufio.NewReader(proc.Stdout())
	// The first line arrives while the command still waits for input.
	if line := readLine(t, out); line != "first" {
		t.Fatalf("first line %q", line)
	}
	if _, err := feed.Write([]byte("abc\n")); err != nil {
		t.Fatal(err)
	}
	if line := readLine(t, bufio.NewReader(proc.Stderr())); line != "got abc" {
		t.Errorf("stderr %q", line)
	}
	if line := readLine(t, out); line != "last" {
		t.Errorf("last line %q", line)
	}
	_ = feed.Close() // ends the copy into the command's input
	if err := proc.Wait(); err != nil {
		t.Fatal(err)
	}
	if code, ok := proc.ExitCode(); !ok || code != 0 {
		t.Errorf("exit %d, %v", code, ok)
	}
}

// stop ends proc the way the Bash tool does: SIGTERM to the group, and
// SIGKILL once grace has passed without the leader ending.
func stop(proc osenv.Process, grace time.Duration) error {
	if err := proc.Kill(syscall.SIGTERM); err != nil {
		return err
	}
	select {
	case <-proc.Done():
		return nil
	case <-time.After(grace):
		return proc.Kill(syscall.SIGKILL)
	}
}

func TestServerTimeoutsAndGroupKills(t *testing.T) {
	w := newWorkspace(t)
	p := sandbox.Policy{Mode: sandbox.ModeWorkspaceWrite, WorkDir: w.work}
	sb := serverSandbox(t, sandbox.Options{}, p)
	for _, tt := range []struct {
		name   string
		script string
		// term is what the command prints after the SIGTERM when it
		// survives it; "" means the SIGTERM ends it.
		term string
		code int
	}{
		{"a grandchild in the group dies with it", `sleep 300 & echo ready; wait`, "", 128 + int(syscall.SIGTERM)},
		{"a command that ignores SIGTERM is killed after the grace",
			`trap 'echo term-ignored' TERM; echo ready; while :; do sleep 300 & wait $!; done`, "term-ignored", 128 + int(syscall.SIGKILL)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			proc, err := startIn(sb, p, w.work, osenv.Cmd{Args: []string{"bash", "-c", tt.script}})
			if err != nil {
				t.Fatal(err)
			}
			defer proc.Close()
			out := bufio.NewReader(proc.Stdout())
			if line := readLine(t, out); line != "ready" {
				t.Fatalf("first line %q", line)
			}
			if tt.term != "" {
				// It survives a SIGTERM to its group, and says so.
				if err := proc.Kill(syscall.SIGTERM); err != nil {
					t.Fatal(err)
				}
				if line := readLine(t, out); line != tt.term {
					t.Fatalf("after SIGTERM: %q, want %q", line, tt.term)
				}
			}
			// The command's time is up: SIGTERM, and SIGKILL after the
			// grace unless that ended it.
			grace := time.Hour
			if tt.term != "" {
				grace = 100 * time.Millisecond
			}
			if err := stop(proc, grace); err != nil {
				t.Fatal(err)
			}
			// Whatever a second trap printed, then EOF: no process of the
			// group holds the pipe any more.
			if rest, err := io.ReadAll(out); err != nil || strings.Trim(strings.ReplaceAll(string(rest), tt.term, ""), "\n") != "" {
				t.Errorf("after the stop: %q, %v", rest, err)
			}
			if err := proc.Wait(); err != nil {
				t.Fatal(err)
			}
			if code, _ := proc.ExitCode(); code != tt.code {
				t.Errorf("exit %d, want %d", code, tt.code)
			}
		})
	}
}

func TestServerRunsConcurrentCommands(t *testing.T) {
	// Twenty commands are started at once, all run together (each waits
	// for its input until every one has said it started), and each ends
	// with its own output and exit status, all through one server.
	w := newWorkspace(t)
	p := sandbox.Policy{Mode: sandbox.ModeWorkspaceWrite, WorkDir: w.work}
	sb := serverSandbox(t, sandbox.Options{}, p)
	const n = 20
	type running struct {
		proc osenv.Process
		out  *bufio.Reader
		in   *io.PipeWriter
	}
	procs := make([]running, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			in, feed := io.Pipe()
			script := fmt.Sprintf(`echo started; read -r x; echo "%d $x" > f%d && cat f%d && exit %d`, i, i, i, i%7)
			proc, err := startIn(sb, p, w.work, osenv.Cmd{Args: []string{"bash", "-c", script}, Stdin: in})
			if err != nil {
				errs[i] = err
				return
			}
			procs[i] = running{proc, bufio.NewReader(proc.Stdout()), feed}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		defer procs[i].proc.Close()
		if line := readLine(t, procs[i].out); line != "started" {
			t.Fatalf("command %d: %q", i, line)
		}
	}
	if pids := sandbox.ServerPIDs(sb); len(pids) != 1 {
		t.Errorf("servers: %v, want one for the policy", pids)
	}
	for i := range n {
		if _, err := procs[i].in.Write([]byte("go\n")); err != nil {
			t.Fatal(err)
		}
		_ = procs[i].in.Close() // the command has its line
	}
	for i := range n {
		rest, _ := io.ReadAll(procs[i].out)
		if err := procs[i].proc.Wait(); err != nil {
			t.Fatal(err)
		}
		if code, _ := procs[i].proc.ExitCode(); code != i%7 || string(rest) != fmt.Sprintf("%d go\n", i) {
			t.Errorf("command %d: exit %d, output %q", i, code, rest)
		}
	}
}

func TestServerKilledMidCommand(t *testing.T) {
	forEachMethod(t, testServerKilledMidCommand)
}

func testServerKilledMidCommand(t *testing.T, opts sandbox.Options) {
	w := newWorkspace(t)
	p := sandbox.Policy{Mode: sandbox.ModeWorkspaceWrite, WorkDir: w.work}
	sb := serverSandbox(t, opts, p)
	proc, err := startIn(sb, p, w.work, osenv.Cmd{Args: []string{"bash", "-c", "sleep 300 & echo $!; wait"}})
	if err != nil {
		t.Fatal(err)
	}
	defer proc.Close()
	out := bufio.NewReader(proc.Stdout())
	grandchild, err := strconv.Atoi(readLine(t, out))
	if err != nil {
		t.Fatal(err)
	}
	servers := sandbox.ServerPIDs(sb)
	if len(servers) != 1 {
		t.Fatalf("servers: %v", servers)
	}
	if err := syscall.Kill(servers[0], syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	// The command fails with a clear error, and nothing of it is left.
	err = proc.Wait()
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("the sandbox server (pid %d) ended (signal: killed)", servers[0])) ||
		!strings.Contains(err.Error(), "exit status is unknown") {
		t.Errorf("Wait = %v; want the server's end named", err)
	}
	if _, ok := proc.ExitCode(); ok {
		t.Error("the command reports an exit status nobody knows")
	}
	if rest, err := io.ReadAll(out); err != nil || len(rest) != 0 {
		t.Errorf("after the server's end: %q, %v", rest, err)
	}
	for _, pid := range []int{proc.Pid(), grandchild} {
		if err := waitGone(pid); err != nil {
			t.Error(err)
		}
	}
	// The next command starts a new server.
	if r := runStarted(t, sb, p, w.work, "bash", "-c", "echo again"); r.code != 0 || r.out != "again\n" {
		t.Errorf("the next command: %+v", r)
	}
	if now := sandbox.ServerPIDs(sb); len(now) != 1 || now[0] == servers[0] {
		t.Errorf("servers after the kill: %v (the killed one was %d)", now, servers[0])
	}
}

func TestKimigoKilledLeavesNothingBehind(t *testing.T) {
	forEachMethod(t, testKimigoKilledLeavesNothingBehind)
}

func testKimigoKilledLeavesNothingBehind(t *testing.T, opts sandbox.Options) {
	w := newWorkspace(t)
	sb := sandbox.New(opts)
	requireSandbox(t, sb, sandbox.Policy{Mode: sandbox.ModeWorkspaceWrite, WorkDir: w.work})
	argv := helperCmd(t, "kimigo", w.work, string(sb.Status().NamespaceMethod))
	kimigo := exec.Command(argv[0], argv[1:]...)
	kimigo.Env = helperEnv()
	stdin, err := kimigo.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	stdout, err := kimigo.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := kimigo.Start(); err != nil {
		t.Fatal(err)
	}
	line := readLine(t, bufio.NewReader(stdout))
	fields := strings.Fields(line)
	if len(fields) != 6 {
		_ = kimigo.Process.Kill() // the helper failed: do not leave it waiting
		t.Fatalf("helper printed %q; want the server, bash, its grandchild, the daemon, the background task and the temporary directory", line)
	}
	// A killed kimigo leaves its private temporary directory behind.
	t.Cleanup(func() { _ = os.RemoveAll(fields[5]) }) // best effort: an empty directory
	var pids []int
	for _, f := range fields[:5] {
		pid, err := strconv.Atoi(f)
		if err != nil {
			_ = kimigo.Process.Kill() // the helper failed: do not leave it waiting
			t.Fatalf("helper: %s", line)
		}
		pids = append(pids, pid)
	}
	if err := kimigo.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = kimigo.Wait() // killed
	for i, name := range []string{"server", "foreground bash", "grandchild", "daemon", "background task"} {
		if err := waitGone(pids[i]); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestCommandsShareTheNetworkOfTheirServer(t *testing.T) {
	forEachMethod(t, testCommandsShareTheNetworkOfTheirServer)
}

func testCommandsShareTheNetworkOfTheirServer(t *testing.T, opts sandbox.Options) {
	// With the network off, a server one command leaves running in the
	// background is still reachable by the next command of the session
	// (not from outside); Close ends it.
	w := newWorkspace(t)
	p := sandbox.Policy{Mode: sandbox.ModeWorkspaceWrite, WorkDir: w.work}
	sb := serverSandbox(t, opts, p)
	helper := helperCmd(t, "serve")
	start := fmt.Sprintf(`mkfifo "$TMPDIR/addr" && { setsid %s %s serve >"$TMPDIR/addr" 2>/dev/null </dev/null & } && read -r addr pid <"$TMPDIR/addr" && echo "$addr $pid"`,
		q(helper[0]), q(helper[1]))
	r := runStarted(t, sb, p, w.work, "bash", "-c", start)
	f := strings.Fields(r.out)
	if r.code != 0 || len(f) != 2 {
		t.Fatalf("start the daemon: %+v", r)
	}
	addr := f[0]
	daemon, err := strconv.Atoi(f[1])
	if err != nil {
		t.Fatal(err)
	}
	if r := runStarted(t, sb, p, w.work, helperCmd(t, "tcp", addr)...); r.code != 0 || r.out != "ok\n" {
		t.Errorf("the next command cannot reach the daemon at %s: %+v", addr, r)
	}
	if err := sb.Close(); err != nil {
		t.Fatal(err)
	}
	if err := waitGone(daemon); err != nil {
		t.Error(err)
	}
}

func TestCommandsCannotReachTheServerOrEachOther(t *testing.T) {
	forEachMethod(t, testCommandsCannotReachTheServerOrEachOther)
}

func testCommandsCannotReachTheServerOrEachOther(t *testing.T, opts sandbox.Options) {
	// Every command has a Landlock domain of its own, outside which the
	// server, kimigo and the other commands are: it cannot signal them,
	// nor read the server's memory, descriptors or environment. It
	// inherits no descriptor but its standard streams.
	w := newWorkspace(t)
	p := sandbox.Policy{Mode: sandbox.ModeWorkspaceWrite, WorkDir: w.work}
	sb := serverSandbox(t, opts, p)
	if !sb.Status().Scopes() {
		t.Skipf("Landlock ABI %d has no scopes (needs 6)", sb.Status().LandlockABI)
	}
	task, err := startIn(sb, p, w.work, osenv.Cmd{Args: []string{"bash", "-c", "sleep 300 & echo $!; wait"}})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = task.Kill(syscall.SIGKILL) // the background task is done with
		_ = task.Wait()
		_ = task.Close()
	}()
	sleeper := readLine(t, bufio.NewReader(task.Stdout()))
	server := strconv.Itoa(sandbox.ServerPIDs(sb)[0])
	for _, c := range []struct {
		script string
		says   string
	}{
		{"kill -0 " + sleeper, "Operation not permitted"},
		{"kill -0 " + server, "Operation not permitted"},
		{"kill -0 " + strconv.Itoa(os.Getpid()), "Operation not permitted"},
		{"cat /proc/" + server + "/environ", denied},
		{"readlink -v /proc/" + server + "/fd/0", denied},
		{"cat /proc/" + server + "/mem", denied},
	} {
		if r := runStarted(t, sb, p, w.work, "bash", "-c", c.script); r.code == 0 || !strings.Contains(r.out, c.says) {
			t.Errorf("%s: exit %d, %q; want %q", c.script, r.code, r.out, c.says)
		}
	}
	// ls opens the directory it lists as descriptor 3.
	if r := runStarted(t, sb, p, w.work, "bash", "-c", "ls /proc/self/fd/"); r.code != 0 || strings.Fields(r.out) == nil ||
		!slices.Equal(strings.Fields(r.out), []string{"0", "1", "2", "3"}) {
		t.Errorf("descriptors of a command: %+v; want only 0 1 2 (and ls's own 3)", r)
	}
}

func TestServerFollowsChangesToTheWorkDir(t *testing.T) {
	forEachMethod(t, testServerFollowsChangesToTheWorkDir)
}

func testServerFollowsChangesToTheWorkDir(t *testing.T, opts sandbox.Options) {
	// A server's mounts are made once; when the work dir changes under
	// it (a .git made inside, or replaced from outside), the next command
	// gets a server whose mounts fit.
	work := t.TempDir()
	work, _ = filepath.EvalSymlinks(work)
	p := sandbox.Policy{Mode: sandbox.ModeWorkspaceWrite, WorkDir: work}
	sb := serverSandbox(t, opts, p)
	hook := filepath.Join(work, ".git", "hooks", "pre-commit")
	steps := []struct {
		name    string
		outside func(t *testing.T)
		inside  string
	}{
		{"a repository made by a command", nil, "git init -q"},
		{"a repository replaced from outside", func(t *testing.T) {
			if err := os.RemoveAll(filepath.Join(work, ".git")); err != nil {
				t.Fatal(err)
			}
			gitRepo(t, work)
		}, ""},
	}
	for _, step := range steps {
		t.Run(step.name, func(t *testing.T) {
			if step.outside != nil {
				step.outside(t)
			}
			if step.inside != "" {
				if r := runStarted(t, sb, p, work, "bash", "-c", step.inside); r.code != 0 {
					t.Fatalf("%s: %+v", step.inside, r)
				}
			}
			r := runStarted(t, sb, p, work, "bash", "-c", "echo x > .git/hooks/pre-commit")
			if r.code == 0 || !strings.Contains(r.out, readOnly) || exists(hook) {
				t.Errorf("write a hook: %+v; want %q", r, readOnly)
			}
			if r := runStarted(t, sb, p, work, "bash", "-c", "echo x >> .git/config"); r.code == 0 {
				t.Errorf("append to .git/config: %+v", r)
			}
		})
	}
}

func TestServerFailuresNameThePolicyAndPath(t *testing.T) {
	w := newWorkspace(t)
	p := sandbox.Policy{Mode: sandbox.ModeWorkspaceWrite, WorkDir: w.work}
	sb := serverSandbox(t, sandbox.Options{}, p)
	t.Run("a read-only entry that is a dangling link", func(t *testing.T) {
		w := newWorkspace(t)
		p := sandbox.Policy{Mode: sandbox.ModeWorkspaceWrite, WorkDir: w.work}
		link := filepath.Join(w.work, sandbox.KimigoDir)
		if err := os.Symlink("nowhere", link); err != nil {
			t.Fatal(err)
		}
		_, err := startIn(sb, p, w.work, osenv.Cmd{Args: []string{"bash", "-c", "echo ran"}})
		want := "kimigo sandbox (workspace-write): keep " + link + " read-only"
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("start: %v; want %q", err, want)
		}
	})
	for _, tt := range []struct {
		name, prog string
		content    *string
		says       string
		is         error
	}{
		{"a program that cannot be executed", filepath.Join(w.work, "not-executable"), new("#!/bin/sh\n"), "permission denied", fs.ErrPermission},
		{"a program that is gone", filepath.Join(w.work, "gone"), nil, "no such file or directory", fs.ErrNotExist},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if tt.content != nil {
				writeFile(t, tt.prog, *tt.content)
			}
			_, err := startIn(sb, p, w.work, osenv.Cmd{Args: []string{tt.prog}})
			want := "sandbox workspace-write: execute " + tt.prog + ": " + tt.says
			if err == nil || !strings.Contains(err.Error(), want) || !errors.Is(err, tt.is) {
				t.Errorf("start: %v; want %q", err, want)
			}
		})
	}
	t.Run("a working directory that is gone", func(t *testing.T) {
		dir := filepath.Join(w.work, "gone-dir")
		_, err := startIn(sb, p, w.work, osenv.Cmd{Args: []string{"true"}, Dir: dir})
		want := "stat " + dir + ": no such file or directory"
		if err == nil || !strings.Contains(err.Error(), want) || !strings.HasPrefix(err.Error(), "sandbox workspace-write: start ") {
			t.Errorf("start: %v; want %q", err, want)
		}
	})
	t.Run("a program not on PATH", func(t *testing.T) {
		_, err := startIn(sb, p, w.work, osenv.Cmd{Args: []string{"kimigo-no-such-command"}})
		if err == nil || !strings.Contains(err.Error(), "kimigo-no-such-command") || !errors.Is(err, exec.ErrNotFound) {
			t.Errorf("start: %v", err)
		}
	})
	t.Run("a garbled policy argument", func(t *testing.T) {
		exe, err := os.Executable()
		if err != nil {
			t.Fatal(err)
		}
		r := direct([]string{exe, sandbox.ServerArg, "{"})
		if r.code != 125 || !strings.Contains(r.out, "kimigo sandbox server: decode the policy argument") {
			t.Errorf("exit %d, output %q", r.code, r.out)
		}
	})
	// None of it broke the server for the commands that follow.
	if r := runStarted(t, sb, p, w.work, "true"); r.code != 0 {
		t.Errorf("after the failures: %+v", r)
	}
}
