// Package osenvtest holds the test doubles of package osenv: MemFS, an
// in-memory osenv.FS (locks included); Env, an in-memory osenv.Env with a
// recording process Runner whose fake processes do what the test says; and
// Deny/DenyOver, which make every side effect (write, create, mkdir,
// rename, remove, sync, lock, exec) fail with ErrDenied while reads still
// work, and record each attempt (resume tests assert there were none);
// FaultFS (fault.go), which wraps any osenv.FS and fails chosen
// operations on chosen paths with chosen errnos (disk full with partial
// writes, EIO on fsync, EDQUOT, a read-only file system) until cleared.
//
// Everything is safe for concurrent use and touches no real file or
// process, except a FaultFS the test puts over the real file system.
// Guarded by osenvtest_test.go and fault_test.go.
package osenvtest
