package sandbox

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"

	"github.com/kimigo/kimigo/osenv"
	"golang.org/x/sys/unix"
)

// Start starts the process ss describes under policy p and returns once
// it runs. It goes through this Sandbox's server for p, a small process
// that holds the policy's namespaces and mounts and starts each command
// on request, each in a fresh Landlock domain and with no capability; the
// first command of a policy starts that server. The process is the leader
// of a new process group, its pid is valid here, and TMPDIR in its
// environment is the private temporary directory.
//
// Start fails like Apply: with an *UnavailableError when this system
// cannot enforce p, with an error naming the field or path when p is bad
// (ModeOff included: nothing is sandboxed then, so callers start such
// processes themselves), and with an error naming the program when it
// cannot be executed. Safe for concurrent use.
func (s *Sandbox) Start(p Policy, ss osenv.StartSpec) (osenv.Leader, error) {
	if err := p.validate(); err != nil {
		return nil, err
	}
	if p.Mode == ModeOff {
		return nil, fmt.Errorf("sandbox %s: nothing to start through the sandbox; start the process directly", p.Mode)
	}
	if err := checkStartSpec(p.Mode, ss); err != nil {
		return nil, err
	}
	sp, err := s.prepare(p)
	if err != nil {
		return nil, err
	}
	return s.start(sp, sp.key(), ss)
}

// start starts ss through the server for sp (whose key is key).
func (s *Sandbox) start(sp spec, key string, ss osenv.StartSpec) (osenv.Leader, error) {
	if ss.Dir == "" {
		var err error
		if ss.Dir, err = os.Getwd(); err != nil {
			return nil, fmt.Errorf("sandbox %s: start %s: %w", sp.Mode, ss.Path, err)
		}
	}
	ss.Env = append(unsetEnv(ss.Env, "TMPDIR"), "TMPDIR="+sp.Temp)
	for tries := 0; ; tries++ {
		srv, err := s.serverFor(sp, key)
		if err != nil {
			return nil, err
		}
		l, err := srv.start(ss)
		var stale *staleError
		if !errors.As(err, &stale) || tries > 0 {
			return l, err
		}
		// The work dirs changed under the server: once more in a new
		// server, whose mounts and rules are made now.
		s.retire(srv, key)
	}
}

// startError is a server's answer that it could not start a command: its
// message, and the errno for errors.Is (fs.ErrNotExist, …).
type startError struct {
	msg   string
	errno syscall.Errno // 0: none
}

func (e *startError) Error() string { return e.msg }

func (e *startError) Unwrap() error {
	if e.errno == 0 {
		return nil
	}
	return e.errno
}

// staleError is a server's answer that its mounts no longer protect the
// work dirs, so it did not start the command.
type staleError struct {
	mode Mode
	why  string
}

func (e *staleError) Error() string {
	return fmt.Sprintf("sandbox %s: the sandbox server no longer fits the work dirs: %s", e.mode, e.why)
}

// Starter returns an osenv.Starter that starts processes under p through
// Start (for osenv.Cmd.Starter), after checking p as Start would: a
// caller learns here, before it starts anything, that p is unavailable or
// bad. The Starter keeps p as resolved now (the writable dirs' links);
// make a new one when the policy changes. For ModeOff it returns nil,
// with which osenv starts processes itself. Making a Starter starts no
// server.
func (s *Sandbox) Starter(p Policy) (osenv.Starter, error) {
	if err := p.validate(); err != nil {
		return nil, err
	}
	if p.Mode == ModeOff {
		return nil, nil
	}
	sp, err := s.prepare(p)
	if err != nil {
		return nil, err
	}
	return &policyStarter{s, sp, sp.key()}, nil
}

// policyStarter starts processes under one resolved policy.
type policyStarter struct {
	sb  *Sandbox
	sp  spec
	key string
}

func (ps *policyStarter) Start(ss osenv.StartSpec) (osenv.Leader, error) {
	if err := checkStartSpec(ps.sp.Mode, ss); err != nil {
		return nil, err
	}
	return ps.sb.start(ps.sp, ps.key, ss)
}

// checkStartSpec refuses a StartSpec with nothing to run.
func checkStartSpec(mode Mode, ss osenv.StartSpec) error {
	if ss.Path == "" || len(ss.Args) == 0 {
		return fmt.Errorf("sandbox %s: no command to run", mode)
	}
	for i, f := range ss.Files {
		if f == nil {
			return fmt.Errorf("sandbox %s: start %s: standard stream %d is missing", mode, ss.Path, i)
		}
	}
	return nil
}

