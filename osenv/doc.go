// Package osenv is kimigo's seam to the operating system: the only place
// that touches files, processes, the working directory and the environment
// (spec 05 §10). Everything above it takes an osenv value when it is
// constructed, so tests can hand in an in-memory or denying implementation
// (osenv/osenvtest) and resume can prove it causes no side effects.
//
// It owns:
//   - FS, the file-system half (fs.go), and LocalFS with advisory locks
//     (fs_local.go);
//   - Env, the whole seam (env.go): FS plus an immutable working directory
//     (Cwd, WithCwd), an environment overlay (WithEnv, Getenv, Environ),
//     Home, TempDir, PathClass/Normpath, the Shell, and Exec, which starts
//     a process as the leader of its own process group and returns a
//     Process whose Kill signals the whole group;
//   - Starter (starter.go), the seam through which a caller has another
//     party start the process (Cmd.Starter; package sandbox starts it in
//     a sandbox) while Exec keeps the pipes, the group kill and the wait;
//   - Local, the Env of this machine (local.go, process_local.go), which
//     snapshots the process environment once and never reads or changes
//     process-global state afterwards;
//   - streaming text helpers that work on any FS (textfile.go):
//     ScanTextFile (line count, endings, NUL, strict UTF-8 in 64 KiB
//     chunks), ReadLineRange (skips by counting newlines), ReadTailLines
//     (reads backwards from EOF), ReadLines and ReadHead; and
//     WriteFileAtomic (temp file + rename, atomic.go);
//   - ErrnoName (errno.go), the symbolic name of the errno an error wraps
//     ("ENOSPC"), so messages about failed writes can name it.
//
// It does not own: path policy, sensitive files or anything about tools
// (package tools). It imports nothing from kimigo but internal/bug.
//
// Invariants, and the tests that guard them:
//   - Relative names resolve against the value's own directory, never the
//     process-global one; errors name the path (fs_local_test.go,
//     local_test.go TestLocalCwdAndEnvironment).
//   - Lock is exclusive across processes and within this one
//     (fs_local_test.go); LockOwned (lock.go), used by the record log and
//     the session, also names the holder's process id to whoever is
//     refused (TestLockOwnedNamesTheHolder).
//   - Killing a Process reaches every process of its group, and its pipes
//     reach EOF once the group is gone (local_test.go
//     TestLocalKillReachesTheGroup), with a Starter too (starter_test.go
//     TestLocalExecWithStarter; package sandbox's server_test.go runs it
//     with sandboxed processes).
//   - With a Starter, Exec looks a bare name up and feeds Stdin itself; a
//     Starter's error is Exec's, and a Leader whose end cannot be known
//     makes Wait fail naming the program
//     (TestLocalExecWithStarterFailures).
//   - The streaming readers agree with a naive split on random files and
//     keep memory bounded by the chunk and line limits (textfile_test.go).
//   - WriteFileAtomic never leaves a partial or temporary file behind
//     (local_test.go TestWriteFileAtomic).
//   - ErrnoName finds the errno through any wrapping (errno_test.go).
package osenv
