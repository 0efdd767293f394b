package osenv_test

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/kimigo/kimigo/osenv"
)

// forkStarter is a Starter that forks from this process, as Local.Exec
// would itself, and notes what it was asked to start: it shows what Exec
// hands a Starter and what it makes of the Leader (package sandbox tests
// its own Starter through Exec with real sandboxed processes).
type forkStarter struct {
	startErr, waitErr error

	mu    sync.Mutex
	specs []osenv.StartSpec // guarded by mu
}

func (f *forkStarter) Start(s osenv.StartSpec) (osenv.Leader, error) {
	f.mu.Lock()
	f.specs = append(f.specs, s)
	f.mu.Unlock()
	if f.startErr != nil {
		return nil, f.startErr
	}
	p, err := os.StartProcess(s.Path, s.Args, &os.ProcAttr{Dir: s.Dir, Env: s.Env, Files: s.Files[:],
		Sys: &syscall.SysProcAttr{Setpgid: true}})
	if err != nil {
		return nil, err
	}
	return forkLeader{p, f.waitErr}, nil
}

type forkLeader struct {
	p       *os.Process
	waitErr error
}

func (l forkLeader) Pid() int { return l.p.Pid }

func (l forkLeader) Wait() (syscall.WaitStatus, error) {
	st, err := l.p.Wait()
	if err != nil {
		return 0, err
	}
	if l.waitErr != nil {
		return 0, l.waitErr
	}
	return st.Sys().(syscall.WaitStatus), nil
}

func TestLocalExecWithStarter(t *testing.T) {
	dir := t.TempDir()
	l := osenv.NewLocal(osenv.LocalOptions{Cwd: dir, Environ: []string{"PATH=" + os.Getenv("PATH"), "X=base"}})
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh on PATH")
	}
	var st forkStarter
	// A bare name is looked up here; Stdin that is no file is fed through
	// a pipe; the pipes, exit status and group kill work as without one.
	p, err := l.Exec(osenv.Cmd{Args: []string{"sh", "-c", `pwd; echo "$X $Y"; echo err >&2; read v; echo "[$v]"; exit 7`},
		Env: []string{"Y=extra"}, Stdin: strings.NewReader("fed\n"), Starter: &st})
	if err != nil {
		t.Fatal(err)
	}
	out, _ := io.ReadAll(p.Stdout())
	errOut, _ := io.ReadAll(p.Stderr())
	if err := p.Wait(); err != nil {
		t.Fatal(err)
	}
	if code, ok := p.ExitCode(); !ok || code != 7 {
		t.Errorf("exit = %d, %v", code, ok)
	}
	if want := dir + "\nbase extra\n[fed]\n"; string(out) != want || string(errOut) != "err\n" {
		t.Errorf("stdout %q stderr %q", out, errOut)
	}
	_ = p.Close()
	s := st.specs[0]
	if s.Path != sh || s.Args[0] != "sh" || s.Dir != dir || !strings.Contains(strings.Join(s.Env, " "), "Y=extra") {
		t.Errorf("the Starter got %+v; want %s looked up, argv kept, the dir and the environment", s, sh)
	}

	// No Stdin: the process reads EOF. A signal death reports 128+N.
	p, err = l.Exec(osenv.Cmd{Args: []string{sh, "-c", `read v || echo eof; kill -TERM $$`}, CombinedOutput: true, Starter: &st})
	if err != nil {
		t.Fatal(err)
	}
	out, _ = io.ReadAll(p.Stdout())
	<-p.Done()
	if code, _ := p.ExitCode(); string(out) != "eof\n" || code != 128+int(syscall.SIGTERM) {
		t.Errorf("output %q exit %d", out, code)
	}
	_ = p.Close()

	// Kill reaches the group the Starter's process leads.
	p, err = l.Exec(osenv.Cmd{Args: []string{sh, "-c", "sleep 100 & echo $!; wait"}, Starter: &st})
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64)
	n, _ := p.Stdout().Read(buf)
	if err := p.Kill(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if rest, _ := io.ReadAll(p.Stdout()); n == 0 || len(rest) != 0 {
		t.Errorf("read %q then %q", buf[:n], rest)
	}
	if err := p.Wait(); err != nil {
		t.Fatal(err)
	}
	_ = p.Close()
}

func TestLocalExecWithStarterFailures(t *testing.T) {
	l := osenv.NewLocal(osenv.LocalOptions{Cwd: t.TempDir(), Environ: []string{"PATH=" + os.Getenv("PATH")}})
	refused := errors.New("sandbox read-only: execute /bin/sh: permission denied")
	if _, err := l.Exec(osenv.Cmd{Args: []string{"/bin/sh", "-c", "true"}, Starter: &forkStarter{startErr: refused}}); !errors.Is(err, refused) {
		t.Errorf("a Starter's error: %v, want it returned as is", err)
	}
	if _, err := l.Exec(osenv.Cmd{Args: []string{"kimigo-no-such-command"}, Starter: &forkStarter{}}); err == nil || !strings.Contains(err.Error(), "kimigo-no-such-command") {
		t.Errorf("a name not on PATH: %v", err)
	}
	// A process whose end cannot be known: Wait says why, naming it.
	lost := errors.New("the sandbox server ended")
	p, err := l.Exec(osenv.Cmd{Args: []string{"/bin/sh", "-c", "exit 0"}, Starter: &forkStarter{waitErr: lost}})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Wait(); !errors.Is(err, lost) || !strings.Contains(err.Error(), "/bin/sh") {
		t.Errorf("Wait = %v; want the Leader's error, naming the program", err)
	}
	if _, ok := p.ExitCode(); ok {
		t.Error("an unknown end reports an exit status")
	}
	_ = p.Close()
}
