package llmtest

import "sync"

// Gate holds a reply at a fixed point (Fault.Hold) so a test can act while
// the client waits there: kill it, read what it wrote, then let the reply
// go on. One Gate may hold several replies. It is safe for concurrent use.
type Gate struct {
	reachOnce, openOnce sync.Once
	reached, open       chan struct{}
}

// NewGate returns a closed gate.
func NewGate() *Gate { return &Gate{reached: make(chan struct{}), open: make(chan struct{})} }

// Reached is closed when the first reply arrives at the gate.
func (g *Gate) Reached() <-chan struct{} { return g.reached }

// IsReached reports whether a reply has arrived at the gate.
func (g *Gate) IsReached() bool {
	select {
	case <-g.reached:
		return true
	default:
		return false
	}
}

// Release lets every held reply, and any that arrives later, go on.
func (g *Gate) Release() { g.openOnce.Do(func() { close(g.open) }) }

// arrive marks the gate reached and waits until it is released or done is
// closed (the client went away). It reports whether the reply may go on.
func (g *Gate) arrive(done <-chan struct{}) bool {
	g.reachOnce.Do(func() { close(g.reached) })
	select {
	case <-g.open:
		return true
	case <-done:
		return false
	}
}
