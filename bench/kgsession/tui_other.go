//go:build unix && !linux

package main

import "errors"

type tuiOptions struct {
	runs, messages, keys int
	idle                 any
}

func tuiBench(string, string, tuiOptions) error {
	return errors.New("the interface benchmark needs Linux (pseudo-terminals and /proc)")
}
