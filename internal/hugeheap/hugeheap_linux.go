package hugeheap

import (
	"syscall"
	"unsafe"
)

// first is a heap object made at init: the mapping it sits in is the one
// advised (tests look it up).
var first *[16]byte

// advised is the range given to madvise, and err its result.
var (
	advisedStart, advisedEnd uintptr
	err                      error
)

const (
	madvHugepage = 14      // MADV_HUGEPAGE
	span         = 8 << 20 // around the first object: the runtime's first heap mappings
)

func init() {
	if _, off := syscall.Getenv("KIMIGO_NO_HUGEPAGES"); off {
		return
	}
	first = new([16]byte)
	p := uintptr(unsafe.Pointer(first))
	// The runtime's first heap mapping (4 MiB at a randomised, 4 MiB
	// aligned address) holds p. Advising more than is mapped is harmless:
	// madvise applies the advice to every mapping in the range and
	// reports the holes as ENOMEM, which is not a failure here.
	advisedStart = p&^(4<<20-1) - 4<<20
	advisedEnd = advisedStart + span + 4<<20
	_, _, e := syscall.Syscall(syscall.SYS_MADVISE, advisedStart, advisedEnd-advisedStart, madvHugepage)
	if e != 0 && e != syscall.ENOMEM {
		err = e
	}
}
