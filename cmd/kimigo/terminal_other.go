//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package main

import "os"

// terminal is false where kimigo cannot ask the terminal: output stays
// plain and unwrapped.
func terminal(*os.File) (width int, ok bool) { return 0, false }
