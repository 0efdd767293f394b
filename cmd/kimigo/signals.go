package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"

	"github.com/kimigo/kimigo/loop"
)

// interrupts turns SIGINT, SIGTERM and SIGHUP during a print run into the
// cancellation of the run's context (spec 06 §1.6.7). The first signal
// cancels the context, whose cause names it, and fixes the exit code the
// process ends with once cleanup is done; a second signal while cleanup
// runs exits at once with that code.
type interrupts struct {
	ch   chan os.Signal
	code atomic.Int32 // 0 until a signal arrived
	done chan struct{}
}

// signalError is the cancellation cause of a run stopped by a signal.
// SIGINT is the user's Ctrl-C, so it is a user cancel
// (loop.ErrUserCancelled, which the Interrupt hook fires on).
type signalError struct{ sig os.Signal }

func (e signalError) Error() string { return fmt.Sprintf("interrupted by %v", e.sig) }

func (e signalError) Unwrap() error {
	if e.sig == syscall.SIGINT {
		return loop.ErrUserCancelled
	}
	return nil
}

// watchSignals starts watching; stop ends it. ctx is cancelled by the
// first signal.
func watchSignals(parent context.Context) (ctx context.Context, in *interrupts, stop func()) {
	ctx, cancel := context.WithCancelCause(parent)
	in = &interrupts{ch: make(chan os.Signal, 2), done: make(chan struct{})}
	signal.Notify(in.ch, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	exited := make(chan struct{})
	go func() {
		defer close(exited)
		for {
			select {
			case sig := <-in.ch:
				if !in.code.CompareAndSwap(0, int32(exitCodeOf(sig))) {
					os.Exit(int(in.code.Load())) // second signal: stop waiting for cleanup
				}
				cancel(signalError{sig})
			case <-in.done:
				return
			}
		}
	}()
	return ctx, in, func() {
		signal.Stop(in.ch)
		close(in.done)
		<-exited
		cancel(nil)
	}
}

// exitCode is the code of the signal that stopped the run, 0 when none
// did.
func (in *interrupts) exitCode() int { return int(in.code.Load()) }

func exitCodeOf(sig os.Signal) int {
	switch sig {
	case syscall.SIGHUP:
		return exitSIGHUP
	case syscall.SIGTERM:
		return exitSIGTERM
	}
	return exitSIGINT
}
