package sandbox

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSpecRoundTrip(t *testing.T) {
	sp := spec{
		Mode: ModeWorkspaceWrite, Write: []string{"/w", "/a b/'c'"}, ReadOnly: []string{"docs/"},
		Temp: "/tmp/t", NetNS: true, MountNS: true, Path: "/bin/bash", OwnGoMaxProcs: true, GoMaxProcs: new(string),
	}
	argv := []string{"bash", "-c", "echo \"$x\" '\x01'"}
	args, err := encodeArgs(sp, argv)
	if err != nil {
		t.Fatal(err)
	}
	if args[0] != trampolineLabel || args[1] != trampolineArg {
		t.Fatalf("args start %q", args[:2])
	}
	got, gotArgv, err := decodeArgs(args[2:])
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(sp, got); d != "" {
		t.Errorf("spec (-sent +read):\n%s", d)
	}
	if !slices.Equal(argv, gotArgv) {
		t.Errorf("argv %q, want %q", gotArgv, argv)
	}
}

func FuzzDecodeArgs(f *testing.F) {
	f.Add(`{"mode":"read-only","path":"/bin/true"}`, "true")
	f.Add(`{"mode":"workspace-write","write":["/w"],"probe":true}`, "")
	f.Add(`{"mode":"off"}`, "x")
	f.Add(`{`, "")
	f.Fuzz(func(t *testing.T, arg, cmd string) {
		args := []string{arg}
		if cmd != "" {
			args = append(args, cmd)
		}
		sp, argv, err := decodeArgs(args)
		if err != nil {
			if !strings.Contains(err.Error(), "policy argument") {
				t.Errorf("error %q does not name the policy argument", err)
			}
			return
		}
		// Whatever decodes is a mode that sandboxes, with a command
		// unless it only probes.
		if sp.Mode != ModeReadOnly && sp.Mode != ModeWorkspaceWrite {
			t.Errorf("decoded mode %q", sp.Mode)
		}
		if !sp.Probe && (len(argv) == 0 || sp.Path == "") {
			t.Errorf("decoded a run with no command: %+v %q", sp, argv)
		}
	})
}
