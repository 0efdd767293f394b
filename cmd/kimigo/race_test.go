//go:build race

package main

// raceBuild builds the binary under test with the race detector when the
// tests themselves run with it, so the child process is checked too.
const raceBuild = true
