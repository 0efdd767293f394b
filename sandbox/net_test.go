package sandbox_test

import (
	"errors"
	"net"
	"net/http"
	"os/exec"
	"strings"
	"testing"

	"github.com/kimigo/kimigo/sandbox"
)

// peers are servers outside the sandbox: on the loopback and on this
// machine's own non-loopback address, which from a new network namespace
// is as far away as any other host.
type peers struct {
	tcp, udp, http []string // addresses
}

func startPeers(t *testing.T) peers {
	t.Helper()
	hosts := []string{"127.0.0.1"}
	if ip := externalIPv4(); ip != "" {
		hosts = append(hosts, ip)
	} else {
		t.Log("this machine has no non-loopback IPv4 address; only the loopback peers run")
	}
	var ps peers
	for _, h := range hosts {
		ln, err := net.Listen("tcp", net.JoinHostPort(h, "0"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = ln.Close() }) // ends serveGreeting
		go serveGreeting(ln)
		ps.tcp = append(ps.tcp, ln.Addr().String())

		pc, err := net.ListenPacket("udp", net.JoinHostPort(h, "0"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = pc.Close() }) // ends the echo loop
		go func() {
			buf := make([]byte, 16)
			for {
				_, from, err := pc.ReadFrom(buf)
				if err != nil {
					return
				}
				_, _ = pc.WriteTo([]byte("pong"), from) // the sender may be gone
			}
		}()
		ps.udp = append(ps.udp, pc.LocalAddr().String())

		hl, err := net.Listen("tcp", net.JoinHostPort(h, "0"))
		if err != nil {
			t.Fatal(err)
		}
		srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			_, _ = w.Write([]byte("from outside\n"))
		})}
		t.Cleanup(func() { _ = srv.Close() })
		go func() { _ = srv.Serve(hl) }() // ends with Close
		ps.http = append(ps.http, "http://"+hl.Addr().String()+"/")
	}
	return ps
}

func externalIPv4() string {
	ifaces, err := net.Interfaces()
	if err != nil {
		return ""
	}
	for _, ifc := range ifaces {
		if ifc.Flags&net.FlagUp == 0 || ifc.Flags&net.FlagLoopback != 0 {
			continue
		}
		addrs, _ := ifc.Addrs()
		for _, a := range addrs {
			if n, ok := a.(*net.IPNet); ok && n.IP.To4() != nil {
				return n.IP.String()
			}
		}
	}
	return ""
}

// netProbe is one way of reaching a peer.
type netProbe struct {
	name string
	argv []string
}

func netProbes(t *testing.T, ps peers) []netProbe {
	var out []netProbe
	for _, a := range ps.tcp {
		out = append(out, netProbe{"Go TCP dial " + a, helperCmd(t, "tcp", a)})
	}
	for _, a := range ps.udp {
		out = append(out, netProbe{"UDP datagram to " + a, helperCmd(t, "udp", a)})
	}
	if _, err := exec.LookPath("curl"); err == nil {
		for _, u := range ps.http {
			out = append(out, netProbe{"curl " + u, []string{"curl", "-sS", "--max-time", "10", u}})
		}
	} else {
		t.Log("curl is not installed (.ci/run installs it); the Go probes still run")
	}
	return out
}

// direct runs argv with no sandbox.
func direct(argv []string) result {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = helperEnv()
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return result{string(out), ee.ExitCode()}
	}
	if err != nil {
		return result{err.Error(), -1}
	}
	return result{string(out), 0}
}

func TestNetwork(t *testing.T) {
	forEachSetup(t, testNetwork)
}

