//go:build !linux

package sandbox

import (
	"fmt"

	"github.com/kimigo/kimigo/osenv"
)

// server exists on Linux only.
type server struct{}

// Start fails with an *UnavailableError: only Linux has Landlock.
func (s *Sandbox) Start(p Policy, ss osenv.StartSpec) (osenv.Leader, error) {
	if err := p.validate(); err != nil {
		return nil, err
	}
	if p.Mode == ModeOff {
		return nil, fmt.Errorf("sandbox %s: nothing to start through the sandbox; start the process directly", p.Mode)
	}
	return nil, s.Status().Check(p)
}

// Starter returns nil for ModeOff and otherwise fails with an
// *UnavailableError: only Linux has Landlock.
func (s *Sandbox) Starter(p Policy) (osenv.Starter, error) {
	if err := p.validate(); err != nil {
		return nil, err
	}
	return nil, s.Status().Check(p)
}

func (s *Sandbox) stopServers() error { return nil }

// lockedThread exists on Linux only.
type lockedThread struct{}
