// Package osenv is kimigo's seam to the operating system: the only place
// that touches files, processes, the working directory and the environment.
// Everything above it takes an osenv value when it is constructed, so tests
// can hand in an in-memory or denying implementation (osenv/osenvtest) and
// resume can prove it causes no side effects.
//
// It owns the FS interface (fs.go) and its local implementation
// (fs_local.go). Invariants: relative names resolve against the value's own
// directory, never the process-global one; errors name the path; Lock is
// exclusive across processes and within this one (fs_local_test.go).
package osenv
