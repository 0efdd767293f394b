package sandbox

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// serverFD is where a server finds its socket: the first of
// exec.Cmd.ExtraFiles.
const serverFD = 3

// sandboxServer is the server side: one process per policy and session,
// in the policy's namespaces, that starts commands on request.
type sandboxServer struct {
	sp           spec
	conn         *net.UnixConn
	rulesetFD    int
	rulesetFlags uint32
	guard        guard // checked before each command

	wmu  sync.Mutex // one frame at a time on conn
	wbuf []byte     // guarded by wmu

	// mu is held across every fork, every reap and the shutdown, so that
	// a command is registered before its end can be reaped, and nothing
	// is started once the shutdown began.
	mu      sync.Mutex
	running map[int]*command // guarded by mu; by pid

	stop     chan struct{} // closed when the client is gone or broken
	stopOnce sync.Once
}

// command is one running command of the server's.
type command struct {
	id   uint64
	done chan struct{} // closed once it was reaped and its end reported
}

// runServer is the server: it sets the namespaces and mounts up once,
// reports ready, then starts a command for each start frame until the
// client closes the connection (or kimigo dies), and then kills whatever
// its commands left running and exits. It returns only to fail.
func runServer(args []string) int {
	fail := func(format string, a ...any) int {
		fmt.Fprintf(os.Stderr, "kimigo sandbox server: "+format+"\n", a...)
		return exitSetup
	}
	if len(args) != 1 {
		return fail("want one policy argument, got %d arguments", len(args))
	}
	sp, err := decodeSpec(args[0])
	if err != nil {
		return fail("%v", err)
	}
	f := os.NewFile(serverFD, "sandbox socket")
	c, err := net.FileConn(f) // a close-on-exec copy: commands must not inherit it
	_ = f.Close()             // the copy serves
	if err != nil {
		return fail("socket: %v", err)
	}
	conn, ok := c.(*net.UnixConn)
	if !ok {
		return fail("descriptor %d is no unix socket", serverFD)
	}
	// Whatever else kimigo left open and inheritable stays with the
	// server: commands get their three streams and nothing more.
	if err := closeOnExecAbove(2); err != nil {
		return fail("%v", err)
	}
	sv := &sandboxServer{sp: sp, conn: conn, running: map[int]*command{}, stop: make(chan struct{})}
	if err := sv.setUp(); err != nil {
		sv.send(message{Op: opReady, Text: fmt.Sprintf("kimigo sandbox (%s): %v", sp.Mode, err)})
		return exitSetup
	}
	// Signals Go handles go back to their defaults in the commands; ones
	// it ignored would stay ignored there, so none is ignored. The server
	// runs in a process group of its own: only kimigo (or someone outside
	// the sandbox) signals it.
	term := make(chan os.Signal, 1)
	signal.Notify(term, syscall.SIGTERM)
	signal.Notify(make(chan os.Signal, 1), syscall.SIGINT, syscall.SIGHUP, syscall.SIGQUIT)
	chld := make(chan os.Signal, 1)
	signal.Notify(chld, syscall.SIGCHLD)
	sv.send(message{Op: opReady})
	go sv.reap(chld) // ends with the process
	go sv.serve()    // ends with the process
	select {
	case <-sv.stop:
	case <-term: // kimigo died (the parent-death signal) or asks to stop
	}
	sv.shutdown()
	return 0
}

// setUp makes the namespaces ready (the client started the server in
// them), mounts the read-only entries and prepares the Landlock ruleset
// every command gets. The server itself stays unrestricted: each command
// is restricted from its own thread (spawn).
func (sv *sandboxServer) setUp() error {
	sp := sv.sp
	if sp.MountNS {
		// A mount namespace shares propagation with the one it was copied
		// from: make everything a slave first, or the read-only mounts
		// show outside.
		if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_SLAVE, ""); err != nil {
			return fmt.Errorf("keep the sandbox's mounts inside: %w", err)
		}
	}
	if sp.NetNS {
		if err := loopbackUp(); err != nil {
			return err
		}
	}
	var ms []bindMount
	var missing []string
	if sp.MountNS {
		var err error
		if ms, missing, err = planMounts(sp); err != nil {
			return err
		}
	}
	if err := mountAll(ms); err != nil {
		return err
	}
	g, err := newGuard(sp, ms, missing)
	if err != nil {
		return err
	}
	sv.guard = g
	cfg, rules := landlockRules(sp)
	fd, flags, err := cfg.NewRulesetFD(rules...)
	if err != nil {
		return fmt.Errorf("build the Landlock rules: %w", err)
	}
	if fd < 0 {
		return errors.New("this kernel has no Landlock, so the rules cannot be enforced")
	}
	sv.rulesetFD, sv.rulesetFlags = fd, flags
	// Nobody may read the server's memory or descriptors (the socket to
	// kimigo among them), whatever the commands' ids: a process that is
	// not dumpable can only be traced with CAP_SYS_PTRACE, which no
	// command has (and Landlock denies it across domains anyway).
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		return fmt.Errorf("make the server undumpable: %w", err)
	}
	// Orphans of the commands (daemons, double forks) become the server's
	// children, so that it can end them all when it stops.
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("adopt the commands' orphans: %w", err)
	}
	return nil
}

