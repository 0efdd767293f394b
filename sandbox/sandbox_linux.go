package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// selfExe is the program the trampoline runs from: /proc/self/exe names
// the running binary even when its file was replaced or deleted since.
const selfExe = "/proc/self/exe"

// Apply rewrites cmd so that it runs under policy p: cmd then starts this
// program as the trampoline, which sets the sandbox up and executes the
// original command in its place, so the process cmd starts is the
// command's own process (same pid, same process group, same exit status).
// Dir, the standard streams and SysProcAttr.Setpgid are kept, and the
// command sees Env (os.Environ() when nil) with TMPDIR set to the private
// temporary directory. Apply sets cmd.Path, Args, Env and a copy of
// SysProcAttr, so it should be the last change to cmd before Start.
//
// ModeOff leaves cmd untouched. Otherwise Apply fails with an
// *UnavailableError (errors.Is ErrUnavailable) when this system cannot
// enforce p, and with an error naming the path when a writable dir is
// not an existing directory. Call it before cmd.Start.
func (s *Sandbox) Apply(cmd *exec.Cmd, p Policy) error {
	if err := p.validate(); err != nil {
		return err
	}
	if p.Mode == ModeOff {
		return nil
	}
	if cmd.Err != nil {
		return cmd.Err
	}
	if len(cmd.Args) > 1 && cmd.Args[1] == trampolineArg {
		return fmt.Errorf("sandbox %s: the command is already sandboxed", p.Mode)
	}
	sp, err := s.prepare(p)
	if err != nil {
		return err
	}
	sp.Path = cmd.Path
	argv := cmd.Args
	if len(argv) == 0 {
		argv = []string{cmd.Path}
	}
	// The trampoline needs one thread: with GOMAXPROCS set the Go
	// runtime also skips reading the cgroup limits, which is most of a
	// millisecond here. The command gets the caller's value back (and if
	// the caller replaces Env after Apply, it keeps whatever it set).
	env := cmd.Env
	if env == nil {
		env = os.Environ()
	}
	sp.OwnGoMaxProcs, sp.GoMaxProcs = true, lookupEnv(env, "GOMAXPROCS")
	args, err := encodeArgs(sp, argv)
	if err != nil {
		return err
	}
	attr := &syscall.SysProcAttr{}
	if cmd.SysProcAttr != nil {
		*attr = *cmd.SysProcAttr // the caller's value may serve other commands
	}
	if err := addNamespaces(attr, sp); err != nil {
		return fmt.Errorf("sandbox %s: %w", p.Mode, err)
	}
	cmd.Path, cmd.Args, cmd.SysProcAttr = selfExe, args, attr
	cmd.Env = append(env[:len(env):len(env)], "GOMAXPROCS=1")
	return nil
}

// prepare checks that p can be enforced here and resolves it into the
// spec a trampoline or a server needs, less the command.
func (s *Sandbox) prepare(p Policy) (spec, error) {
	if !wired.Load() {
		return spec{}, fmt.Errorf("sandbox %s: this program does not call sandbox.MaybeRunTrampoline first in main, so it cannot run sandboxed commands", p.Mode)
	}
	st := s.Status()
	if err := st.Check(p); err != nil {
		return spec{}, err
	}
	write, err := p.writableDirs()
	if err != nil {
		return spec{}, err
	}
	temp, err := s.TempDir()
	if err != nil {
		return spec{}, err
	}
	sp := spec{
		Mode:     p.Mode,
		Write:    write,
		ReadOnly: p.ReadOnly,
		Temp:     temp,
		Network:  p.Network,
		NetNS:    !p.Network && st.Namespaces,
		MountNS:  p.Mode == ModeWorkspaceWrite,
	}
	sp.Unshare = st.NamespaceMethod == NamespaceUnshare && (sp.NetNS || sp.MountNS)
	return sp, nil
}

// lookupEnv is the value of key in env (the last one wins, as in exec),
// or nil when it is not set.
func lookupEnv(env []string, key string) *string {
	var v *string
	for _, kv := range env {
		if rest, ok := strings.CutPrefix(kv, key+"="); ok {
			v = &rest
		}
	}
	return v
}

// addNamespaces asks for the namespaces sp needs, unless the trampoline
// unshares them itself: a user namespace that maps the caller's ids to
// themselves (so files keep their owners), and in it the mount and
// network namespaces.
func addNamespaces(attr *syscall.SysProcAttr, sp spec) error {
	if sp.Unshare {
		return nil
	}
	var flags uintptr
	if sp.MountNS {
		flags |= syscall.CLONE_NEWNS
	}
	if sp.NetNS {
		flags |= syscall.CLONE_NEWNET
	}
	if flags == 0 {
		return nil
	}
	if attr.Cloneflags&syscall.CLONE_NEWUSER != 0 || attr.UidMappings != nil || attr.GidMappings != nil || attr.AmbientCaps != nil {
		return errors.New("the command already asks for a user namespace or capabilities of its own")
	}
	attr.Cloneflags |= syscall.CLONE_NEWUSER | flags
	attr.UidMappings, attr.GidMappings = idMaps()
	// Unprivileged callers may map their gid only after denying setgroups.
	attr.GidMappingsEnableSetgroups = os.Getuid() == 0
	// The capabilities a new user namespace grants are lost when a
	// process that is not root in it executes a program, so the
	// trampoline keeps the two it needs as ambient ones; it clears them
	// before it executes the command.
	attr.AmbientCaps = []uintptr{unix.CAP_SYS_ADMIN, unix.CAP_NET_ADMIN}
	return nil
}

// idMaps maps ids to themselves: every id for root, which may; the
// caller's own otherwise (other ids show as the overflow id inside, but
// the kernel still checks the real ones).
func idMaps() (uids, gids []syscall.SysProcIDMap) {
	if os.Getuid() == 0 {
		all := []syscall.SysProcIDMap{{ContainerID: 0, HostID: 0, Size: 1<<32 - 1}}
		return all, all
	}
	return []syscall.SysProcIDMap{{ContainerID: os.Getuid(), HostID: os.Getuid(), Size: 1}},
		[]syscall.SysProcIDMap{{ContainerID: os.Getgid(), HostID: os.Getgid(), Size: 1}}
}
