package sandbox_test

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kimigo/kimigo/osenv"
	"github.com/kimigo/kimigo/sandbox"
)

// helperArg makes the test binary a small helper program, so that tests
// can run Go network code inside the sandbox.
const helperArg = "sandbox-test-helper"

func TestMain(m *testing.M) {
	sandbox.MaybeRunTrampoline()
	if len(os.Args) > 1 && os.Args[1] == helperArg {
		os.Exit(runHelper(os.Args[2:]))
	}
	os.Exit(m.Run())
}

// runHelper runs one helper action and prints "ok" or the error:
//
//	tcp ADDR        dial ADDR over TCP
//	udp ADDR        send a datagram to ADDR and wait for the echo
//	selfloop        listen on 127.0.0.1 and dial that listener
//	connect ADDR    dial ADDR over TCP (any peer)
//	signal PID      send signal 0 to PID
//	umount PATH     unmount PATH
//	nonroot DIR     (as another user) run the workspace-write checks in DIR
//	leakcheck DIR   run a workspace-write command in DIR, then look for
//	                its mounts in this process's mount namespace
//	serve           listen on 127.0.0.1, print "ADDR PID", serve greetings
//	kimigo DIR METHOD  play kimigo: start sandboxed commands in DIR through
//	                a server, print every pid involved, then wait for stdin
func runHelper(args []string) int {
	if len(args) == 0 {
		fmt.Println("helper: no action")
		return 2
	}
	var err error
	switch args[0] {
	case "tcp":
		err = dialTCP(args[1])
	case "connect":
		var c net.Conn
		if c, err = net.DialTimeout("tcp", args[1], 10*time.Second); err == nil {
			_ = c.Close() // only reaching the peer counts
		}
	case "umount":
		err = syscall.Unmount(args[1], 0)
	case "udp":
		err = udpEcho(args[1])
	case "selfloop":
		err = selfLoop()
	case "signal":
		var pid int
		if _, err = fmt.Sscan(args[1], &pid); err == nil {
			err = syscall.Kill(pid, 0)
		}
	case "nonroot":
		return nonRootChecks(args[1])
	case "leakcheck":
		err = leakCheck(args[1])
	case "serve":
		return serve()
	case "kimigo":
		return playKimigo(args[1], args[2])
	default:
		err = fmt.Errorf("unknown action %q", args[0])
	}
	if err != nil {
		fmt.Println(err)
		return 1
	}
	fmt.Println("ok")
	return 0
}

func dialTCP(addr string) error {
	c, err := net.DialTimeout("tcp", addr, 10*time.Second)
	if err != nil {
		return err
	}
	defer c.Close()
	// The listener writes a greeting: reading it proves the peer is ours.
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return err
	}
	if line != "hello\n" {
		return fmt.Errorf("greeting %q", line)
	}
	return nil
}

func udpEcho(addr string) error {
	c, err := net.Dial("udp", addr)
	for err == nil && c.LocalAddr().String() == c.RemoteAddr().String() {
		// In a network namespace of its own the peer's port is free, and
		// the kernel may give it to this socket: the datagram would come
		// back from itself. Take another port.
		prev := c
		c, err = net.Dial("udp", addr)
		_ = prev.Close()
	}
	if err != nil {
		return err
	}
	defer c.Close()
	if _, err := c.Write([]byte("ping")); err != nil {
		return err
	}
	// A refused or unreachable peer fails the read at once (ICMP); the
	// deadline only bounds a peer that drops datagrams silently.
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
	buf := make([]byte, 16)
	n, err := c.Read(buf)
	if err != nil {
		return err
	}
	if string(buf[:n]) != "pong" {
		return fmt.Errorf("echo %q", buf[:n])
	}
	return nil
}

func selfLoop() error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	defer ln.Close()
	go serveGreeting(ln)
	return dialTCP(ln.Addr().String())
}

// serveGreeting writes "hello\n" to every connection until ln closes.
func serveGreeting(ln net.Listener) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		_, _ = c.Write([]byte("hello\n")) // the dialer may be gone
		_ = c.Close()
	}
}

// nonRootChecks runs as an unprivileged user: the namespaces must work
// without root, with the same protections, through either launcher.
func nonRootChecks(work string) int {
	for _, via := range launchers {
		if err := nonRootCheck(via, work); err != nil {
			fmt.Printf("%s: %v\n", via, err)
			return 1
		}
	}
	fmt.Println("ok")
	return 0
}

