package sandbox_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/kimigo/kimigo/sandbox"
)

func TestProbeThisKernel(t *testing.T) {
	st := sandbox.Probe()
	t.Logf("status: %v", st)
	if st.LandlockABI == 0 {
		t.Skipf("this kernel lacks Landlock: %s", st.LandlockError)
	}
	if again := sandbox.Probe(); again != st {
		t.Errorf("second Probe = %+v, want the first answer %+v", again, st)
	}
	if !st.FS() {
		t.Errorf("Landlock ABI %d enforces no file-system rules here (needs %d)", st.LandlockABI, sandbox.MinLandlockABI)
	}
	if !strings.Contains(st.String(), "landlock ABI") {
		t.Errorf("String() = %q", st)
	}
}

func TestCheck(t *testing.T) {
	ww := sandbox.Policy{Mode: sandbox.ModeWorkspaceWrite, WorkDir: "/w"}
	wwNet := ww
	wwNet.Network = true
	ro := sandbox.Policy{Mode: sandbox.ModeReadOnly}
	roNet := sandbox.Policy{Mode: sandbox.ModeReadOnly, Network: true}
	off := sandbox.Policy{Mode: sandbox.ModeOff}
	full := sandbox.Status{LandlockABI: 7, Namespaces: true}
	noNS := sandbox.Status{LandlockABI: 7, NamespaceError: "refused"}
	for _, tt := range []struct {
		name string
		st   sandbox.Status
		p    sandbox.Policy
		says string // "" means available
	}{
		{"off needs nothing", sandbox.Status{LandlockError: "none"}, off, ""},
		{"no Landlock", sandbox.Status{LandlockError: "not enabled"}, roNet, "no Landlock (not enabled)"},
		{"ABI too old for truncate", sandbox.Status{LandlockABI: 2, Namespaces: true}, roNet, "ABI 2; the sandbox needs 3"},
		{"everything here", full, ww, ""},
		{"workspace-write without namespaces", noNS, wwNet, "needs a user and mount namespace"},
		{"read-only without namespaces, network on", noNS, roNet, ""},
		{"read-only without namespaces, network off, TCP rules", noNS, ro, ""},
		{"read-only without namespaces or TCP rules", sandbox.Status{LandlockABI: 3, NamespaceError: "refused"}, ro, "needs a network namespace (refused: refused) or Landlock ABI 4"},
		{"read-only with namespaces at ABI 3", sandbox.Status{LandlockABI: 3, Namespaces: true}, ro, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.st.Check(tt.p)
			if tt.says == "" {
				if err != nil {
					t.Errorf("Check = %v, want nil", err)
				}
				return
			}
			if !errors.Is(err, sandbox.ErrUnavailable) || !strings.Contains(err.Error(), tt.says) || !strings.Contains(err.Error(), string(tt.p.Mode)) {
				t.Errorf("Check = %v; want ErrUnavailable naming %s and %q", err, tt.p.Mode, tt.says)
			}
		})
	}
}

func TestStatusNet(t *testing.T) {
	for _, tt := range []struct {
		st   sandbox.Status
		net  sandbox.NetIsolation
		udp  bool
		says string
	}{
		{sandbox.Status{LandlockABI: 7, Namespaces: true}, sandbox.NetNamespace, true, "network off by: namespace"},
		{sandbox.Status{LandlockABI: 7}, sandbox.NetLandlock, false, "UDP and DNS still work"},
		{sandbox.Status{LandlockABI: 10}, sandbox.NetLandlock, true, "network off by: landlock;"},
		{sandbox.Status{LandlockABI: 3}, sandbox.NetNone, false, "network off by: none"},
	} {
		if tt.st.Net() != tt.net || tt.st.UDPDenied() != tt.udp || !strings.Contains(tt.st.String()+";", tt.says) {
			t.Errorf("%+v: Net %s UDPDenied %v String %q; want %s %v %q", tt.st, tt.st.Net(), tt.st.UDPDenied(), tt.st, tt.net, tt.udp, tt.says)
		}
	}
}

func TestParseMode(t *testing.T) {
	for _, m := range sandbox.Modes {
		if got, err := sandbox.ParseMode(string(m)); err != nil || got != m {
			t.Errorf("ParseMode(%q) = %q, %v", m, got, err)
		}
	}
	if _, err := sandbox.ParseMode("readonly"); err == nil || !strings.Contains(err.Error(), `"readonly"`) || !strings.Contains(err.Error(), "workspace-write") {
		t.Errorf("ParseMode(readonly) = %v; want an error naming it and the modes", err)
	}
}