func testNetwork(t *testing.T, s setup) {
	sb := newSandbox(t, s)
	w := newWorkspace(t)
	off := sandbox.Policy{Mode: sandbox.ModeWorkspaceWrite, WorkDir: w.work}
	on := off
	on.Network = true
	requireSandbox(t, sb, off)
	if got := sb.Status().Net(); got != sandbox.NetNamespace {
		t.Fatalf("Net() = %s with namespaces available, want %s", got, sandbox.NetNamespace)
	}
	ps := startPeers(t)
	for _, np := range netProbes(t, ps) {
		t.Run(np.name, func(t *testing.T) {
			if r := direct(np.argv); r.code != 0 {
				t.Fatalf("outside the sandbox: exit %d: %s", r.code, r.out)
			}
			if r := run(t, sb, on, w.work, np.argv...); r.code != 0 {
				t.Errorf("network allowed: exit %d: %s", r.code, r.out)
			}
			r := run(t, sb, off, w.work, np.argv...)
			t.Logf("network off: exit %d: %s", r.code, r.out)
			if r.code == 0 {
				t.Errorf("network off: the peer was reached: %s", r.out)
			}
			if !containsAny(r.out, "unreachable", "refused", "Couldn't connect", "Failed to connect") {
				t.Errorf("network off: output %q does not say the network is unreachable", r.out)
			}
		})
	}
	t.Run("a server of the command's own on its loopback", func(t *testing.T) {
		if r := run(t, sb, off, w.work, helperCmd(t, "selfloop")...); r.code != 0 {
			t.Errorf("exit %d: %s", r.code, r.out)
		}
	})
	t.Run("the internet", func(t *testing.T) {
		const host = "proxy.golang.org:443"
		argv := helperCmd(t, "connect", host)
		if r := direct(argv); r.code != 0 {
			t.Skipf("%s is unreachable outside the sandbox too (offline?): %s", host, r.out)
		}
		if r := run(t, sb, on, w.work, argv...); r.code != 0 {
			t.Errorf("network allowed: exit %d: %s", r.code, r.out)
		}
		r := run(t, sb, off, w.work, argv...)
		t.Logf("network off: exit %d: %s", r.code, r.out)
		if r.code == 0 {
			t.Errorf("network off: %s was reached", host)
		}
	})
	t.Run("umount inside", func(t *testing.T) {
		// The command is root in its user namespace; Landlock still
		// refuses it any change to the mounts.
		r := run(t, sb, off, w.work, helperCmd(t, "umount", w.work+"/.git/hooks")...)
		if r.code == 0 || !strings.Contains(r.out, "operation not permitted") {
			t.Errorf("umount .git/hooks: exit %d: %s", r.code, r.out)
		}
	})
}

func TestNetworkLandlockFallback(t *testing.T) {
	// Where namespaces are refused, Landlock's port rules keep TCP off;
	// UDP only from Landlock ABI 10, as Status says.
	forEachLauncher(t, sandbox.WithoutNamespaces(sandbox.Options{}), testNetworkLandlockFallback)
}

func testNetworkLandlockFallback(t *testing.T, s setup) {
	sb := newSandbox(t, s)
	w := newWorkspace(t)
	p := sandbox.Policy{Mode: sandbox.ModeReadOnly}
	requireSandbox(t, sb, p)
	st := sb.Status()
	if st.Net() != sandbox.NetLandlock {
		t.Fatalf("Net() = %s without namespaces at ABI %d, want %s", st.Net(), st.LandlockABI, sandbox.NetLandlock)
	}
	ps := startPeers(t)
	for _, a := range ps.tcp {
		r := run(t, sb, p, w.work, helperCmd(t, "tcp", a)...)
		if r.code == 0 || !strings.Contains(r.out, "permission denied") {
			t.Errorf("TCP to %s: exit %d: %s; want permission denied", a, r.code, r.out)
		}
	}
	for _, a := range ps.udp {
		r := run(t, sb, p, w.work, helperCmd(t, "udp", a)...)
		if got := r.code != 0; got != st.UDPDenied() {
			t.Errorf("UDP to %s: denied=%v, but Status.UDPDenied()=%v: %s", a, got, st.UDPDenied(), r.out)
		}
	}
	if !strings.Contains(st.String(), "UDP and DNS still work") && !st.UDPDenied() {
		t.Errorf("Status %q does not say UDP still works", st)
	}
	// Workspace-write needs a mount namespace for its read-only entries:
	// without one it is unavailable, never silently weaker.
	ww := sandbox.Policy{Mode: sandbox.ModeWorkspaceWrite, WorkDir: w.work}
	_, err := sb.Command(ww, "true")
	if s.via == viaServer {
		_, err = sb.Starter(ww)
	}
	if !errors.Is(err, sandbox.ErrUnavailable) || !strings.Contains(err.Error(), ".git/hooks") {
		t.Errorf("workspace-write without namespaces: %v; want ErrUnavailable naming .git/hooks", err)
	}
}