func nonRootCheck(via launcher, work string) error {
	sb := &sut{sandbox.New(sandbox.Options{}), via}
	defer sb.Close()
	st := sb.Status()
	p := sandbox.Policy{Mode: sandbox.ModeWorkspaceWrite, WorkDir: work}
	if err := st.Check(p); err != nil {
		return fmt.Errorf("status %v: %w", st, err)
	}
	if st.NamespaceMethod != sandbox.NamespaceUser {
		return fmt.Errorf("an unprivileged user gets namespaces by %s, want %s", st.NamespaceMethod, sandbox.NamespaceUser)
	}
	for _, c := range []struct {
		script string
		ok     bool
	}{
		{"echo x > new && mkdir -p d/e && echo y > d/e/f", true},
		{"echo x > .git/hooks/pre-commit", false},
		{"echo x >> .git/config", false},
		{"mv .git g", false},
		{"echo x > /tmp/kimigo-nonroot-escape", false},
		{"test \"$(id -u)\" = " + fmt.Sprint(os.Getuid()), true},
		{"grep -q '^CapEff:[[:space:]]*0*$' /proc/self/status", true}, // no capability left
		{"echo x > /proc/self/root/tmp/kimigo-nonroot-escape", false},
	} {
		r, err := execute(sb, p, work, "bash", "-c", c.script)
		if err != nil {
			return err
		}
		if (r.code == 0) != c.ok {
			return fmt.Errorf("%q: exit %d, want success %v; output %s", c.script, r.code, c.ok, r.out)
		}
	}
	return nil
}

func leakCheck(work string) error {
	for _, via := range launchers {
		if err := leakCheckVia(via, work); err != nil {
			return fmt.Errorf("%s: %w", via, err)
		}
	}
	return nil
}

// leakCheckVia runs a workspace-write command and looks for its mounts
// here while its sandbox (a server's namespace, via a server) still lives.
func leakCheckVia(via launcher, work string) error {
	sb := &sut{sandbox.New(sandbox.Options{}), via}
	defer sb.Close()
	r, err := execute(sb, sandbox.Policy{Mode: sandbox.ModeWorkspaceWrite, WorkDir: work}, work, "true")
	if err != nil {
		return err
	}
	if r.code != 0 {
		return fmt.Errorf("exit %d: %s", r.code, r.out)
	}
	mounts, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return err
	}
	if strings.Contains(string(mounts), work) {
		return fmt.Errorf("the sandbox's mounts show outside it:\n%s", mounts)
	}
	return sb.Close()
}

// playKimigo is the helper action "kimigo": with the namespace method
// named (or the system's own), it starts a foreground
// command that leaves a grandchild in its group and a daemon outside it,
// and a second command as a background task would, prints every pid
// (the server's first) and its temporary directory, and waits for its
// standard input to end.
func playKimigo(work, method string) int {
	opts := sandbox.Options{}
	if method == string(sandbox.NamespaceUser) {
		opts = sandbox.WithUserNamespace(opts)
	}
	sb := sandbox.New(opts)
	p := sandbox.Policy{Mode: sandbox.ModeWorkspaceWrite, WorkDir: work}
	fg, err := startIn(sb, p, work, osenv.Cmd{Args: []string{"bash", "-c",
		`sleep 300 & a=$!; setsid sleep 300 </dev/null >/dev/null 2>&1 & echo "$$ $a $!"; wait`}})
	if err != nil {
		fmt.Println(err)
		return 1
	}
	line, err := bufio.NewReader(fg.Stdout()).ReadString('\n')
	if err != nil {
		fmt.Println(err)
		return 1
	}
	bg, err := startIn(sb, p, work, osenv.Cmd{Args: []string{"sleep", "300"}})
	if err != nil {
		fmt.Println(err)
		return 1
	}
	temp, err := sb.TempDir()
	if err != nil {
		fmt.Println(err)
		return 1
	}
	fmt.Println(strings.Trim(fmt.Sprint(sandbox.ServerPIDs(sb)), "[]"), strings.TrimSpace(line), bg.Pid(), temp)
	_, _ = io.Copy(io.Discard, os.Stdin) // until the test kills this process
	return 0
}

// serve is the helper action "serve": it listens on the loopback, prints
// its address and pid, and serves greetings until killed.
func serve() int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Println(err)
		return 1
	}
	fmt.Println(ln.Addr(), os.Getpid())
	_ = os.Stdout.Close() // the reader has its line
	serveGreeting(ln)
	return 0
}

// helperCmd is argv for running a helper action.
func helperCmd(t *testing.T, action ...string) []string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return append([]string{exe, helperArg}, action...)
}

// helperEnv is the environment of commands the tests run: the test's
// own, with the race detector's one-second sleep at exit turned off for
// helpers built with -race.
func helperEnv() []string {
	return append(os.Environ(), "GORACE=atexit_sleep_ms=0")
}

// result is what a command did.
type result struct {
	out  string
	code int
}

