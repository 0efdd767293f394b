//go:build !linux

package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
)

// Apply leaves cmd untouched for ModeOff and otherwise fails with an
// *UnavailableError: only Linux has Landlock.
func (s *Sandbox) Apply(cmd *exec.Cmd, p Policy) error {
	if err := p.validate(); err != nil {
		return err
	}
	if p.Mode == ModeOff {
		return nil
	}
	return s.Status().Check(p)
}

func probe() (Status, bool) {
	return Status{LandlockError: "Landlock is Linux-only; this is " + runtime.GOOS}, true
}

func runTrampoline(args []string) int {
	fmt.Fprintf(os.Stderr, "kimigo sandbox: no sandbox on %s\n", runtime.GOOS)
	return 125
}

func runServer(args []string) int {
	fmt.Fprintf(os.Stderr, "kimigo sandbox server: no sandbox on %s\n", runtime.GOOS)
	return 125
}
