package sandbox

// WithoutNamespaces returns o for a Sandbox that behaves as on a system
// refusing namespaces: Landlock alone.
func WithoutNamespaces(o Options) Options {
	o.noNamespaces = true
	return o
}

// WithUserNamespace returns o for a Sandbox that uses NamespaceUser even
// where root could unshare.
func WithUserNamespace(o Options) Options {
	o.userNamespace = true
	return o
}

// Unwire makes this process look as if main never called
// MaybeRunTrampoline, until restore is called.
func Unwire() (restore func()) {
	wired.Store(false)
	return func() { wired.Store(true) }
}

// TrampolineArg is the hidden argument that starts the trampoline.
const TrampolineArg = trampolineArg

// ServerArg is the hidden argument that starts a server.
const ServerArg = serverArg

// ProbeAgain runs Probe's check once more, without keeping the answer.
func ProbeAgain() Status {
	st, _ := probe()
	return st
}

// ServerPIDs lists the pids of s's servers that run, replaced ones too.
func ServerPIDs(s *Sandbox) []int { return serverPIDs(s) }