// serverFor returns the running server for sp (whose key is key),
// starting one when there is none or the last one ended.
func (s *Sandbox) serverFor(sp spec, key string) (*server, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, errors.New("sandbox: closed")
	}
	if srv := s.servers[key]; srv != nil {
		if !srv.ended() {
			return srv, nil
		}
		delete(s.servers, key)
	}
	s.retired = slices.DeleteFunc(s.retired, (*server).ended)
	if s.thread == nil {
		s.thread = newLockedThread()
	}
	srv, err := startServer(sp, s.thread)
	if err != nil {
		return nil, err
	}
	if s.servers == nil {
		s.servers = map[string]*server{}
	}
	s.servers[key] = srv
	return srv, nil
}

// retire replaces srv by a new server for its policy (key) on the next
// start. The old one keeps running what it runs (and what that left in
// the background) until Close.
func (s *Sandbox) retire(srv *server, key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.servers[key] == srv {
		delete(s.servers, key)
		s.retired = append(s.retired, srv)
	}
}

// stopServers ends every server and waits for them, then the thread that
// started them. Commands still running end with them.
func (s *Sandbox) stopServers() error {
	s.mu.Lock()
	srvs := s.retired
	for _, srv := range s.servers {
		srvs = append(srvs, srv)
	}
	thread := s.thread
	s.servers, s.retired, s.thread = nil, nil, nil
	s.mu.Unlock()
	var errs []error
	for _, srv := range srvs {
		errs = append(errs, srv.close())
	}
	if thread != nil {
		thread.stop()
	}
	return errors.Join(errs...)
}

// lockedThread runs functions on one OS thread that lives until stop. The
// kernel sends a child's parent-death signal when the thread that started
// it ends, not the process: servers started from this thread get theirs
// when kimigo dies or Close is done with them, never because some
// goroutine that locked and left a thread of the pool happened to start
// them.
type lockedThread struct {
	work chan func()
	done chan struct{}
}

func newLockedThread() *lockedThread {
	t := &lockedThread{work: make(chan func()), done: make(chan struct{})}
	serve := func() {
		defer close(t.done)
		for f := range t.work {
			f()
		}
	}
	go func() { // owned by t: stop ends it and waits
		runtime.LockOSThread()
		if unix.Gettid() != unix.Getpid() {
			serve() // never unlocked: the thread ends with the goroutine
			return
		}
		// The main thread never ends (the runtime parks it instead), so
		// the parent-death signal would not come at stop. Keep it until a
		// goroutine has locked another thread, which it then cannot be.
		locked := make(chan struct{})
		go func() { // owned by t, as above
			runtime.LockOSThread() // never unlocked: the thread ends with the goroutine
			close(locked)
			serve()
		}()
		<-locked
		runtime.UnlockOSThread()
	}()
	return t
}

// run runs f on the thread and waits for it.
func (t *lockedThread) run(f func()) {
	ran := make(chan struct{})
	t.work <- func() { f(); close(ran) }
	<-ran
}

// stop ends the thread and waits until it is gone.
func (t *lockedThread) stop() {
	close(t.work)
	<-t.done
}

// server is the client side of one sandbox server.
type server struct {
	sp     spec
	cmd    *exec.Cmd
	conn   *net.UnixConn
	stderr *tailBuffer // the server's own messages

	wmu  sync.Mutex // one frame at a time on conn
	wbuf []byte     // guarded by wmu

	ready    chan struct{} // closed once the ready frame or the end came
	setupErr error         // written before ready is closed

	mu      sync.Mutex
	nextID  uint64                    // guarded by mu
	procs   map[uint64]*remoteProcess // guarded by mu; nil once ended
	endErr  error                     // guarded by mu; why it ended, nil while it runs
	closing bool                      // guarded by mu; Close ends it
	exitErr error                     // guarded by mu; how its process ended, once endErr is set

	done chan struct{} // closed once the reader ended and the process was reaped
}