// run runs argv under p in dir, the way sb's test starts commands, and
// returns its combined output and exit status.
func run(t *testing.T, sb *sut, p sandbox.Policy, dir string, argv ...string) result {
	t.Helper()
	r, err := execute(sb, p, dir, argv...)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// execute runs argv under p in dir and returns its combined output and
// exit status; an error means it could not be run (or waited for) at all.
func execute(sb *sut, p sandbox.Policy, dir string, argv ...string) (result, error) {
	if sb.via == viaServer {
		proc, err := startIn(sb.Sandbox, p, dir, osenv.Cmd{Args: argv, CombinedOutput: true})
		if err != nil {
			return result{}, fmt.Errorf("start %q under %s: %w", argv, p.Mode, err)
		}
		defer proc.Close()
		out, err := io.ReadAll(proc.Stdout())
		if err != nil {
			return result{}, fmt.Errorf("read the output of %q: %w", argv, err)
		}
		if err := proc.Wait(); err != nil {
			return result{}, fmt.Errorf("wait for %q under %s: %w", argv, p.Mode, err)
		}
		code, _ := proc.ExitCode()
		return result{string(out), code}, nil
	}
	cmd, err := sb.Command(p, argv...)
	if err != nil {
		return result{}, fmt.Errorf("Command(%s, %q): %w", p.Mode, argv, err)
	}
	cmd.Dir = dir
	cmd.Env = helperEnv()
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return result{string(out), 0}, nil
	case errors.As(err, &ee):
		return result{string(out), ee.ExitCode()}, nil
	}
	return result{}, fmt.Errorf("run %q under %s: %w", argv, p.Mode, err)
}

// runStarted runs argv under p in dir through sb's server.
func runStarted(t *testing.T, sb *sandbox.Sandbox, p sandbox.Policy, dir string, argv ...string) result {
	t.Helper()
	return run(t, &sut{sb, viaServer}, p, dir, argv...)
}

// startIn starts c under p in dir through sb's server, with the test's
// environment.
func startIn(sb *sandbox.Sandbox, p sandbox.Policy, dir string, c osenv.Cmd) (osenv.Process, error) {
	st, err := sb.Starter(p)
	if err != nil {
		return nil, err
	}
	c.Starter = st
	return osenv.NewLocal(osenv.LocalOptions{Cwd: dir, Environ: helperEnv()}).Exec(c)
}

// bash runs a bash script under p in dir.
func bash(t *testing.T, sb *sut, p sandbox.Policy, dir, script string) result {
	t.Helper()
	return run(t, sb, p, dir, "bash", "-c", script)
}

// requireSandbox skips the test where this system cannot enforce p, with
// the reason; everywhere else (CI here has Landlock) it runs.
func requireSandbox(t *testing.T, sb interface{ Status() sandbox.Status }, p sandbox.Policy) {
	t.Helper()
	if err := sb.Status().Check(p); err != nil {
		if errors.Is(err, sandbox.ErrUnavailable) {
			t.Skipf("this system cannot sandbox: %v (status: %v)", err, sb.Status())
		}
		t.Fatal(err)
	}
}

// launcher is how a test starts sandboxed commands.
type launcher string

const (
	// viaTrampoline: exec.Cmd rewritten by Apply, one trampoline each.
	viaTrampoline launcher = "trampoline"
	// viaServer: osenv with the Starter, through the policy's server.
	viaServer launcher = "server"
)

var launchers = []launcher{viaTrampoline, viaServer}

// setup is one way of sandboxing that a test runs under.
type setup struct {
	opts sandbox.Options
	via  launcher
}

// sut is the sandbox under test and the way its test starts commands.
type sut struct {
	*sandbox.Sandbox
	via launcher
}

// method is a way of making the namespaces, as Options select it.
type method struct {
	name string
	opts sandbox.Options
}

// namespaceMethods are the ways this system makes the namespaces: for
// root both its own unshare and the user namespace everybody else gets;
// else the one there is (or none, named so).
func namespaceMethods() []method {
	st := sandbox.Probe()
	if !st.Namespaces {
		return []method{{"no-namespaces", sandbox.Options{}}}
	}
	ms := []method{{string(st.NamespaceMethod), sandbox.Options{}}}
	if st.NamespaceMethod != sandbox.NamespaceUser {
		ms = append(ms, method{string(sandbox.NamespaceUser), sandbox.WithUserNamespace(sandbox.Options{})})
	}
	return ms
}

// forEachSetup runs f once per namespace method and launcher.
func forEachSetup(t *testing.T, f func(t *testing.T, s setup)) {
	t.Helper()
	for _, m := range namespaceMethods() {
		for _, via := range launchers {
			t.Run(m.name+"/"+string(via), func(t *testing.T) { f(t, setup{m.opts, via}) })
		}
	}
}

// forEachLauncher runs f once per launcher, with opts.
func forEachLauncher(t *testing.T, opts sandbox.Options, f func(t *testing.T, s setup)) {
	t.Helper()
	for _, via := range launchers {
		t.Run(string(via), func(t *testing.T) { f(t, setup{opts, via}) })
	}
}

// newSandbox is a Sandbox closed with the test.
func newSandbox(t *testing.T, s setup) *sut {
	t.Helper()
	sb := sandbox.New(s.opts)
	t.Cleanup(func() {
		if err := sb.Close(); err != nil {
			t.Error(err)
		}
	})
	return &sut{sb, s.via}
}

// gitRepo makes dir a git repository with one commit.
func gitRepo(t testing.TB, dir string) {
	t.Helper()
	for _, args := range [][]string{
		{"init", "-q"},
		{"-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "--allow-empty", "-m", "first"},
	} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
}

// writeFile writes a file the test needs.
func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// readFile reads a file the test checks ("" when missing).
func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	return string(b)
}

// exists reports whether path exists (without following a final link).
func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

func containsAny(s string, subs ...string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}
