package sandbox_test

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kimigo/kimigo/osenv"
	"github.com/kimigo/kimigo/sandbox"
)

// The benchmarks measure what the sandbox adds to a Bash call (issue 16's
// budget: 2 ms). Each iteration starts `bash -c true` both plainly and
// sandboxed, in alternating order, so that a loaded machine slows both
// alike; each reports the medians of the plain call, the sandboxed call
// and their difference per iteration (added-µs):
//
//	CGO_ENABLED=0 go test -run '^$' -bench . -count 5 ./sandbox/
//
// As an unprivileged user (the user-namespace method), from a copy of
// the test binary that user may execute:
//
//	CGO_ENABLED=0 go test -c -o /tmp/sandbox.test ./sandbox/
//	setpriv --reuid 65534 --regid 65534 --clear-groups env HOME=/tmp /tmp/sandbox.test -test.run '^$' -test.bench .

// pairTimer collects the plain and sandboxed durations of each iteration.
type pairTimer struct{ plain, sandboxed, added []time.Duration }

// run times plain and sandboxed once each, the order alternating with i.
func (pt *pairTimer) run(b *testing.B, i int, plain, sandboxed func() error) {
	b.Helper()
	var dp, ds time.Duration
	timed := func(f func() error) time.Duration {
		t0 := time.Now()
		if err := f(); err != nil {
			b.Fatal(err)
		}
		return time.Since(t0)
	}
	if i%2 == 0 {
		dp, ds = timed(plain), timed(sandboxed)
	} else {
		ds, dp = timed(sandboxed), timed(plain)
	}
	pt.plain, pt.sandboxed, pt.added = append(pt.plain, dp), append(pt.sandboxed, ds), append(pt.added, ds-dp)
}

// report sets the medians as the benchmark's metrics.
func (pt *pairTimer) report(b *testing.B) {
	median := func(ds []time.Duration) float64 {
		s := slices.Clone(ds)
		slices.Sort(s)
		return float64(s[len(s)/2]) / float64(time.Microsecond)
	}
	if len(pt.added) == 0 {
		return
	}
	b.ReportMetric(median(pt.plain), "plain-µs")
	b.ReportMetric(median(pt.sandboxed), "sandboxed-µs")
	b.ReportMetric(median(pt.added), "added-µs")
}

// runOsenv runs c through env to its end.
func runOsenv(env osenv.Env, c osenv.Cmd) error {
	p, err := env.Exec(c)
	if err != nil {
		return err
	}
	defer p.Close()
	if _, err := io.Copy(io.Discard, p.Stdout()); err != nil {
		return err
	}
	if err := p.Wait(); err != nil {
		return err
	}
	if code, _ := p.ExitCode(); code != 0 {
		return fmt.Errorf("%q: exit %d", c.Args, code)
	}
	return nil
}

// runExec runs cmd to its end.
func runExec(cmd *exec.Cmd) error {
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%v: %s", err, out)
	}
	return nil
}

// benchCase is one policy and namespace method.
type benchCase struct {
	name string
	opts sandbox.Options
	p    sandbox.Policy
}

func benchCases(b *testing.B, work string) []benchCase {
	ww := sandbox.Policy{Mode: sandbox.ModeWorkspaceWrite, WorkDir: work}
	wwNet := ww
	wwNet.Network = true
	var out []benchCase
	for _, m := range namespaceMethods() {
		for _, p := range []struct {
			name string
			p    sandbox.Policy
		}{
			{"read-only,network-on", sandbox.Policy{Mode: sandbox.ModeReadOnly, Network: true}},
			{"read-only,network-off", sandbox.Policy{Mode: sandbox.ModeReadOnly}},
			{"workspace-write,network-off", ww},
			{"workspace-write,network-on", wwNet},
		} {
			out = append(out, benchCase{p.name + "/" + m.name, m.opts, p.p})
		}
	}
	return out
}

func BenchmarkBashTrue(b *testing.B) {
	work := b.TempDir()
	gitRepo(b, work)
	bashPath, err := exec.LookPath("bash")
	if err != nil {
		b.Skip("no bash")
	}
	local := osenv.NewLocal(osenv.LocalOptions{Cwd: work})
	bashTrue := []string{bashPath, "-c", "true"}
	for _, bc := range benchCases(b, work) {
		sb := sandbox.New(bc.opts)
		b.Cleanup(func() { _ = sb.Close() }) // the benchmark checks what it runs
		if err := sb.Status().Check(bc.p); err != nil {
			b.Logf("%s: %v", bc.name, err)
			continue
		}
		// Trampoline: exec.Cmd rewritten by Apply, against plain exec.Cmd.
		b.Run("trampoline/"+bc.name, func(b *testing.B) {
			var pt pairTimer
			i := 0
			for b.Loop() {
				pt.run(b, i, func() error {
					cmd := exec.Command(bashPath, "-c", "true")
					cmd.Dir = work
					return runExec(cmd)
				}, func() error {
					cmd := exec.Command(bashPath, "-c", "true")
					cmd.Dir = work
					if err := sb.Apply(cmd, bc.p); err != nil {
						return err
					}
					return runExec(cmd)
				})
				i++
			}
			pt.report(b)
		})
		// Server: osenv.Exec with the sandbox's Starter, against plain
		// osenv.Exec; the server's start is not part of a call
		// (BenchmarkFirstCommand).
		b.Run("server/"+bc.name, func(b *testing.B) {
			st, err := sb.Starter(bc.p)
			if err != nil {
				b.Fatal(err)
			}
			if err := runOsenv(local, osenv.Cmd{Args: bashTrue, Starter: st}); err != nil {
				b.Fatal(err)
			}
			var pt pairTimer
			i := 0
			for b.Loop() {
				pt.run(b, i, func() error {
					return runOsenv(local, osenv.Cmd{Args: bashTrue})
				}, func() error {
					return runOsenv(local, osenv.Cmd{Args: bashTrue, Starter: st})
				})
				i++
			}
			pt.report(b)
		})
	}
}

