package sandbox_test

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/kimigo/kimigo/osenv"
	"github.com/kimigo/kimigo/sandbox"
)

func TestApplyRefusesBadPolicies(t *testing.T) {
	// Apply (through Command) and Start refuse the same bad policies with
	// the same words.
	sb := newSandbox(t, setup{})
	work := t.TempDir()
	file := filepath.Join(work, "file")
	writeFile(t, file, "")
	for _, tt := range []struct {
		name string
		p    sandbox.Policy
		argv []string
		says string
	}{
		{"no mode", sandbox.Policy{}, []string{"true"}, "no mode"},
		{"unknown mode", sandbox.Policy{Mode: "strict"}, []string{"true"}, `unknown sandbox mode "strict"`},
		{"no work dir", sandbox.Policy{Mode: sandbox.ModeWorkspaceWrite}, []string{"true"}, "work dir is not set"},
		{"relative work dir", sandbox.Policy{Mode: sandbox.ModeWorkspaceWrite, WorkDir: "w"}, []string{"true"}, `"w" is not an absolute path`},
		{"missing work dir", sandbox.Policy{Mode: sandbox.ModeWorkspaceWrite, WorkDir: filepath.Join(work, "gone")}, []string{"true"}, filepath.Join(work, "gone")},
		{"work dir is a file", sandbox.Policy{Mode: sandbox.ModeWorkspaceWrite, WorkDir: file}, []string{"true"}, file + " is not a directory"},
		{"missing extra dir", sandbox.Policy{Mode: sandbox.ModeWorkspaceWrite, WorkDir: work, WritableDirs: []string{"/nonexistent-kimigo"}}, []string{"true"}, "/nonexistent-kimigo"},
		{"read-only entry above the writable dir", sandbox.Policy{Mode: sandbox.ModeWorkspaceWrite, WorkDir: work, ReadOnly: []string{"../x"}}, []string{"true"}, `"../x"`},
		{"no command", sandbox.Policy{Mode: sandbox.ModeReadOnly}, nil, "no command"},
		{"unknown command", sandbox.Policy{Mode: sandbox.ModeReadOnly}, []string{"kimigo-no-such-command"}, "kimigo-no-such-command"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := sb.Command(tt.p, tt.argv...)
			if err == nil || !strings.Contains(err.Error(), tt.says) {
				t.Errorf("Command(%+v, %q) = %v; want an error naming %q", tt.p, tt.argv, err, tt.says)
			}
			if errors.Is(err, sandbox.ErrUnavailable) {
				t.Errorf("a bad policy is not an unavailable sandbox: %v", err)
			}
			if tt.p.Mode == sandbox.ModeReadOnly {
				requireSandbox(t, sb, tt.p) // the policy is good: Start gets as far as the command
			}
			_, err = sb.Start(tt.p, startSpec(t, tt.argv...))
			if err == nil || !strings.Contains(err.Error(), tt.says) {
				t.Errorf("Start(%+v, %q) = %v; want an error naming %q", tt.p, tt.argv, err, tt.says)
			}
			if errors.Is(err, sandbox.ErrUnavailable) {
				t.Errorf("a bad policy is not an unavailable sandbox: %v", err)
			}
		})
	}
	t.Run("already sandboxed", func(t *testing.T) {
		p := sandbox.Policy{Mode: sandbox.ModeReadOnly}
		requireSandbox(t, sb, p)
		cmd, err := sb.Command(p, "true")
		if err != nil {
			t.Fatal(err)
		}
		if err := sb.Apply(cmd, p); err == nil || !strings.Contains(err.Error(), "already sandboxed") {
			t.Errorf("second Apply = %v", err)
		}
	})
	t.Run("trampoline not wired", func(t *testing.T) {
		restore := sandbox.Unwire()
		defer restore()
		_, err := sb.Command(sandbox.Policy{Mode: sandbox.ModeReadOnly}, "true")
		if err == nil || !strings.Contains(err.Error(), "MaybeRunTrampoline") {
			t.Errorf("Command without the trampoline wired = %v", err)
		}
		_, err = sb.Starter(sandbox.Policy{Mode: sandbox.ModeReadOnly})
		if err == nil || !strings.Contains(err.Error(), "MaybeRunTrampoline") {
			t.Errorf("Starter without the trampoline wired = %v", err)
		}
	})
	t.Run("closed", func(t *testing.T) {
		sb := sandbox.New(sandbox.Options{})
		if err := sb.Close(); err != nil {
			t.Fatal(err)
		}
		p := sandbox.Policy{Mode: sandbox.ModeReadOnly}
		requireSandbox(t, sb, p)
		if _, err := sb.Command(p, "true"); err == nil || !strings.Contains(err.Error(), "closed") {
			t.Errorf("Command after Close = %v", err)
		}
		if _, err := sb.Starter(p); err == nil || !strings.Contains(err.Error(), "closed") {
			t.Errorf("Starter after Close = %v", err)
		}
	})
}

