package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
)

// trampolineArg is the hidden first argument that turns the program into
// the trampoline (MaybeRunTrampoline). It is no flag anybody would type.
const trampolineArg = "__kimigo-sandbox-trampoline-v1__"

// trampolineLabel is the trampoline's argv[0], which ps shows until the
// exec replaces it.
const trampolineLabel = "kimigo-sandbox"

// spec is what the parent hands the trampoline: everything it needs,
// resolved, so that the trampoline decides nothing from the environment.
// It travels as JSON in argv.
type spec struct {
	// Mode is the policy's name, for messages.
	Mode Mode `json:"mode"`
	// Write are the writable dirs, absolute and free of symbolic links.
	Write []string `json:"write,omitempty"`
	// ReadOnly are the policy's extra read-only entries (Policy.ReadOnly).
	ReadOnly []string `json:"read_only,omitempty"`
	// Temp is the private temporary directory: writable, and TMPDIR.
	Temp string `json:"temp,omitempty"`
	// Network allows network access.
	Network bool `json:"network,omitempty"`
	// NetNS says the trampoline runs in a new network namespace, whose
	// loopback it brings up.
	NetNS bool `json:"netns,omitempty"`
	// MountNS says the trampoline runs in a new mount namespace, where it
	// bind-mounts the read-only entries read-only.
	MountNS bool `json:"mountns,omitempty"`
	// Unshare says the namespaces come without a user namespace
	// (NamespaceUnshare): the trampoline makes them itself, for its own
	// thread; a server is started in them by root. Otherwise both start
	// in a new user namespace that holds them.
	Unshare bool `json:"unshare,omitempty"`
	// Probe makes the trampoline check that it can set the namespaces up
	// (in Temp) and exit without running anything.
	Probe bool `json:"probe,omitempty"`
	// Path is the program to run (exec.Cmd.Path); argv follows the spec.
	Path string `json:"path,omitempty"`
	// OwnGoMaxProcs says Apply gave the trampoline GOMAXPROCS=1, which
	// it replaces by GoMaxProcs, the command's own value (nil: unset).
	OwnGoMaxProcs bool    `json:"own_gomaxprocs,omitempty"`
	GoMaxProcs    *string `json:"gomaxprocs,omitempty"`
}

// encodeArgs is the trampoline's argv for running argv (whose program is
// s.Path) under s.
func encodeArgs(s spec, argv []string) ([]string, error) {
	b, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("sandbox %s: encode the trampoline's policy: %w", s.Mode, err)
	}
	return append([]string{trampolineLabel, trampolineArg, string(b)}, argv...), nil
}

// decodeArgs reads what encodeArgs wrote, starting after trampolineArg.
func decodeArgs(args []string) (spec, []string, error) {
	if len(args) == 0 {
		return spec{}, nil, errors.New("the policy argument is missing")
	}
	s, err := decodeSpec(args[0])
	if err != nil {
		return spec{}, nil, err
	}
	argv := args[1:]
	if !s.Probe && (len(argv) == 0 || s.Path == "") {
		return spec{}, nil, errors.New("no command follows the policy argument")
	}
	return s, argv, nil
}

// serverArg is the hidden first argument that makes the program a
// sandbox server (MaybeRunTrampoline); the policy argument follows it.
const serverArg = "__kimigo-sandbox-server-v1__"

// serverLabel is a server's argv[0], which ps shows.
const serverLabel = "kimigo-sandbox-server"

// encodeServerArgs is a server's argv for policy s.
func encodeServerArgs(s spec) ([]string, error) {
	b, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("sandbox %s: encode the server's policy: %w", s.Mode, err)
	}
	return []string{serverLabel, serverArg, string(b)}, nil
}

// decodeSpec reads one policy argument.
func decodeSpec(arg string) (spec, error) {
	var s spec
	if err := json.Unmarshal([]byte(arg), &s); err != nil {
		return spec{}, fmt.Errorf("decode the policy argument: %w", err)
	}
	switch s.Mode {
	case ModeReadOnly, ModeWorkspaceWrite:
	default:
		return spec{}, fmt.Errorf("the policy argument has mode %q (want read-only or workspace-write)", s.Mode)
	}
	return s, nil
}

// key is what tells the servers of different policies apart: everything
// but the command.
func (s spec) key() string {
	s.Path, s.Probe, s.OwnGoMaxProcs, s.GoMaxProcs = "", false, false, nil
	b, _ := json.Marshal(s) // a spec of strings and bools always encodes
	return string(b)
}
