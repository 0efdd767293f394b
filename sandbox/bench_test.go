package sandbox_test

import (
	"os/exec"
	"testing"

	"github.com/kimigo/kimigo/sandbox"
)

// BenchmarkBashTrue measures what the sandbox adds to starting a command:
// `bash -c true` plain, and under the policies. The budget is 2 ms per
// Bash call (issue 16); compare medians of -count runs:
//
//	go test -run '^$' -bench BashTrue -count 10 ./sandbox/
func BenchmarkBashTrue(b *testing.B) {
	sb := sandbox.New(sandbox.Options{})
	defer sb.Close()
	userNS := sandbox.New(sandbox.WithUserNamespace(sandbox.Options{}))
	defer userNS.Close()
	work := b.TempDir()
	gitRepo(b, work)
	bashPath, err := exec.LookPath("bash")
	if err != nil {
		b.Skip("no bash")
	}
	ww := sandbox.Policy{Mode: sandbox.ModeWorkspaceWrite, WorkDir: work}
	wwNet := ww
	wwNet.Network = true
	for _, bc := range []struct {
		name string
		sb   *sandbox.Sandbox
		p    *sandbox.Policy
	}{
		{"plain", nil, nil},
		{"workspace-write,network-off", sb, &ww},
		{"workspace-write,network-on", sb, &wwNet},
		{"read-only,network-on", sb, &sandbox.Policy{Mode: sandbox.ModeReadOnly, Network: true}},
		{"workspace-write,network-off,user-namespace", userNS, &ww},
	} {
		b.Run(bc.name, func(b *testing.B) {
			if bc.p != nil {
				// The one-time probe is not part of a call.
				if err := bc.sb.Status().Check(*bc.p); err != nil {
					b.Skip(err)
				}
			}
			for b.Loop() {
				cmd := exec.Command(bashPath, "-c", "true")
				if bc.p != nil {
					if err := bc.sb.Apply(cmd, *bc.p); err != nil {
						b.Fatal(err)
					}
				}
				cmd.Dir = work
				if out, err := cmd.CombinedOutput(); err != nil {
					b.Fatalf("%v: %s", err, out)
				}
			}
		})
	}
}

// BenchmarkBashTrueLargeHeap is BenchmarkBashTrue from a process holding
// 256 MiB: a new user namespace (NamespaceUser) rules out vfork, so
// starting the trampoline copies the caller's page tables; root's
// NamespaceUnshare does not.
func BenchmarkBashTrueLargeHeap(b *testing.B) {
	heap := make([]byte, 256<<20)
	for i := range heap {
		heap[i] = byte(i)
	}
	sb := sandbox.New(sandbox.Options{})
	defer sb.Close()
	userNS := sandbox.New(sandbox.WithUserNamespace(sandbox.Options{}))
	defer userNS.Close()
	work := b.TempDir()
	gitRepo(b, work)
	ww := &sandbox.Policy{Mode: sandbox.ModeWorkspaceWrite, WorkDir: work}
	for _, bc := range []struct {
		name string
		sb   *sandbox.Sandbox
		p    *sandbox.Policy
	}{
		{"plain", nil, nil},
		{"workspace-write,network-off", sb, ww},
		{"read-only,network-on", sb, &sandbox.Policy{Mode: sandbox.ModeReadOnly, Network: true}},
		{"workspace-write,network-off,user-namespace", userNS, ww},
	} {
		b.Run(bc.name, func(b *testing.B) {
			if bc.p != nil {
				if err := bc.sb.Status().Check(*bc.p); err != nil {
					b.Skip(err)
				}
			}
			for b.Loop() {
				cmd := exec.Command("bash", "-c", "true")
				if bc.p != nil {
					if err := bc.sb.Apply(cmd, *bc.p); err != nil {
						b.Fatal(err)
					}
				}
				cmd.Dir = work
				if out, err := cmd.CombinedOutput(); err != nil {
					b.Fatalf("%v: %s", err, out)
				}
			}
		})
	}
	heap[0]++ // keep the heap alive across the runs
}