// startServer starts a server for sp from thread. It returns at once: the
// server sets itself up while the first request is on its way.
func startServer(sp spec, thread *lockedThread) (*server, error) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("sandbox %s: make the server's socket: %w", sp.Mode, err)
	}
	ours := os.NewFile(uintptr(fds[0]), "sandbox server socket")
	theirs := os.NewFile(uintptr(fds[1]), "sandbox server socket")
	defer theirs.Close() // the server holds its own copy
	c, err := net.FileConn(ours)
	_ = ours.Close() // the copy serves
	if err != nil {
		return nil, fmt.Errorf("sandbox %s: the server's socket: %w", sp.Mode, err)
	}
	args, err := encodeServerArgs(sp)
	if err != nil {
		_ = c.Close() // unused
		return nil, err
	}
	// The server runs in a process group of its own, so that a terminal's
	// signals reach kimigo only; it stops when kimigo dies (the socket's
	// end, and the parent-death signal as a second line).
	attr := &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
	if err := serverNamespaces(attr, sp); err != nil {
		_ = c.Close() // unused
		return nil, fmt.Errorf("sandbox %s: %w", sp.Mode, err)
	}
	srv := &server{
		sp:     sp,
		conn:   c.(*net.UnixConn),
		stderr: &tailBuffer{max: 4 << 10},
		ready:  make(chan struct{}),
		procs:  map[uint64]*remoteProcess{},
		done:   make(chan struct{}),
	}
	// One thread keeps the server small; with GOMAXPROCS set, the Go
	// runtime also skips reading the cgroup limits at start.
	env := append(unsetEnv(os.Environ(), "GOMAXPROCS"), "GOMAXPROCS=1")
	srv.cmd = &exec.Cmd{Path: selfExe, Args: args, Env: env, Dir: "/", Stderr: srv.stderr,
		ExtraFiles: []*os.File{theirs}, SysProcAttr: attr}
	// The parent-death signal is tied to the thread that starts the
	// server (lockedThread).
	thread.run(func() { err = srv.cmd.Start() })
	if err != nil {
		_ = srv.conn.Close() // unused
		return nil, fmt.Errorf("sandbox %s: start the sandbox server: %w", sp.Mode, err)
	}
	go srv.read() // owned by srv: it ends with the connection, and close waits for it
	return srv, nil
}

// serverNamespaces asks for the namespaces a server of sp starts in: for
// root without a user namespace (NamespaceUnshare), else in a new user
// namespace, as the trampoline's.
func serverNamespaces(attr *syscall.SysProcAttr, sp spec) error {
	if !sp.Unshare {
		return addNamespaces(attr, sp)
	}
	if sp.MountNS {
		attr.Cloneflags |= syscall.CLONE_NEWNS
	}
	if sp.NetNS {
		attr.Cloneflags |= syscall.CLONE_NEWNET
	}
	return nil
}

// start has the server start ss and waits for its answer.
func (srv *server) start(ss osenv.StartSpec) (osenv.Leader, error) {
	p := &remoteProcess{srv: srv, path: ss.Path, reply: make(chan error, 1), done: make(chan struct{})}
	srv.mu.Lock()
	if srv.procs == nil {
		err := srv.endErr
		srv.mu.Unlock()
		return nil, err
	}
	srv.nextID++
	p.id = srv.nextID
	srv.procs[p.id] = p
	srv.mu.Unlock()
	m := message{Op: opStart, ID: p.id, Path: ss.Path, Dir: ss.Dir, Args: ss.Args, Env: ss.Env}
	fds := []int{int(ss.Files[0].Fd()), int(ss.Files[1].Fd()), int(ss.Files[2].Fd())}
	err := srv.send(m, fds)
	for _, f := range ss.Files {
		runtime.KeepAlive(f) // the descriptors were in flight until send returned
	}
	if err != nil {
		// The reader sees the connection end too and answers p.
		_ = srv.conn.Close() // a half-written frame leaves it useless
	}
	if err := <-p.reply; err != nil {
		return nil, err
	}
	return p, nil
}

// send writes m with descriptors fds.
func (srv *server) send(m message, fds []int) error {
	srv.wmu.Lock()
	defer srv.wmu.Unlock()
	srv.wbuf = appendFrame(srv.wbuf[:0], m)
	n, _, err := srv.conn.WriteMsgUnix(srv.wbuf, unix.UnixRights(fds...), nil)
	if err == nil && n < len(srv.wbuf) {
		_, err = srv.conn.Write(srv.wbuf[n:]) // the descriptors went with the first part
	}
	if err != nil {
		return fmt.Errorf("sandbox %s: send a command to the server: %w", srv.sp.Mode, err)
	}
	return nil
}

// read handles the server's frames until the connection ends, then ends
// the server.
func (srv *server) read() {
	br := bufio.NewReaderSize(srv.conn, 16<<10)
	var buf []byte
	var err error
	for {
		var body []byte
		if body, err = readFrame(br, buf); err != nil {
			break
		}
		buf = body[:0]
		var m message
		if m, err = decodeMessage(body); err != nil {
			break
		}
		if err = srv.handle(m); err != nil {
			break
		}
	}
	srv.end(err)
}

