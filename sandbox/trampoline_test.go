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

	"github.com/kimigo/kimigo/sandbox"
)

func TestApplyRefusesBadPolicies(t *testing.T) {
	sb := newSandbox(t, sandbox.Options{})
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
	})
}

func TestTrampolineFailuresNameThePolicyAndPath(t *testing.T) {
	sb := newSandbox(t, sandbox.Options{})
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
		r := runCmd(t, sb, p, &exec.Cmd{Path: prog, Args: []string{prog}})
		want := "kimigo sandbox (workspace-write): execute " + prog + ": permission denied"
		if r.code != 126 || !strings.Contains(r.out, want) {
			t.Errorf("exit %d, output %q; want 126 and %q", r.code, r.out, want)
		}
	})
	t.Run("a program that is gone", func(t *testing.T) {
		prog := filepath.Join(w.work, "gone")
		r := runCmd(t, sb, p, &exec.Cmd{Path: prog, Args: []string{prog}})
		want := "kimigo sandbox (workspace-write): execute " + prog + ": no such file or directory"
		if r.code != 127 || !strings.Contains(r.out, want) {
			t.Errorf("exit %d, output %q; want 127 and %q", r.code, r.out, want)
		}
	})
	t.Run("a program not on PATH", func(t *testing.T) {
		r := runCmd(t, sb, p, &exec.Cmd{Path: "kimigo-no-such-command", Args: []string{"kimigo-no-such-command"}})
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
	// The trampoline executes the command in its own place: the pid the
	// caller holds, its process group and its exit status are the
	// command's; its environment is the caller's plus TMPDIR (GOMAXPROCS,
	// which the trampoline sets for itself, comes back as it was).
	sb := newSandbox(t, sandbox.Options{})
	w := newWorkspace(t)
	p := sandbox.Policy{Mode: sandbox.ModeWorkspaceWrite, WorkDir: w.work}
	requireSandbox(t, sb, p)
	cmd, err := sb.Command(p, "bash", "-c", `read -r _ _ _ _ pgid _ < /proc/$$/stat; echo "$$ $pgid $KIMIGO_TEST_VAR $PWD ${GOMAXPROCS-unset}"; exit 3`)
	if err != nil {
		t.Fatal(err)
	}
	cmd.Dir = w.work
	cmd.Env = []string{"KIMIGO_TEST_VAR=kept", "PATH=/usr/bin:/bin"}
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
	temp, err := sb.TempDir()
	if err != nil {
		t.Fatal(err)
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

func TestKillReachesTheSandboxedGroup(t *testing.T) {
	sb := newSandbox(t, sandbox.Options{})
	w := newWorkspace(t)
	p := sandbox.Policy{Mode: sandbox.ModeWorkspaceWrite, WorkDir: w.work}
	requireSandbox(t, sb, p)
	// The command starts a grandchild and reports once both run; a kill of
	// the group from outside must end them all, whatever their namespace.
	cmd, err := sb.Command(p, "bash", "-c", "sleep 300 & echo started; wait")
	if err != nil {
		t.Fatal(err)
	}
	cmd.Dir = w.work
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, len("started\n"))
	if _, err := stdout.Read(buf); err != nil || string(buf) != "started\n" {
		t.Fatalf("read %q, %v", buf, err)
	}
	if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	// The pipe reaches EOF only once bash and sleep, which both hold its
	// write end, are dead.
	if rest, err := io.ReadAll(stdout); err != nil || len(rest) != 0 {
		t.Errorf("after the kill: read %q, %v", rest, err)
	}
	if err := cmd.Wait(); err == nil {
		t.Error("the killed command exited normally")
	}
}

func TestNonRootUser(t *testing.T) {
	// The namespaces work without privileges too: as root, run the checks
	// again as nobody from a copy of the test binary nobody may execute.
	if os.Getuid() != 0 {
		t.Skip("runs as root, to switch to an unprivileged user; this run is unprivileged already")
	}
	sb := newSandbox(t, sandbox.Options{})
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