// BenchmarkFirstCommand measures the first sandboxed command of a session:
// the server's start (its namespaces, mounts and ruleset) and the call,
// against a plain call. Probe's one-time run is not part of it
// (BenchmarkProbe).
func BenchmarkFirstCommand(b *testing.B) {
	work := b.TempDir()
	gitRepo(b, work)
	bashPath, err := exec.LookPath("bash")
	if err != nil {
		b.Skip("no bash")
	}
	local := osenv.NewLocal(osenv.LocalOptions{Cwd: work})
	bashTrue := []string{bashPath, "-c", "true"}
	for _, bc := range benchCases(b, work) {
		if err := sandbox.New(bc.opts).Status().Check(bc.p); err != nil {
			continue
		}
		b.Run(bc.name, func(b *testing.B) {
			var pt pairTimer
			i := 0
			var rss int
			defer func() { b.ReportMetric(float64(rss), "server-rss-KiB") }()
			for b.Loop() {
				var sb *sandbox.Sandbox
				rss = 0
				pt.run(b, i, func() error {
					return runOsenv(local, osenv.Cmd{Args: bashTrue})
				}, func() error {
					sb = sandbox.New(bc.opts)
					st, err := sb.Starter(bc.p)
					if err != nil {
						return err
					}
					return runOsenv(local, osenv.Cmd{Args: bashTrue, Starter: st})
				})
				b.StopTimer()
				rss = max(rss, serverRSS(sb))
				if err := sb.Close(); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				i++
			}
			pt.report(b)
		})
	}
}

// serverRSS is the resident memory of sb's server, in KiB.
func serverRSS(sb *sandbox.Sandbox) int {
	pids := sandbox.ServerPIDs(sb)
	if len(pids) == 0 {
		return 0
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pids[0]))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(rest), " kB"))
			return kb
		}
	}
	return 0
}

// BenchmarkProbe measures Probe's one-time check of the namespaces, which
// the first sandboxed command of a process pays for.
func BenchmarkProbe(b *testing.B) {
	for b.Loop() {
		sandbox.ProbeAgain()
	}
}

// BenchmarkBashTrueLargeHeap is BenchmarkBashTrue's workspace-write case
// from a process holding 256 MiB: the user-namespace method rules out
// vfork, so a trampoline's start copies the caller's page tables; a
// server is started once, and it starts the commands from its own small
// process.
func BenchmarkBashTrueLargeHeap(b *testing.B) {
	heap := make([]byte, 256<<20)
	for i := range heap {
		heap[i] = byte(i)
	}
	work := b.TempDir()
	gitRepo(b, work)
	local := osenv.NewLocal(osenv.LocalOptions{Cwd: work})
	bashTrue := []string{"bash", "-c", "true"}
	for _, bc := range benchCases(b, work) {
		if bc.p.Mode != sandbox.ModeWorkspaceWrite || bc.p.Network {
			continue
		}
		sb := sandbox.New(bc.opts)
		b.Cleanup(func() { _ = sb.Close() }) // the benchmark checks what it runs
		if err := sb.Status().Check(bc.p); err != nil {
			continue
		}
		b.Run("trampoline/"+bc.name, func(b *testing.B) {
			var pt pairTimer
			i := 0
			for b.Loop() {
				pt.run(b, i, func() error {
					return runExec(exec.Command("bash", "-c", "true"))
				}, func() error {
					cmd := exec.Command("bash", "-c", "true")
					if err := sb.Apply(cmd, bc.p); err != nil {
						return err
					}
					return runExec(cmd)
				})
				i++
			}
			pt.report(b)
		})
		b.Run("server/"+bc.name, func(b *testing.B) {
			st, err := sb.Starter(bc.p)
			if err != nil {
				b.Fatal(err)
			}
			var pt pairTimer
			i := 0
			for b.Loop() {
				pt.run(b, i, func() error {
					return runOsenv(local, osenv.Cmd{Args: bashTrue})
				}, func() error {
					return runOsenv(local, osenv.Cmd{Args: bashTrue, Starter: st})
				})
				i++
			}
			pt.report(b)
		})
	}
	heap[0]++ // keep the heap alive across the runs
}