func TestTrampolineFailuresNameThePolicyAndPath(t *testing.T) {
	sb := newSandbox(t, setup{})
	w := newWorkspace(t)
	p := sandbox.Policy{Mode: sandbox.ModeWorkspaceWrite, WorkDir: w.work}
	requireSandbox(t, sb, p)

	t.Run("a read-only entry that is a dangling link", func(t *testing.T) {
		w := newWorkspace(t)
		p := sandbox.Policy{Mode: sandbox.ModeWorkspaceWrite, WorkDir: w.work}
		link := filepath.Join(w.work, sandbox.KimigoDir)
		if err := os.Symlink("nowhere", link); err != nil {
			t.Fatal(err)
		}
		r := bash(t, sb, p, w.work, "echo ran")
		want := "kimigo sandbox (workspace-write): keep " + link + " read-only"
		if r.code != 125 || !strings.Contains(r.out, want) || strings.Contains(r.out, "ran") {
			t.Errorf("exit %d, output %q; want 125 and %q", r.code, r.out, want)
		}
	})
	t.Run("a program that cannot be executed", func(t *testing.T) {
		prog := filepath.Join(w.work, "not-executable")
		writeFile(t, prog, "#!/bin/sh\n")
		r := runCmd(t, sb.Sandbox, p, &exec.Cmd{Path: prog, Args: []string{prog}})
		want := "kimigo sandbox (workspace-write): execute " + prog + ": permission denied"
		if r.code != 126 || !strings.Contains(r.out, want) {
			t.Errorf("exit %d, output %q; want 126 and %q", r.code, r.out, want)
		}
	})
	t.Run("a program that is gone", func(t *testing.T) {
		prog := filepath.Join(w.work, "gone")
		r := runCmd(t, sb.Sandbox, p, &exec.Cmd{Path: prog, Args: []string{prog}})
		want := "kimigo sandbox (workspace-write): execute " + prog + ": no such file or directory"
		if r.code != 127 || !strings.Contains(r.out, want) {
			t.Errorf("exit %d, output %q; want 127 and %q", r.code, r.out, want)
		}
	})
	t.Run("a program not on PATH", func(t *testing.T) {
		r := runCmd(t, sb.Sandbox, p, &exec.Cmd{Path: "kimigo-no-such-command", Args: []string{"kimigo-no-such-command"}})
		want := "kimigo sandbox (workspace-write): kimigo-no-such-command: command not found"
		if r.code != 127 || !strings.Contains(r.out, want) {
			t.Errorf("exit %d, output %q; want 127 and %q", r.code, r.out, want)
		}
	})
	t.Run("a garbled policy argument", func(t *testing.T) {
		exe, err := os.Executable()
		if err != nil {
			t.Fatal(err)
		}
		r := direct([]string{exe, sandbox.TrampolineArg, "{", "true"})
		if r.code != 125 || !strings.Contains(r.out, "kimigo sandbox: decode the policy argument") {
			t.Errorf("exit %d, output %q", r.code, r.out)
		}
	})
}

// startSpec is argv as a Start wants it, with no input and the output
// thrown away.
func startSpec(t *testing.T, argv ...string) osenv.StartSpec {
	t.Helper()
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = null.Close() }) // read-only use
	ss := osenv.StartSpec{Args: argv, Dir: t.TempDir(), Env: helperEnv(), Files: [3]*os.File{null, null, null}}
	if len(argv) > 0 {
		ss.Path = argv[0]
	}
	return ss
}

// runCmd applies p to cmd and runs it in the test's temporary directory.
func runCmd(t *testing.T, sb *sandbox.Sandbox, p sandbox.Policy, cmd *exec.Cmd) result {
	t.Helper()
	if err := sb.Apply(cmd, p); err != nil {
		t.Fatal(err)
	}
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	return result{string(out), cmd.ProcessState.ExitCode()}
}

