package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
)

// Options configure a Sandbox. The zero value is ready to use.
type Options struct {
	// TempRoot is where the private temporary directory is made; ""
	// means os.TempDir().
	TempRoot string

	// noNamespaces makes the sandbox behave as on a system that refuses
	// namespaces, and userNamespace makes it use NamespaceUser even for
	// root; tests set them through export_test.go.
	noNamespaces, userNamespace bool
}

// Sandbox runs commands under policies. It owns one private temporary
// directory, made on first use and removed by Close, which every
// sandboxed command may write to and finds in TMPDIR, and a server per
// policy, started by the policy's first command (Start) and ended by
// Close. One Sandbox serves a session; its methods are safe for
// concurrent use.
type Sandbox struct {
	opts Options

	mu      sync.Mutex
	temp    string             // guarded by mu; "" until first use
	closed  bool               // guarded by mu
	servers map[string]*server // guarded by mu; by spec.key, one per policy
	retired []*server          // guarded by mu; replaced servers, kept until Close
	thread  *lockedThread      // guarded by mu; starts the servers, nil until the first
}

// New returns a Sandbox. It does no work until a command is sandboxed.
func New(opts Options) *Sandbox { return &Sandbox{opts: opts} }

// Status is Probe's answer as this Sandbox sees it.
func (s *Sandbox) Status() Status {
	st := Probe()
	switch {
	case s.opts.noNamespaces:
		st.Namespaces, st.NamespaceMethod, st.NamespaceError = false, "", "turned off for this sandbox"
	case s.opts.userNamespace && st.Namespaces:
		st.NamespaceMethod = NamespaceUser
	}
	return st
}

// Command returns a command that runs argv under policy p, like
// exec.Command followed by Apply.
func (s *Sandbox) Command(p Policy, argv ...string) (*exec.Cmd, error) {
	if len(argv) == 0 {
		return nil, fmt.Errorf("sandbox %s: no command to run", p.Mode)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	if err := s.Apply(cmd, p); err != nil {
		return nil, err
	}
	return cmd, nil
}

// TempDir returns the private temporary directory, making it on first
// use.
func (s *Sandbox) TempDir() (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return "", errors.New("sandbox: closed")
	}
	if s.temp != "" {
		return s.temp, nil
	}
	d, err := os.MkdirTemp(s.opts.TempRoot, "kimigo-sandbox-")
	if err != nil {
		return "", fmt.Errorf("sandbox: make the private temporary directory: %w", err)
	}
	// Rules and mounts work on resolved paths (/tmp may be a link).
	if r, err := filepath.EvalSymlinks(d); err == nil {
		d = r
	}
	s.temp = d
	return d, nil
}

// Close ends the sandbox servers, with every command still running in
// them and whatever those left in the background, then removes the
// private temporary directory. Commands started through Apply lose the
// directory; call Close after they ended.
func (s *Sandbox) Close() error {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	err := s.stopServers()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.temp == "" {
		return err
	}
	d := s.temp
	s.temp = ""
	if rerr := os.RemoveAll(d); rerr != nil {
		// Commands may leave read-only directories behind (Go's module
		// cache does); make them writable and try once more.
		_ = filepath.WalkDir(d, func(p string, e fs.DirEntry, err error) error {
			if err == nil && e.IsDir() {
				_ = os.Chmod(p, 0o700) // best effort: RemoveAll reports what is left
			}
			return nil
		})
		if rerr := os.RemoveAll(d); rerr != nil {
			return errors.Join(err, fmt.Errorf("sandbox: remove the private temporary directory: %w", rerr))
		}
	}
	return err
}
