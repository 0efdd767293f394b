package sandbox

import (
	"errors"
	"fmt"
	"runtime"

	"github.com/landlock-lsm/go-landlock/landlock"
	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// detectABI returns the kernel's Landlock ABI the way go-landlock counts
// it: ABI 6 and later count as 5 until the kernel reports the fix for the
// signal-scoping erratum (errata bit 2), because go-landlock then
// enforces no scopes.
func detectABI() (int, error) {
	v, err := llsys.LandlockGetABIVersion()
	if err != nil {
		if errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EOPNOTSUPP) {
			return 0, errors.New("not built into this kernel or not enabled at boot (lsm=)")
		}
		return 0, err
	}
	if v >= 6 {
		if errata, err := llsys.LandlockGetErrata(); err != nil || errata&0x2 == 0 {
			v = 5
		}
	}
	return v, nil
}

// devices are the device files every sandboxed command may open for
// writing and use ioctls on: the bit buckets and the terminals.
var devices = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty", "/dev/ptmx", "/dev/pts"}

// landlockRules is the Landlock configuration and rules of sp, in
// go-landlock's best-effort mode so that each right is enforced where the
// kernel knows it (Check made sure the promised ones are known).
//
//   - Reading and executing: everywhere.
//   - Writing, creating, removing, renaming and linking: beneath the
//     writable dirs and the private temporary directory. Renames and
//     links across directories are allowed there too, but Landlock still
//     refuses any that would give a file more rights than it has (a hard
//     link from /etc into the work dir stays unwritable).
//   - Device files: the bit buckets and terminals only.
//   - Network, when off: with a network namespace nothing more is needed;
//     without, TCP (and UDP from ABI 10) connect and bind are denied, and
//     from ABI 9 so is connecting to pathname unix sockets outside.
//   - Scopes (ABI 6): no signal to a process outside the sandbox, and,
//     when the network is off, no abstract unix socket outside it.
func landlockRules(sp spec) (landlock.Config, []landlock.Rule) {
	cfg := landlock.Config{
		HandledAccessFS: landlock.V11.HandledAccessFS,
		Scoped:          llsys.ScopeSignal,
	}
	read := landlock.RODirs("/")
	if sp.Network {
		read = read.WithResolveUnix()
	} else {
		cfg.Scoped |= llsys.ScopeAbstractUnixSocket
		if !sp.NetNS {
			cfg.HandledAccessNet = landlock.V11.HandledAccessNet
		}
	}
	rules := []landlock.Rule{
		read,
		landlock.RWFiles(devices...).WithIoctlDev().IgnoreIfMissing(),
	}
	writable := append([]string{}, sp.Write...)
	if sp.Temp != "" {
		writable = append(writable, sp.Temp)
	}
	if len(writable) > 0 {
		rules = append(rules, landlock.RWDirs(writable...).WithRefer())
	}
	return cfg.BestEffort(), rules
}

// restrictThisThread locks the goroutine to its thread, drops the
// thread's ambient capabilities (the command gets none that the
// namespaces' setup needed) and puts the thread, and whatever it
// executes, under sp's Landlock rules. The thread is never unlocked: the
// caller executes the command from it next, and if that fails it exits.
func restrictThisThread(sp spec) error {
	runtime.LockOSThread()
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil {
		return fmt.Errorf("drop the ambient capabilities: %w", err)
	}
	cfg, rules := landlockRules(sp)
	fd, flags, err := cfg.NewRulesetFD(rules...)
	if err != nil {
		return fmt.Errorf("build the Landlock rules: %w", err)
	}
	if fd < 0 {
		return errors.New("this kernel has no Landlock, so the rules cannot be enforced")
	}
	defer unix.Close(fd)
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("set no_new_privs: %w", err)
	}
	if err := llsys.LandlockRestrictSelf(fd, flags); err != nil {
		return fmt.Errorf("enforce the Landlock rules: %w", err)
	}
	return nil
}
