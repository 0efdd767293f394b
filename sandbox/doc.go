// Package sandbox runs kimigo's commands (Bash, and later hooks and MCP
// stdio servers) inside an OS sandbox (issue 16, ERRATA 34): Landlock for
// the file system, namespaces for the network and for read-only entries
// inside writable directories.
//
// It owns:
//   - the policies (policy.go): ModeReadOnly (read everything but /dev,
//     write only the private temporary directory), ModeWorkspaceWrite (also the work
//     dir and the extra writable dirs, except .git/hooks, .git/config, a
//     .git file, KimigoDir and Policy.ReadOnly inside them) and ModeOff;
//     the network is off unless Policy.Network;
//   - Sandbox (sandbox.go): Apply rewrites an *exec.Cmd so that it starts
//     this program as the trampoline; Command is exec.Command plus Apply;
//     the private temporary directory (TMPDIR), removed by Close;
//   - the trampoline (trampoline*.go): MaybeRunTrampoline, the first call
//     of main. Started with a hidden argument, it gets the mount and
//     network namespaces the policy needs, brings the loopback up,
//     bind-mounts the read-only entries read-only, restricts its thread
//     with Landlock, drops every capability and executes the command from
//     that thread, so kimigo itself is never restricted and the command
//     keeps the pid, process group and exit status its caller sees. Its
//     own failures exit 125 (setup), 126 (cannot execute) or 127 (not
//     found) after a message naming the policy and the path;
//   - Probe and Status (status*.go): the Landlock ABI, whether namespaces
//     work (one trampoline run, on first use), how "no network" is
//     enforced, and Check, which refuses a policy this system cannot
//     enforce with an *UnavailableError (errors.Is ErrUnavailable) so that
//     callers ask instead of running unconfined.
//
// Why this shape:
//   - Landlock rules only add rights, so they cannot make .git/hooks
//     read-only below a writable work dir while new files anywhere else
//     stay writable. Read-only bind mounts in a private mount namespace
//     can, and every directory between the writable dir and such an entry
//     is pinned (bound onto itself), so `mv .git x` cannot swap in a fresh
//     .git. A missing .git/hooks or KimigoDir is created empty first,
//     because a name that does not exist cannot be protected.
//   - "No network" is a new network namespace with only a loopback of its
//     own: it stops TCP, UDP and DNS, ICMP and abstract unix sockets, while
//     test servers on 127.0.0.1 still work for the command. Landlock's TCP
//     rules (ABI 4) are the fallback where namespaces are refused (some
//     containers; Ubuntu's AppArmor userns restriction); they leave UDP
//     open before ABI 10, and Status says so.
//   - Namespaces come one of two ways (NamespaceMethod). Root's
//     trampoline unshares them for its own thread after a plain (vfork)
//     start, and makes its mounts slaves first so none shows outside.
//     Everybody else's starts in a new user namespace that maps ids to
//     themselves, which makes the others possible without privileges;
//     ambient CAP_SYS_ADMIN and CAP_NET_ADMIN carry the setup across the
//     trampoline's exec. A user namespace rules out vfork, so that start
//     copies the caller's page tables (BenchmarkBashTrueLargeHeap).
//   - Landlock then restricts the command even as root: no writes
//     outside the writable dirs, no device nodes, no terminal (reading
//     covers everything but /dev, where only the bit buckets and random
//     sources open), no mount or umount, no ptrace or /proc/PID/root of
//     processes outside the sandbox, no signals to them (ABI 6), no
//     pathname unix sockets outside when the network is off (ABI 9). The
//     command starts with no capability at all, and no_new_privs keeps
//     exec from granting any, so root without namespaces cannot load a
//     module either.
//
// It does not own: which policy a call gets (config, flags, print mode),
// asking the user when a policy is unavailable, or the system prompt; nor
// processes as such (package osenv). It imports nothing from kimigo.
//
// Known limits:
//   - A command may still create new files inside .git that git reads
//     (.git/commondir, .git/modules/*/hooks); a .git or KimigoDir that is
//     itself a symbolic link is protected at its target, but the link can
//     be replaced. A missing .git/hooks or KimigoDir is created empty.
//   - Every command gets its own network namespace and Landlock domain:
//     with the network off, a server one command leaves running in the
//     background cannot be reached by the next command, and no command
//     can signal another command's processes (kimigo, outside, can).
//   - No terminal: commands cannot allocate pseudo-terminals either.
//   - Reading is not restricted outside /dev: secrets in files are the
//     permission rules' business (sensitive files), not the sandbox's.
//   - Cost: every sandboxed command re-executes this program (the Go
//     runtime's start and package initialisation) and makes its
//     namespaces; the user-namespace method also copies the caller's page
//     tables. The first command also pays for Probe's one trampoline run
//     per method. See BenchmarkBashTrue and BenchmarkBashTrueLargeHeap.
//
// Invariants, and the tests that guard them (all on the real kernel, with
// real processes; they skip, saying why, only where this system cannot
// sandbox):
//   - Writes land only in the writable dirs and the private temporary
//     directory, whatever the route: symbolic and hard links, /proc/self/root,
//     /proc/PID/root, children and background grandchildren
//     (fs_test.go TestWorkspaceWriteFileSystem, TestReadOnly).
//   - .git/hooks, .git/config, a .git file, KimigoDir and the policy's
//     read-only entries stay unchanged: no write, rename, removal, unmount
//     or swap of .git, including from a working directory below them; the
//     rest of the work dir, new subdirectories included, stays writable and
//     git still commits (TestWorkspaceWriteFileSystem,
//     TestWorkspaceWriteWorkingDirectoryInsideReadOnlyEntry,
//     TestWorkspaceWriteGitFileAndExtraDirs).
//   - The mounts never show outside the sandbox, shared propagation
//     included (TestWorkspaceWriteFileSystem,
//     TestMountsStayInsideUnderSharedPropagation; the probe checks it on
//     every system). The file-system, network and capability tests run
//     with both namespace methods.
//   - Network off: TCP, UDP and HTTP to the loopback and to this host's
//     address, and DNS, fail inside and work outside and with Network on;
//     the command's own loopback works (net_test.go TestNetwork); the
//     Landlock fallback denies TCP and Status tells the truth about UDP
//     (TestNetworkLandlockFallback).
//   - The command has no capability, makes no device node and opens no
//     terminal, with or without namespaces
//     (TestNoCapabilitiesNoDevicesNoTerminal).
//   - ModeOff leaves the command untouched (TestOffIsNoSandbox).
//   - A policy this system cannot enforce is refused with ErrUnavailable,
//     never run weaker (status_test.go TestCheck,
//     TestNetworkLandlockFallback); bad policies are errors naming the
//     field or path (trampoline_test.go TestApplyRefusesBadPolicies).
//   - The command keeps its pid, process group, exit status, environment
//     and directory, and a kill of the group ends it and its children
//     (TestTheCommandKeepsItsProcessAndEnvironment,
//     TestKillReachesTheSandboxedGroup); it cannot signal kimigo
//     (TestSignalsStayInside).
//   - Trampoline failures name the policy and the path
//     (TestTrampolineFailuresNameThePolicyAndPath); its argument decodes
//     or fails cleanly on any input (spec_test.go FuzzDecodeArgs).
//   - Everything holds for an unprivileged user too (TestNonRootUser).
package sandbox