func TestTheCommandKeepsItsProcessAndEnvironment(t *testing.T) {
	// The pid the caller holds, its process group and its exit status are
	// the command's (the trampoline executes the command in its own place;
	// a server reports the pid it forked); its environment is the
	// caller's plus TMPDIR (GOMAXPROCS, which trampolines and servers set
	// for themselves, comes back as it was).
	forEachLauncher(t, sandbox.Options{}, testTheCommandKeepsItsProcessAndEnvironment)
}

func testTheCommandKeepsItsProcessAndEnvironment(t *testing.T, s setup) {
	sb := newSandbox(t, s)
	w := newWorkspace(t)
	p := sandbox.Policy{Mode: sandbox.ModeWorkspaceWrite, WorkDir: w.work}
	requireSandbox(t, sb, p)
	temp, err := sb.TempDir()
	if err != nil {
		t.Fatal(err)
	}
	const script = `read -r _ _ _ _ pgid _ < /proc/$$/stat; echo "$$ $pgid $KIMIGO_TEST_VAR $PWD ${GOMAXPROCS-unset}"; exit 3`
	env := []string{"KIMIGO_TEST_VAR=kept", "PATH=/usr/bin:/bin"}
	if s.via == viaServer {
		local := osenv.NewLocal(osenv.LocalOptions{Cwd: w.work, Environ: env})
		st, err := sb.Starter(p)
		if err != nil {
			t.Fatal(err)
		}
		out, code, pid := runProcess(t, local, osenv.Cmd{Args: []string{"bash", "-c", script}, Starter: st})
		want := fmt.Sprintf("%d %d kept %s unset\n", pid, pid, w.work)
		if code != 3 || out != want {
			t.Errorf("inside the sandbox: exit %d, %q; want 3 and pid, process group, variable, directory and GOMAXPROCS %q", code, out, want)
		}
		out, code, _ = runProcess(t, local.WithEnv(map[string]string{"GOMAXPROCS": "3", "TMPDIR": "/elsewhere"}),
			osenv.Cmd{Args: []string{"bash", "-c", `echo "$GOMAXPROCS $TMPDIR"`}, Starter: st})
		if code != 0 || out != "3 "+temp+"\n" {
			t.Errorf("GOMAXPROCS and TMPDIR inside: exit %d, %q; want the caller's 3 and the private %s", code, out, temp)
		}
		return
	}
	cmd, err := sb.Command(p, "bash", "-c", script)
	if err != nil {
		t.Fatal(err)
	}
	cmd.Dir = w.work
	cmd.Env = env
	cmd.SysProcAttr.Setpgid = true
	out, err := cmd.Output()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 3 {
		t.Fatalf("exit status %v, want 3; output %s", err, out)
	}
	pid := cmd.Process.Pid
	want := fmt.Sprintf("%d %d kept %s unset\n", pid, pid, w.work)
	if string(out) != want {
		t.Errorf("inside the sandbox: %q; want pid, process group, variable, directory and GOMAXPROCS %q", out, want)
	}
	for _, envAfterApply := range []bool{false, true} {
		cmd := exec.Command("bash", "-c", `echo "$GOMAXPROCS $TMPDIR"`)
		env := []string{"GOMAXPROCS=3", "TMPDIR=/elsewhere"}
		if !envAfterApply {
			cmd.Env = env
		}
		if err := sb.Apply(cmd, p); err != nil {
			t.Fatal(err)
		}
		if envAfterApply {
			cmd.Env = env
		}
		if out, err := cmd.Output(); err != nil || string(out) != "3 "+temp+"\n" {
			t.Errorf("Env set after Apply %v: GOMAXPROCS and TMPDIR inside: %q, %v; want the caller's 3 and the private %s", envAfterApply, out, err, temp)
		}
	}
}

// runProcess runs c in env to its end and returns its standard output,
// exit status and pid.
func runProcess(t *testing.T, env osenv.Env, c osenv.Cmd) (string, int, int) {
	t.Helper()
	proc, err := env.Exec(c)
	if err != nil {
		t.Fatal(err)
	}
	defer proc.Close()
	go io.Copy(io.Discard, proc.Stderr()) //nolint:errcheck // drained until the process ends; Close ends it
	out, err := io.ReadAll(proc.Stdout())
	if err != nil {
		t.Fatal(err)
	}
	if err := proc.Wait(); err != nil {
		t.Fatal(err)
	}
	code, _ := proc.ExitCode()
	return string(out), code, proc.Pid()
}

