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
//   - Sandbox (sandbox.go), one per session: the private temporary
//     directory (TMPDIR) and the servers, both ended by Close;
//   - the server path, for everything kimigo starts through osenv (Bash,
//     background tasks, hooks, MCP stdio servers) (client_linux.go,
//     server_linux.go, guard_linux.go, wire.go):
//     Starter(p) is an osenv.Starter (osenv.Cmd.Starter), Start its
//     method. The first command of a policy starts that policy's server,
//     this program again with a hidden argument (MaybeRunTrampoline):
//     GOMAXPROCS=1, in the policy's mount and network namespaces, where it
//     brings the loopback up, bind-mounts the read-only entries once and
//     builds the Landlock ruleset once. For each command kimigo sends
//     argv, environment and directory over a unix socket with the three
//     standard streams (SCM_RIGHTS); the server forks the command from a
//     thread of its own that has just entered a fresh Landlock domain and
//     dropped every capability, answers with the pid (the command leads
//     a new process group) and, once it reaped it, with the wait status.
//     osenv keeps the rest: the pipes, the group kill, the wait;
//   - the trampoline path (sandbox_linux.go, trampoline*.go), for callers
//     that need an *exec.Cmd (none in kimigo today) and for Probe: Apply
//     rewrites the command so that it starts
//     this program as the trampoline, which makes the namespaces and
//     mounts, restricts its thread and executes the command in its place
//     (same pid, process group and exit status); Command is exec.Command
//     plus Apply. Its own failures exit 125 (setup), 126 (cannot execute)
//     or 127 (not found) after a message naming the policy and the path;
//   - Probe and Status (status*.go): the Landlock ABI, whether namespaces
//     work (one trampoline run, on first use), how "no network" is
//     enforced, and Check, which refuses a policy this system cannot
//     enforce with an *UnavailableError (errors.Is ErrUnavailable) so that
//     callers ask instead of running unconfined.
//
// Why this shape:
//   - A server per session and policy, because the trampoline's cost is
//     per command: the Go runtime's start and the package initialisation
//     of this program, new namespaces (and, for the user-namespace
//     method, a fork that copies kimigo's page tables) each time, 7 to 10
//     ms per Bash call on this machine under load. The server pays them
//     once; a call then costs a socket round trip, a thread and a fork of
//     a small process: 0.2 to 0.6 ms (BenchmarkBashTrue). It starts on the
//     first command, never at start-up (BenchmarkFirstCommand).
//   - A fresh Landlock domain per command, not the server's own: the
//     server stays unrestricted and out of every command's domain, so no
//     command can signal or trace it, kimigo, or another command; its
//     thread is locked, so the domain leaves with it. The main thread,
//     whose credentials a signal to the server's pid is checked against,
//     never starts a command. The server is not dumpable (nobody reads
//     its memory or descriptors) and marks everything but its socket
//     close-on-exec, so a command inherits its three streams only.
//   - Lifetimes: the server dies with kimigo (its socket's end, and a
//     parent-death signal, which the kernel ties to the thread that
//     started it: a thread of the Sandbox's own, never the main one, that
//     lives until Close) and then kills every command's process group
//     and, as a subreaper, every orphan they left (daemons included), so
//     nothing outlives the session; Close does the same. A command's
//     parent-death signal is tied to its thread, which lives until it was
//     reaped, so a command dies if the server is killed; kimigo then fails
//     the commands it had with an error naming the server and kills their
//     groups, and the next command starts a new server.
//   - The mounts are made once, so the server checks before each command
//     that they still fit (guard_linux.go): a path it mounted still
//     carries its mount (removing or renaming it outside takes the mount
//     along), an entry that was missing still is (git init), each .git is
//     what it was, the writable dirs are the same directories. Otherwise
//     the command runs in a new server.
//   - Landlock rules only add rights, so they cannot make .git/hooks
//     read-only below a writable work dir while new files anywhere else
//     stay writable. Read-only bind mounts in a private mount namespace
//     can, and every directory between the writable dir and such an entry
//     is pinned (bound onto itself), so `mv .git x` cannot swap in a fresh
//     .git. A missing .git/hooks or KimigoDir is created empty first,
//     because a name that does not exist cannot be protected.
//   - "No network" is a new network namespace with only a loopback of its
//     own: it stops TCP, UDP and DNS, ICMP and abstract unix sockets, while
//     test servers on 127.0.0.1 still work for the commands. Landlock's TCP
//     rules (ABI 4) are the fallback where namespaces are refused (some
//     containers; Ubuntu's AppArmor userns restriction); they leave UDP
//     open before ABI 10, and Status says so.
//   - Namespaces come one of two ways (NamespaceMethod). Root's server is
//     started in new mount and network namespaces (a plain vfork start);
//     root's trampoline unshares them for its own thread. Both make their
//     mounts slaves first so none shows outside. Everybody else's server
//     or trampoline starts in a new user namespace that maps ids to
//     themselves, which makes the others possible without privileges;
//     ambient CAP_SYS_ADMIN and CAP_NET_ADMIN carry the setup across the
//     exec. A user namespace rules out vfork, so that start copies the
//     caller's page tables (BenchmarkBashTrueLargeHeap): once per server.
//   - Landlock then restricts each command even as root: no writes
//     outside the writable dirs, no device nodes, no terminal (reading
//     covers everything but /dev, where only the bit buckets and random
//     sources open), no mount or umount, no ptrace or /proc/PID/root of
//     processes outside its domain, no signals to them (ABI 6), no
//     pathname unix sockets outside when the network is off (ABI 9). The
//     command starts with no capability at all, and no_new_privs keeps
//     exec from granting any, so root without namespaces cannot load a
//     module either.
//
// It does not own: which policy a call gets (config, flags, print mode),
// asking the user when a policy is unavailable, or the system prompt; nor
// processes as such (package osenv). It imports nothing from kimigo but
// osenv.
//
// Known limits:
//   - A command may still create new files inside .git that git reads
//     (.git/commondir, .git/modules/*/hooks); a .git or KimigoDir that is
//     itself a symbolic link is protected at its target, but the link can
//     be replaced. A missing .git/hooks or KimigoDir is created empty.
//   - Commands of one server share its network namespace: with the
//     network off, a server one command leaves running in the background
//     is reachable on the loopback by the next command of the session
//     (never from outside, nor from another policy's server). Commands
//     started through Apply each get a namespace of their own instead.
//   - Every command has its own Landlock domain: it cannot signal another
//     command's processes, nor connect to its abstract unix sockets when
//     the network is off (kimigo, outside, can signal them all).
//   - A change to the work dirs that the guard sees starts a new server;
//     the old one keeps what it runs, and what that left in the
//     background, until Close. If a server is killed from outside, the
//     daemons its commands left outside their process groups survive it.
//   - A command the server forked but could not report before it was
//     killed from outside dies by its parent-death signal; its own
//     children may survive.
//   - No terminal: commands cannot allocate pseudo-terminals either.
//   - Reading is not restricted outside /dev: secrets in files are the
//     permission rules' business (sensitive files), not the sandbox's.
//   - Cost: the first command of each policy starts its server (the Go
//     runtime's start and package initialisation of this program, the
//     namespaces, the mounts and the ruleset: BenchmarkFirstCommand), and
//     the first command of the process pays for Probe's one trampoline
//     run (BenchmarkProbe). Each trampoline command pays for all of it.
//
// Invariants, and the tests that guard them (all on the real kernel, with
// real processes; they skip, saying why, only where this system cannot
// sandbox). The file-system, network, capability, process and failure
// tests run through both the server (osenv with the Starter) and the
// trampoline, and where root can, with both namespace methods:
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
//     TestWorkspaceWriteGitFileAndExtraDirs); a repository made by a
//     command or replaced from outside is protected from the next command
//     on (server_test.go TestServerFollowsChangesToTheWorkDir); a .git
//     link a command planted makes the sandbox create nothing outside
//     (TestPlantedGitLinkMakesNothingOutside).
//   - The mounts never show outside the sandbox, shared propagation
//     included, not even while a server lives
//     (TestWorkspaceWriteFileSystem,
//     TestMountsStayInsideUnderSharedPropagation; the probe checks it on
//     every system).
//   - Network off: TCP, UDP and HTTP to the loopback and to this host's
//     address, and DNS, fail inside and work outside and with Network on;
//     the commands' own loopback works (net_test.go TestNetwork) and is
//     shared by the commands of one server
//     (TestCommandsShareTheNetworkOfTheirServer); the Landlock fallback
//     denies TCP and Status tells the truth about UDP
//     (TestNetworkLandlockFallback).
//   - The command has no capability, makes no device node and opens no
//     terminal, with or without namespaces
//     (TestNoCapabilitiesNoDevicesNoTerminal).
//   - ModeOff leaves the command untouched, and has no Starter
//     (TestOffIsNoSandbox).
//   - A policy this system cannot enforce is refused with ErrUnavailable,
//     never run weaker (status_test.go TestCheck,
//     TestNetworkLandlockFallback); bad policies are errors naming the
//     field or path (trampoline_test.go TestApplyRefusesBadPolicies).
//   - The command keeps its pid, process group, exit status, environment
//     and directory, and a kill of the group ends it and its children
//     (TestTheCommandKeepsItsProcessAndEnvironment,
//     TestKillReachesTheSandboxedGroup, TestServerTimeoutsAndGroupKills);
//     it cannot signal kimigo (TestSignalsStayInside), nor the server or
//     another command, nor read the server's memory or descriptors, and
//     it inherits only its three streams
//     (TestCommandsCannotReachTheServerOrEachOther).
//   - A server starts on the first command of its policy, serves the
//     following ones, streams their output and input, runs 20 at once and
//     is ended by Close (TestServerStartsOnFirstUseAndServesItsPolicy,
//     TestServerStreamsOutputAndInput, TestServerRunsConcurrentCommands).
//   - Nothing is left behind: a server killed mid-command fails its
//     commands with an error naming it, their groups die, and the next
//     command gets a new server (TestServerKilledMidCommand); when kimigo
//     is killed, its server, commands, grandchildren, daemons and
//     background tasks die (TestKimigoKilledLeavesNothingBehind); Close
//     ends what commands left in the background
//     (TestCommandsShareTheNetworkOfTheirServer); the parent-death signal
//     alone stops a server too (client_linux_test.go
//     TestServerStopsWhenTheThreadThatStartedItEnds).
//   - Failures name the policy and the path (TestTrampolineFailuresNameThePolicyAndPath,
//     TestServerFailuresNameThePolicyAndPath); the trampoline's argument
//     decodes or fails cleanly on any input (spec_test.go FuzzDecodeArgs),
//     and so does every frame of the server's wire (wire_test.go
//     FuzzDecodeMessage).
//   - Everything holds for an unprivileged user too, both paths
//     (TestNonRootUser).
package sandbox