// serve reads start frames until the connection ends.
func (sv *sandboxServer) serve() {
	defer sv.halt()
	fr := &fdReader{conn: sv.conn, oob: make([]byte, unix.CmsgSpace(16*4))}
	br := bufio.NewReaderSize(fr, 64<<10)
	var buf []byte
	for {
		body, err := readFrame(br, buf)
		if err != nil {
			if !errors.Is(err, io.EOF) && !errors.Is(err, net.ErrClosed) {
				fmt.Fprintf(os.Stderr, "kimigo sandbox server: %v\n", err)
			}
			return
		}
		buf = body[:0]
		m, err := decodeMessage(body)
		if err == nil && m.Op != opStart {
			err = fmt.Errorf("sandbox wire: op %d from the client", m.Op)
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "kimigo sandbox server: %v\n", err)
			return
		}
		files, err := fr.take(3)
		if err != nil {
			fmt.Fprintf(os.Stderr, "kimigo sandbox server: %v\n", err)
			return
		}
		go sv.spawn(m, files) // ends once the command was reaped, or with the process
	}
}

// spawn starts one command from a thread of its own, which takes the
// command's Landlock domain: every command gets a fresh domain, so it
// cannot signal or trace the server (which has none), kimigo or the
// commands of other calls. The thread is never unlocked: it lives until
// the command was reaped and then ends with this goroutine, so its domain
// never serves anything else, and the command's parent-death signal
// (which the kernel ties to the thread) fires only if the server dies
// first.
func (sv *sandboxServer) spawn(m message, files [3]int) {
	runtime.LockOSThread()
	if err := sv.guard.check(); err != nil {
		for _, fd := range files {
			_ = unix.Close(fd) // nothing starts here
		}
		sv.send(message{Op: opStale, ID: m.ID, Text: err.Error()})
		return
	}
	c, err := sv.fork(m, files)
	for _, fd := range files {
		_ = unix.Close(fd) // the command holds its own copies
	}
	if err != nil {
		var errno syscall.Errno
		errors.As(err, &errno)
		sv.send(message{Op: opFailed, ID: m.ID, Errno: uint64(errno), Text: err.Error()})
		return
	}
	<-c.done
}

// fork restricts the calling thread and starts m's command from it.
func (sv *sandboxServer) fork(m message, files [3]int) (*command, error) {
	if err := restrictThread(sv.rulesetFD, sv.rulesetFlags); err != nil {
		return nil, err
	}
	attr := &syscall.ProcAttr{
		Dir:   m.Dir,
		Env:   m.Env,
		Files: []uintptr{uintptr(files[0]), uintptr(files[1]), uintptr(files[2])},
		Sys:   &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL},
	}
	// As os.StartProcess does: a missing directory is no missing program.
	if _, err := os.Stat(m.Dir); err != nil {
		return nil, fmt.Errorf("start %s: %w", m.Path, err)
	}
	sv.mu.Lock()
	defer sv.mu.Unlock()
	pid, err := syscall.ForkExec(m.Path, m.Args, attr)
	if err != nil {
		return nil, fmt.Errorf("execute %s: %w", m.Path, err)
	}
	c := &command{id: m.ID, done: make(chan struct{})}
	sv.running[pid] = c
	// Under mu, so that the client hears of the start before the end.
	sv.send(message{Op: opStarted, ID: m.ID, Pid: pid})
	return c, nil
}

// reap collects ended children on every SIGCHLD and reports the
// commands' ends; orphans it adopted are only collected.
func (sv *sandboxServer) reap(chld <-chan os.Signal) {
	for range chld {
		sv.mu.Lock()
		for {
			var ws unix.WaitStatus
			pid, err := unix.Wait4(-1, &ws, unix.WNOHANG, nil)
			if errors.Is(err, unix.EINTR) {
				continue
			}
			if err != nil || pid <= 0 {
				break
			}
			if c := sv.running[pid]; c != nil {
				delete(sv.running, pid)
				sv.send(message{Op: opExited, ID: c.id, Status: uint32(ws)})
				close(c.done)
			}
		}
		sv.mu.Unlock()
	}
}

