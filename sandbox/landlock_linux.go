package sandbox

import (
	"errors"
	"fmt"
	"os"

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

// devices are the device files every sandboxed command may read and
// write: the bit buckets and the random sources. No terminal is among
// them: a command must neither read the user's keystrokes from a
// terminal nor write escape sequences (a clipboard write, a fake prompt)
// to it.
var devices = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom"}

// writeAccess is what a command may do beneath a writable directory:
// everything but making device nodes (which could reach a raw disk),
// using device ioctls and, on ABI 9, reaching outside unix sockets.
const writeAccess = landlock.AccessFSSet(llsys.AccessFSExecute | llsys.AccessFSWriteFile | llsys.AccessFSReadFile |
	llsys.AccessFSReadDir | llsys.AccessFSRemoveDir | llsys.AccessFSRemoveFile | llsys.AccessFSMakeDir |
	llsys.AccessFSMakeReg | llsys.AccessFSMakeSock | llsys.AccessFSMakeFifo | llsys.AccessFSMakeSym |
	llsys.AccessFSRefer | llsys.AccessFSTruncate)

// landlockRules is the Landlock configuration and rules of sp, in
// go-landlock's best-effort mode so that each right is enforced where the
// kernel knows it (Check made sure the promised ones are known).
//
//   - Reading and executing: everywhere but /dev, where only the bit
//     buckets and random sources may be opened (directories may still be
//     listed everywhere).
//   - Writing, creating, removing, renaming and linking: beneath the
//     writable dirs and the private temporary directory. Renames and
//     links across directories are allowed there too, but Landlock still
//     refuses any that would give a file more rights than it has (a hard
//     link from /etc into the work dir stays unwritable).
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
	dirs, files := topLevel()
	readDirs, readFiles := landlock.RODirs(dirs...), landlock.ROFiles(files...).IgnoreIfMissing()
	if sp.Network {
		readDirs, readFiles = readDirs.WithResolveUnix(), readFiles.WithResolveUnix()
	} else {
		cfg.Scoped |= llsys.ScopeAbstractUnixSocket
		if !sp.NetNS {
			cfg.HandledAccessNet = landlock.V11.HandledAccessNet
		}
	}
	rules := []landlock.Rule{
		landlock.PathAccess(llsys.AccessFSReadDir, "/"),
		readDirs.IgnoreIfMissing(),
		readFiles,
		landlock.RWFiles(devices...).IgnoreIfMissing(),
	}
	writable := append([]string{}, sp.Write...)
	if sp.Temp != "" {
		writable = append(writable, sp.Temp)
	}
	if len(writable) > 0 {
		rules = append(rules, landlock.PathAccess(writeAccess, writable...))
	}
	return cfg.BestEffort(), rules
}

// topLevel lists what "/" holds, but /dev, split into directories and
// other files (Landlock refuses directory rights on a file).
func topLevel() (dirs, files []string) {
	entries, err := os.ReadDir("/")
	if err != nil {
		return nil, nil // nothing readable: every command will say so
	}
	for _, e := range entries {
		p := "/" + e.Name()
		if p == "/dev" {
			continue
		}
		fi, err := os.Stat(p)
		switch {
		case err != nil: // a dangling link leads nowhere to read
		case fi.IsDir():
			dirs = append(dirs, p)
		default:
			files = append(files, p)
		}
	}
	return dirs, files
}

// restrictThisThread puts the calling thread, and whatever it executes,
// under sp's Landlock rules and drops every capability. The caller holds
// the thread locked, never unlocks it and executes the command from it
// next (if that fails, it exits).
func restrictThisThread(sp spec) error {
	cfg, rules := landlockRules(sp)
	fd, flags, err := cfg.NewRulesetFD(rules...)
	if err != nil {
		return fmt.Errorf("build the Landlock rules: %w", err)
	}
	if fd < 0 {
		return errors.New("this kernel has no Landlock, so the rules cannot be enforced")
	}
	defer unix.Close(fd)
	return restrictThread(fd, flags)
}

// restrictThread puts the calling thread into a new Landlock domain made
// from the ruleset fd and drops every capability, with no_new_privs set
// first so that no program it executes gains any back. The caller holds
// the thread locked and never unlocks it.
func restrictThread(fd int, flags uint32) error {
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("set no_new_privs: %w", err)
	}
	if err := llsys.LandlockRestrictSelf(fd, flags); err != nil {
		return fmt.Errorf("enforce the Landlock rules: %w", err)
	}
	return dropCapabilities()
}

// dropCapabilities leaves the thread with no capability: not the ambient
// ones the namespaces' setup needed, and none a root caller had (with
// them, root could make device nodes in a writable dir or load a kernel
// module). no_new_privs is set already, so executing a program cannot
// grant any back, not even to uid 0.
func dropCapabilities() error {
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil {
		return fmt.Errorf("drop the ambient capabilities: %w", err)
	}
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var none [2]unix.CapUserData // version 3 takes two 32-bit words
	if err := unix.Capset(&hdr, &none[0]); err != nil {
		return fmt.Errorf("drop the capabilities: %w", err)
	}
	return nil
}
