package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// Exit statuses of a trampoline that could not run the command; the
// shell's conventions (as in env(1) and timeout(1)).
const (
	exitSetup    = 125 // the sandbox could not be set up
	exitCannot   = 126 // the command was found but could not be executed
	exitNotFound = 127 // the command was not found
)

// runTrampoline is the trampoline: in the namespaces the parent asked for
// (or that it unshares itself), it brings the loopback up, mounts the
// read-only entries, restricts its thread with Landlock and executes the
// command from that thread. It returns only to fail, with the exit
// status; messages name the policy and the path, since the model reads
// them as the command's output.
func runTrampoline(args []string) int {
	// Never unlocked: unshared namespaces, Landlock and capabilities
	// belong to this thread, and the command is executed from it.
	runtime.LockOSThread()
	sp, argv, err := decodeArgs(args)
	if err != nil {
		fmt.Fprintf(os.Stderr, "kimigo sandbox: %v\n", err)
		return exitSetup
	}
	fail := func(err error) int {
		fmt.Fprintf(os.Stderr, "kimigo sandbox (%s): %v\n", sp.Mode, err)
		return exitSetup
	}
	if sp.Unshare {
		if err := unshareNamespaces(sp); err != nil {
			return fail(err)
		}
	}
	if sp.NetNS {
		if err := loopbackUp(); err != nil {
			return fail(err)
		}
	}
	if sp.MountNS {
		if err := protect(sp); err != nil {
			return fail(err)
		}
	}
	if sp.Probe {
		return 0
	}
	env := os.Environ()
	if v, ok := os.LookupEnv("GOMAXPROCS"); ok && v == "1" && sp.OwnGoMaxProcs {
		env = unsetEnv(env, "GOMAXPROCS")
		if sp.GoMaxProcs != nil {
			env = append(env, "GOMAXPROCS="+*sp.GoMaxProcs)
		}
	}
	if sp.Temp != "" {
		env = append(unsetEnv(env, "TMPDIR"), "TMPDIR="+sp.Temp)
	}
	path := sp.Path
	if !strings.Contains(path, "/") {
		// exec.Command found nothing with a slash; look it up in the
		// command's own PATH, as a shell would.
		if path, err = exec.LookPath(path); err != nil {
			fmt.Fprintf(os.Stderr, "kimigo sandbox (%s): %s: command not found\n", sp.Mode, sp.Path)
			return exitNotFound
		}
	}
	if err := restrictThisThread(sp); err != nil {
		return fail(err)
	}
	err = syscall.Exec(path, argv, env)
	fmt.Fprintf(os.Stderr, "kimigo sandbox (%s): execute %s: %v\n", sp.Mode, path, err)
	if errors.Is(err, syscall.ENOENT) {
		return exitNotFound
	}
	return exitCannot
}

// unshareNamespaces gives this thread new mount and network namespaces
// (root's method). A mount namespace made this way shares propagation with
// the one it was copied from, so everything in it becomes a slave first:
// the read-only mounts must not show outside.
func unshareNamespaces(sp spec) error {
	var flags int
	if sp.MountNS {
		flags |= unix.CLONE_NEWNS
	}
	if sp.NetNS {
		flags |= unix.CLONE_NEWNET
	}
	if err := unix.Unshare(flags); err != nil {
		return fmt.Errorf("unshare the namespaces: %w", err)
	}
	if sp.MountNS {
		if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_SLAVE, ""); err != nil {
			return fmt.Errorf("keep the sandbox's mounts inside: %w", err)
		}
	}
	return nil
}

// protect mounts the read-only entries, then re-enters the working
// directory so that it is seen through the new mounts: the directory
// inherited from the parent still points below them.
func protect(sp spec) error {
	wd, err := os.Getwd()
	if err != nil {
		return fmt.Errorf("find the working directory: %w", err)
	}
	ms, _, err := planMounts(sp)
	if err != nil {
		return err
	}
	if err := mountAll(ms); err != nil {
		return err
	}
	if err := os.Chdir(wd); err != nil {
		return fmt.Errorf("re-enter the working directory: %w", err)
	}
	return nil
}

// loopbackUp brings up "lo" in the new network namespace, where it starts
// down: commands may still run and test servers on 127.0.0.1.
func loopbackUp() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("bring the loopback up: socket: %w", err)
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return fmt.Errorf("bring the loopback up: %w", err)
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		return fmt.Errorf("bring the loopback up: read its flags: %w", err)
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	if err := unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr); err != nil {
		return fmt.Errorf("bring the loopback up: %w", err)
	}
	return nil
}

// unsetEnv returns env without key.
func unsetEnv(env []string, key string) []string {
	out := env[:0:0]
	for _, kv := range env {
		if !strings.HasPrefix(kv, key+"=") {
			out = append(out, kv)
		}
	}
	return out
}
