// Package hugeheap lets the kernel back the heap the Go runtime maps at
// start with transparent huge pages, where the system leaves them to
// madvise (the default of many distributions). A short run such as
// `kimigo -p` touches a few megabytes of fresh heap, one 4 KiB page fault
// at a time; on a virtual machine each fault costs tens of microseconds,
// several milliseconds per start in all. A huge page takes one fault per
// 2 MiB instead.
//
// Only the first heap mapping is advised, so what it can add to the
// resident set is bounded (at most its huge pages' unused part, a few
// MiB); the heap the runtime maps later keeps the system's default. The
// Go runtime stopped asking for huge pages itself in Go 1.21.1 because
// flipping the advice on and off as the heap grew and shrank cost memory;
// one advice at start, never undone, does not flip.
//
// Importing the package is all it takes: its init runs before nearly
// every other package's, which is when the heap is still mostly
// untouched. It does nothing on other systems or when KIMIGO_NO_HUGEPAGES
// is set.
package hugeheap
