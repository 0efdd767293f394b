package session

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/kimigo/kimigo/osenv"
	"github.com/kimigo/kimigo/profile"
	"github.com/kimigo/kimigo/sandbox"
	"github.com/kimigo/kimigo/workspace"
)

// SandboxOptions say how the commands of a session's agents are confined
// (issue 16, ERRATA 34). The zero value runs them unconfined.
type SandboxOptions struct {
	// Mode is the policy: sandbox.ModeReadOnly, ModeWorkspaceWrite or
	// ModeOff ("" means off).
	Mode sandbox.Mode
	// Network lets sandboxed commands reach the network.
	Network bool
}

func (o SandboxOptions) on() bool { return o.Mode != "" && o.Mode != sandbox.ModeOff }

// promptInfo is what the system prompt says about the sandbox.
func (o SandboxOptions) promptInfo() profile.SandboxInfo {
	if !o.on() {
		return profile.SandboxInfo{}
	}
	return profile.SandboxInfo{Mode: string(o.Mode), Network: o.Network}
}

// commandSandbox is a session's sandbox as the tools and the permission
// chain see it. Nothing happens until the first command: the Starter of
// the current workspace dirs is made then (which probes the system once)
// and made again when the dirs change. When the promised policy cannot be
// enforced, the first caller hears it once (warn) and every command is
// refused: the permission chain asks (denies headless) and the Bash tool
// never runs it unconfined. Safe for concurrent use.
type commandSandbox struct {
	opts SandboxOptions
	sb   *sandbox.Sandbox
	dirs func() workspace.Dirs
	warn func(string)

	mu      sync.Mutex
	key     string        // guarded by mu: the dirs the starter was made for
	starter osenv.Starter // guarded by mu
	err     error         // guarded by mu: why starter is missing
	warned  bool          // guarded by mu
}

func newCommandSandbox(o SandboxOptions, dirs func() workspace.Dirs, warn func(string)) *commandSandbox {
	if !o.on() {
		return nil
	}
	return &commandSandbox{opts: o, sb: sandbox.New(sandbox.Options{}), dirs: dirs, warn: warn}
}

// Start returns the Starter commands start with now; it is the Bash
// tool's CommandStarter. A nil receiver runs commands unconfined.
func (c *commandSandbox) Start() (osenv.Starter, error) {
	if c == nil {
		return nil, nil
	}
	ws := c.dirs()
	writable := slices.Clone(ws.AdditionalDirs)
	key := ws.Dir + "\x00" + strings.Join(writable, "\x00")
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.key == key && (c.starter != nil || c.err != nil) {
		return c.starter, c.err
	}
	p := sandbox.Policy{Mode: c.opts.Mode, WorkDir: ws.Dir, WritableDirs: writable, Network: c.opts.Network}
	c.key = key
	c.starter, c.err = c.sb.Starter(p)
	if c.err != nil && !c.warned {
		c.warned = true
		if errors.Is(c.err, sandbox.ErrUnavailable) {
			c.warn(fmt.Sprintf("%v. Commands will not run unconfined: each one needs approval "+
				"(denied in print mode; --sandbox off runs them without a sandbox).", c.err))
		} else {
			c.warn(fmt.Sprintf("the command sandbox cannot start: %v. Commands are refused.", c.err))
		}
	}
	return c.starter, c.err
}

// Unconfined is the permission chain's question: nil when commands run
// in the promised sandbox (or none was promised), else why they cannot.
func (c *commandSandbox) Unconfined() error {
	if c == nil {
		return nil
	}
	_, err := c.Start()
	return err
}

// Close ends the sandbox's servers and removes its temporary directory.
func (c *commandSandbox) Close() error {
	if c == nil {
		return nil
	}
	return c.sb.Close()
}
