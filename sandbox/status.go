package sandbox

import (
	"fmt"
	"strings"
	"sync"
)

// MinLandlockABI is the oldest Landlock ABI the sandbox accepts for its
// file-system rules: ABI 3 (Linux 6.2) is the first that restricts
// truncate(2), without which a "read-only" file could still be emptied.
const MinLandlockABI = 3

// landlockTCPABI is the first Landlock ABI with TCP bind/connect rules
// (Linux 6.7), the network fallback when namespaces are refused.
const landlockTCPABI = 4

// NetIsolation is how a sandbox keeps a command off the network.
type NetIsolation string

// The ways of isolating the network, strongest first.
const (
	// NetNamespace runs the command in a new network namespace that has
	// only its own loopback: no TCP, UDP (DNS included), ICMP or abstract
	// unix socket reaches anything outside, while servers the command
	// starts on 127.0.0.1 work for the command itself.
	NetNamespace NetIsolation = "namespace"
	// NetLandlock uses Landlock's port rules: TCP connect and bind are
	// denied (and UDP from Landlock ABI 10); before ABI 10, UDP and DNS
	// still work. The fallback where namespaces are refused.
	NetLandlock NetIsolation = "landlock"
	// NetNone means the network cannot be isolated here.
	NetNone NetIsolation = "none"
)

// Status is what this system lets the sandbox enforce, for `kimigo
// doctor`, the system prompt and the callers' fallback decision.
type Status struct {
	// LandlockABI is the Landlock ABI the kernel offers (0: none), after
	// the same errata downgrade go-landlock applies.
	LandlockABI int
	// LandlockError says why Landlock is absent, when it is.
	LandlockError string
	// Namespaces is true when the trampoline could create a mount and a
	// network namespace, bring the loopback up and mount read-only.
	Namespaces bool
	// NamespaceMethod is how it makes them, when it can.
	NamespaceMethod NamespaceMethod
	// NamespaceError says why it cannot, when it cannot (with both
	// methods, for root).
	NamespaceError string
}

// NamespaceMethod is how a server or a trampoline gets its namespaces.
type NamespaceMethod string

// The namespace methods.
const (
	// NamespaceUnshare is root's: a server is started in a new mount and
	// network namespace, and a trampoline starts like any child and
	// unshares them for its own thread.
	NamespaceUnshare NamespaceMethod = "unshare"
	// NamespaceUser is everybody's: a server or trampoline starts in a new
	// user namespace, which lets it make the others. A user namespace
	// rules out vfork, so that start copies the caller's page tables: the
	// cost grows with the caller's resident memory (once per server; each
	// time for a trampoline).
	NamespaceUser NamespaceMethod = "user"
)

// FS reports whether file-system rules are enforced.
func (s Status) FS() bool { return s.LandlockABI >= MinLandlockABI }

// Net is how "no network" is enforced.
func (s Status) Net() NetIsolation {
	switch {
	case s.Namespaces:
		return NetNamespace
	case s.LandlockABI >= landlockTCPABI:
		return NetLandlock
	}
	return NetNone
}

// UDPDenied reports whether "no network" also stops UDP (DNS included).
func (s Status) UDPDenied() bool { return s.Namespaces || s.LandlockABI >= 10 }

// ReadOnlyEntries reports whether workspace-write can keep entries inside
// a writable dir read-only (it bind-mounts them read-only in a mount
// namespace; Landlock rules only add rights, so they cannot).
func (s Status) ReadOnlyEntries() bool { return s.Namespaces }

// Scopes reports whether a sandboxed command is kept from signalling
// processes outside its sandbox and from abstract unix sockets outside it
// (Landlock ABI 6).
func (s Status) Scopes() bool { return s.LandlockABI >= 6 }

// PathUnixSockets reports whether connecting to pathname unix sockets
// outside the sandbox (docker.sock, an ssh agent) is denied when the
// network is off (Landlock ABI 9).
func (s Status) PathUnixSockets() bool { return s.LandlockABI >= 9 }

// Check returns nil when policy p can be enforced as promised here, and
// an *UnavailableError naming what is missing otherwise.
func (s Status) Check(p Policy) error {
	if p.Mode == ModeOff {
		return nil
	}
	unavailable := func(format string, args ...any) error {
		return &UnavailableError{Mode: p.Mode, Reason: fmt.Sprintf(format, args...)}
	}
	switch {
	case s.LandlockABI == 0:
		return unavailable("this kernel has no Landlock (%s)", s.LandlockError)
	case !s.FS():
		return unavailable("this kernel offers Landlock ABI %d; the sandbox needs %d (Linux 6.2) to restrict truncation", s.LandlockABI, MinLandlockABI)
	case p.Mode == ModeWorkspaceWrite && !s.Namespaces:
		return unavailable("keeping .git/hooks, .git/config and %s read-only inside writable dirs needs a user and mount namespace, and this system refuses one (%s)", KimigoDir, s.NamespaceError)
	case !p.Network && s.Net() == NetNone:
		return unavailable("turning the network off needs a network namespace (refused: %s) or Landlock ABI %d (this kernel offers %d)", s.NamespaceError, landlockTCPABI, s.LandlockABI)
	}
	return nil
}

// String is a one-line summary, e.g. "landlock ABI 7 (file system, tcp,
// scopes); namespaces: yes (user); network off by: namespace".
func (s Status) String() string {
	if s.LandlockABI == 0 {
		return "landlock: none (" + s.LandlockError + "); commands cannot be sandboxed"
	}
	var feats []string
	if s.FS() {
		feats = append(feats, "file system")
	} else {
		feats = append(feats, fmt.Sprintf("too old for the file system: needs %d", MinLandlockABI))
	}
	if s.LandlockABI >= landlockTCPABI {
		feats = append(feats, "tcp")
	}
	if s.Scopes() {
		feats = append(feats, "scopes")
	}
	if s.PathUnixSockets() {
		feats = append(feats, "unix sockets")
	}
	ns := "yes (" + string(s.NamespaceMethod) + ")"
	if !s.Namespaces {
		ns = "no (" + s.NamespaceError + ")"
	}
	net := string(s.Net())
	if s.Net() == NetLandlock && !s.UDPDenied() {
		net += " (TCP only: UDP and DNS still work)"
	}
	return fmt.Sprintf("landlock ABI %d (%s); namespaces: %s; network off by: %s",
		s.LandlockABI, strings.Join(feats, ", "), ns, net)
}

// probe state: filled on first use, never at start-up.
var (
	probeMu     sync.Mutex
	probeDone   bool   // guarded by probeMu
	probeStatus Status // guarded by probeMu
)

// Probe reports what this system lets the sandbox enforce. The first call
// runs the trampoline once in new namespaces to find out (a few
// milliseconds); later calls return the same answer. It must be called
// after MaybeRunTrampoline; before, namespaces count as unavailable and
// the answer is not kept. Safe for concurrent use.
func Probe() Status {
	probeMu.Lock()
	defer probeMu.Unlock()
	if probeDone {
		return probeStatus
	}
	st, keep := probe()
	if keep {
		probeStatus, probeDone = st, true
	}
	return st
}