func TestKillReachesTheSandboxedGroup(t *testing.T) {
	forEachLauncher(t, sandbox.Options{}, testKillReachesTheSandboxedGroup)
}

func testKillReachesTheSandboxedGroup(t *testing.T, s setup) {
	sb := newSandbox(t, s)
	w := newWorkspace(t)
	p := sandbox.Policy{Mode: sandbox.ModeWorkspaceWrite, WorkDir: w.work}
	requireSandbox(t, sb, p)
	// The command starts a grandchild and reports once both run; a kill of
	// the group from outside must end them all, whatever their namespace.
	const script = "sleep 300 & echo started; wait"
	var (
		stdout io.Reader
		kill   func() error
		wait   func() error
	)
	if s.via == viaServer {
		proc, err := startIn(sb.Sandbox, p, w.work, osenv.Cmd{Args: []string{"bash", "-c", script}})
		if err != nil {
			t.Fatal(err)
		}
		defer proc.Close()
		stdout = proc.Stdout()
		kill = func() error { return proc.Kill(syscall.SIGKILL) }
		wait = func() error {
			if err := proc.Wait(); err != nil {
				return err
			}
			if code, _ := proc.ExitCode(); code != 128+int(syscall.SIGKILL) {
				return fmt.Errorf("exit status %d, want %d", code, 128+int(syscall.SIGKILL))
			}
			return nil
		}
	} else {
		cmd, err := sb.Command(p, "bash", "-c", script)
		if err != nil {
			t.Fatal(err)
		}
		cmd.Dir = w.work
		if cmd.SysProcAttr == nil {
			cmd.SysProcAttr = &syscall.SysProcAttr{}
		}
		cmd.SysProcAttr.Setpgid = true
		pipe, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		stdout = pipe
		kill = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
		wait = func() error {
			if err := cmd.Wait(); err == nil {
				return errors.New("the killed command exited normally")
			}
			return nil
		}
	}
	buf := make([]byte, len("started\n"))
	if _, err := io.ReadFull(stdout, buf); err != nil || string(buf) != "started\n" {
		t.Fatalf("read %q, %v", buf, err)
	}
	if err := kill(); err != nil {
		t.Fatal(err)
	}
	// The pipe reaches EOF only once bash and sleep, which both hold its
	// write end, are dead.
	if rest, err := io.ReadAll(stdout); err != nil || len(rest) != 0 {
		t.Errorf("after the kill: read %q, %v", rest, err)
	}
	if err := wait(); err != nil {
		t.Error(err)
	}
}

func TestNonRootUser(t *testing.T) {
	// The namespaces work without privileges too: as root, run the checks
	// again as nobody from a copy of the test binary nobody may execute.
	if os.Getuid() != 0 {
		t.Skip("runs as root, to switch to an unprivileged user; this run is unprivileged already")
	}
	sb := newSandbox(t, setup{})
	requireSandbox(t, sb, sandbox.Policy{Mode: sandbox.ModeWorkspaceWrite, WorkDir: t.TempDir()})
	const nobody = 65534
	base := t.TempDir()
	for _, d := range []string{filepath.Dir(base), base} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(base, "sandbox.test")
	b, err := os.ReadFile(self)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(exe, b, 0o755); err != nil {
		t.Fatal(err)
	}
	work := filepath.Join(base, "work")
	if err := os.Mkdir(work, 0o755); err != nil {
		t.Fatal(err)
	}
	gitRepo(t, work)
	if err := filepath.Walk(work, func(p string, _ os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, nobody, nobody)
	}); err != nil {
		t.Fatal(err)
	}
	escape := "/tmp/kimigo-nonroot-escape"
	_ = os.Remove(escape) // a leftover would hide a failure
	cmd := exec.Command(exe, helperArg, "nonroot", work)
	cmd.Dir = work
	cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + work, "GORACE=atexit_sleep_ms=0"}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
	out, err := cmd.CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "ok" {
		t.Errorf("as uid %d: %v\n%s", nobody, err, out)
	}
	if exists(escape) {
		_ = os.Remove(escape)
		t.Errorf("an unprivileged sandboxed command wrote %s", escape)
	}
}