// shutdown kills every command's process group, then every process left
// below the server (orphans come to it, as a subreaper), until it has no
// child left. It keeps mu: nothing starts or is reported any more.
func (sv *sandboxServer) shutdown() {
	sv.mu.Lock()
	for pid := range sv.running {
		_ = unix.Kill(-pid, unix.SIGKILL) // a group that is gone already is fine
	}
	for {
		// A dying child hands its own children to the server before it
		// can be reaped, so listing again after each reap finds them.
		for _, pid := range children() {
			_ = unix.Kill(-pid, unix.SIGKILL) // its group, if it leads one
			_ = unix.Kill(pid, unix.SIGKILL)
		}
		_, err := unix.Wait4(-1, nil, 0, nil)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil { // ECHILD: nothing is left
			return
		}
	}
}

// children lists this process's children, from every thread's children
// file, or by scanning /proc where the kernel has no such files.
func children() []int {
	var out []int
	tasks, err := os.ReadDir("/proc/self/task")
	if err == nil {
		for _, t := range tasks {
			b, err := os.ReadFile("/proc/self/task/" + t.Name() + "/children")
			if err != nil {
				tasks = nil
				break
			}
			for _, f := range strings.Fields(string(b)) {
				if pid, err := strconv.Atoi(f); err == nil {
					out = append(out, pid)
				}
			}
		}
	}
	if tasks != nil {
		return out
	}
	out = out[:0]
	self := os.Getpid()
	procs, _ := os.ReadDir("/proc") // unreadable: nothing to kill found
	for _, p := range procs {
		pid, err := strconv.Atoi(p.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + p.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid …; comm may hold spaces and parentheses.
		rest := string(b)
		if i := strings.LastIndexByte(rest, ')'); i >= 0 {
			rest = rest[i+1:]
		}
		if f := strings.Fields(rest); len(f) > 1 && f[1] == strconv.Itoa(self) {
			out = append(out, pid)
		}
	}
	return out
}

// send writes one frame to the client; a failure stops the server.
func (sv *sandboxServer) send(m message) {
	sv.wmu.Lock()
	defer sv.wmu.Unlock()
	sv.wbuf = appendFrame(sv.wbuf[:0], m)
	if _, err := sv.conn.Write(sv.wbuf); err != nil {
		sv.halt()
	}
}

// halt makes runServer shut the server down.
func (sv *sandboxServer) halt() { sv.stopOnce.Do(func() { close(sv.stop) }) }

// fdReader reads a unix socket and keeps the descriptors that arrive with
// the bytes, in order.
type fdReader struct {
	conn *net.UnixConn
	oob  []byte
	fds  []int
}

func (r *fdReader) Read(p []byte) (int, error) {
	n, oobn, flags, _, err := r.conn.ReadMsgUnix(p, r.oob)
	if oobn > 0 {
		cmsgs, perr := unix.ParseSocketControlMessage(r.oob[:oobn])
		if perr != nil {
			return n, fmt.Errorf("sandbox wire: control message: %w", perr)
		}
		for _, cm := range cmsgs {
			fds, perr := unix.ParseUnixRights(&cm)
			if perr != nil {
				return n, fmt.Errorf("sandbox wire: descriptors: %w", perr)
			}
			r.fds = append(r.fds, fds...)
		}
	}
	if flags&unix.MSG_CTRUNC != 0 {
		return n, errors.New("sandbox wire: descriptors were cut off")
	}
	return n, err
}

// take removes the n oldest descriptors received.
func (r *fdReader) take(n int) ([3]int, error) {
	var out [3]int
	if n != len(out) || len(r.fds) < n {
		return out, fmt.Errorf("sandbox wire: a start frame came with %d descriptors, want 3", len(r.fds))
	}
	copy(out[:], r.fds)
	r.fds = r.fds[n:]
	return out, nil
}

// closeOnExecAbove marks every descriptor above fd close-on-exec.
func closeOnExecAbove(fd int) error {
	err := unix.CloseRange(uint(fd+1), ^uint(0), unix.CLOSE_RANGE_CLOEXEC)
	if err == nil || !(errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EINVAL)) {
		return err
	}
	// Before Linux 5.11: one by one.
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return fmt.Errorf("list the open descriptors: %w", err)
	}
	for _, e := range entries {
		if n, err := strconv.Atoi(e.Name()); err == nil && n > fd {
			_, _ = unix.FcntlInt(uintptr(n), unix.F_SETFD, unix.FD_CLOEXEC) // the directory's own descriptor is gone by now
		}
	}
	return nil
}
