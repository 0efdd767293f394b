//go:build unix && !darwin

package main

import "syscall"

// maxrssKiB is the peak RSS of a finished child; Linux and the BSDs
// report KiB.
func maxrssKiB(ru *syscall.Rusage) int64 { return ru.Maxrss }
