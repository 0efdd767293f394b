package main

import "syscall"

// maxrssKiB is the peak RSS of a finished child; macOS reports bytes.
func maxrssKiB(ru *syscall.Rusage) int64 { return ru.Maxrss / 1024 }