// handle applies one frame from the server.
func (srv *server) handle(m message) error {
	if m.Op == opReady {
		select {
		case <-srv.ready:
			return errors.New("sandbox wire: a second ready frame")
		default:
		}
		if m.Text != "" {
			srv.setupErr = errors.New(m.Text)
		}
		close(srv.ready)
		return nil
	}
	srv.mu.Lock()
	p := srv.procs[m.ID]
	switch {
	case p == nil:
		srv.mu.Unlock()
		return fmt.Errorf("sandbox wire: op %d for unknown command %d", m.Op, m.ID)
	case m.Op == opStarted:
		p.pid, p.started = m.Pid, true
		srv.mu.Unlock()
		p.reply <- nil
	case m.Op == opFailed:
		delete(srv.procs, m.ID)
		srv.mu.Unlock()
		p.reply <- &startError{fmt.Sprintf("sandbox %s: %s", srv.sp.Mode, m.Text), syscall.Errno(m.Errno)}
	case m.Op == opStale:
		delete(srv.procs, m.ID)
		srv.mu.Unlock()
		p.reply <- &staleError{srv.sp.Mode, m.Text}
	case m.Op == opExited && p.started:
		delete(srv.procs, m.ID)
		srv.mu.Unlock()
		p.status = syscall.WaitStatus(m.Status)
		close(p.done)
	default:
		srv.mu.Unlock()
		return fmt.Errorf("sandbox wire: op %d out of order for command %d", m.Op, m.ID)
	}
	return nil
}

// end runs once the connection ended (why: the read error): it reaps the
// server and fails every command it still had, killing the process group
// of each that runs, so that nothing is left behind unowned.
func (srv *server) end(why error) {
	// The server sees the end too and stops (it may have already).
	_ = srv.conn.Close()
	waitErr := srv.cmd.Wait()
	select {
	case <-srv.ready:
	default:
		close(srv.ready)
	}
	srv.mu.Lock()
	var err error
	switch {
	case srv.closing:
		err = fmt.Errorf("sandbox %s: the sandbox was closed", srv.sp.Mode)
	case srv.setupErr != nil:
		err = srv.setupErr
	default:
		how := "exit status 0"
		if waitErr != nil {
			how = waitErr.Error()
		}
		if !errors.Is(why, io.EOF) {
			how += "; " + why.Error()
		}
		if msg := srv.stderr.String(); msg != "" {
			how += ": " + msg
		}
		err = fmt.Errorf("sandbox %s: the sandbox server (pid %d) ended (%s)", srv.sp.Mode, srv.cmd.Process.Pid, how)
	}
	srv.endErr, srv.exitErr = err, waitErr
	procs := srv.procs
	srv.procs = nil
	srv.mu.Unlock()
	for _, p := range procs {
		if !p.started {
			p.reply <- err
			continue
		}
		_ = unix.Kill(-p.pid, unix.SIGKILL) // a group that is gone already is fine
		p.err = fmt.Errorf("%w while the command ran; its exit status is unknown", err)
		close(p.done)
	}
	close(srv.done)
}

// ended reports whether the server is gone.
func (srv *server) ended() bool {
	srv.mu.Lock()
	defer srv.mu.Unlock()
	return srv.procs == nil
}

// close ends the server, which kills what its commands still run, and
// waits until it is gone. An error means the server did not end cleanly.
func (srv *server) close() error {
	srv.mu.Lock()
	srv.closing = srv.procs != nil
	srv.mu.Unlock()
	_ = srv.conn.CloseWrite() // the server stops at the end of its input; it may be gone already
	<-srv.done
	srv.mu.Lock()
	defer srv.mu.Unlock()
	if srv.closing && srv.exitErr != nil {
		msg := srv.stderr.String()
		return fmt.Errorf("sandbox %s: the sandbox server (pid %d) ended badly: %w: %s", srv.sp.Mode, srv.cmd.Process.Pid, srv.exitErr, msg)
	}
	return nil
}

// remoteProcess is a command a server started: osenv.Leader.
type remoteProcess struct {
	srv   *server
	path  string
	id    uint64     // set before the request is sent
	reply chan error // the start's answer: nil once it runs

	pid     int  // guarded by srv.mu until reply is sent; fixed afterwards
	started bool // guarded by srv.mu

	done   chan struct{}      // closed once it ended or its end cannot be known
	status syscall.WaitStatus // written before done is closed
	err    error              // written before done is closed
}

func (p *remoteProcess) Pid() int { return p.pid }

func (p *remoteProcess) Wait() (syscall.WaitStatus, error) {
	<-p.done
	return p.status, p.err
}

// tailBuffer keeps the last max bytes written to it; safe for concurrent
// use.
type tailBuffer struct {
	max int
	mu  sync.Mutex
	b   []byte // guarded by mu
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if over := len(t.b) - t.max; over > 0 {
		t.b = append(t.b[:0], t.b[over:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.TrimSpace(string(t.b))
}
