package sandbox

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
)

// probe finds the Landlock ABI and runs the trampoline once in new mount
// and network namespaces: it brings the loopback up and mounts a scratch
// directory read-only, which is everything a sandboxed command needs of
// namespaces. keep is false when the answer may change (the
// trampoline was not wired yet).
func probe() (st Status, keep bool) {
	abi, err := detectABI()
	st.LandlockABI = abi
	if err != nil {
		st.LandlockError = err.Error()
	}
	if !wired.Load() {
		st.NamespaceError = "the program does not call sandbox.MaybeRunTrampoline"
		return st, false
	}
	// Root can unshare for the trampoline's thread, which spares the
	// user namespace and its costly start; where that is refused (a
	// container without CAP_SYS_ADMIN) a user namespace may still work.
	var errs []string
	methods := []NamespaceMethod{NamespaceUser}
	if os.Geteuid() == 0 {
		methods = []NamespaceMethod{NamespaceUnshare, NamespaceUser}
	}
	for _, m := range methods {
		if err := probeNamespaces(m); err != nil {
			errs = append(errs, string(m)+": "+err.Error())
			continue
		}
		st.Namespaces, st.NamespaceMethod = true, m
		return st, true
	}
	st.NamespaceError = strings.Join(errs, "; ")
	return st, true
}

func probeNamespaces(m NamespaceMethod) error {
	dir, err := os.MkdirTemp("", "kimigo-sandbox-probe-")
	if err != nil {
		return fmt.Errorf("make a scratch directory: %w", err)
	}
	defer os.RemoveAll(dir) // best effort: an empty scratch directory
	if r, err := filepath.EvalSymlinks(dir); err == nil {
		dir = r
	}
	sp := spec{Mode: ModeWorkspaceWrite, Write: []string{dir}, NetNS: true, MountNS: true, Probe: true,
		Unshare: m == NamespaceUnshare}
	args, err := encodeArgs(sp, nil)
	if err != nil {
		return err
	}
	attr := &syscall.SysProcAttr{}
	if err := addNamespaces(attr, sp); err != nil {
		return err
	}
	var stderr bytes.Buffer
	cmd := &exec.Cmd{Path: selfExe, Args: args, Dir: dir, Stderr: &stderr, SysProcAttr: attr}
	if err := cmd.Run(); err != nil {
		if msg := strings.TrimSpace(stderr.String()); msg != "" {
			return fmt.Errorf("%w: %s", err, msg)
		}
		return err
	}
	// The trampoline made .kimi-code read-only in its namespace; this
	// side must see an ordinary directory, or mounts leak out.
	if err := os.WriteFile(filepath.Join(dir, KimigoDir, "probe"), nil, 0o600); err != nil {
		return fmt.Errorf("a mount made inside the sandbox shows outside it: %w", err)
	}
	return nil
}
