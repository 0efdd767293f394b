package tools_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"

	"github.com/kimigo/kimigo/tools"
)

// TestFetcherRefusesEveryNonPublicRange: one address of every range the
// fetcher may not reach, and public neighbours it must reach (issue 16
// item 5).
func TestFetcherRefusesEveryNonPublicRange(t *testing.T) {
	for _, tt := range []struct {
		name, addr string
		public     bool
	}{
		{"this network 0.0.0.0/8", "0.1.2.3", false},
		{"unspecified v4", "0.0.0.0", false},
		{"private 10/8", "10.20.30.40", false},
		{"CGNAT 100.64/10", "100.64.0.1", false},
		{"CGNAT top", "100.127.255.254", false},
		{"loopback 127/8", "127.0.0.1", false},
		{"loopback 127/8 top", "127.255.255.254", false},
		{"link-local 169.254/16", "169.254.169.254", false},
		{"private 172.16/12", "172.31.0.1", false},
		{"IETF protocol 192.0.0/24", "192.0.0.8", false},
		{"documentation 192.0.2/24", "192.0.2.1", false},
		{"6to4 relay 192.88.99/24", "192.88.99.1", false},
		{"private 192.168/16", "192.168.1.1", false},
		{"benchmark 198.18/15", "198.18.0.1", false},
		{"benchmark 198.19", "198.19.255.1", false},
		{"documentation 198.51.100/24", "198.51.100.7", false},
		{"documentation 203.0.113/24", "203.0.113.9", false},
		{"multicast 224/4", "224.0.0.1", false},
		{"multicast top", "239.255.255.250", false},
		{"reserved 240/4", "240.0.0.1", false},
		{"broadcast", "255.255.255.255", false},
		{"unspecified v6 ::/128", "::", false},
		{"loopback ::1", "::1", false},
		{"IPv4-compatible public", "::8.8.8.8", false},
		{"IPv4-compatible private", "::10.0.0.1", false},
		{"IPv4-mapped loopback", "::ffff:127.0.0.1", false},
		{"IPv4-mapped private", "::ffff:192.168.0.1", false},
		{"IPv4-mapped metadata", "::ffff:169.254.169.254", false},
		{"IPv4-translated", "::ffff:0:10.0.0.1", false},
		{"NAT64 of loopback", "64:ff9b::127.0.0.1", false},
		{"NAT64 of private", "64:ff9b::a00:1", false},
		{"NAT64 of benchmark", "64:ff9b::198.18.0.1", false},
		{"local-use NAT64 of private", "64:ff9b:1::10.0.0.1", false},
		{"local-use NAT64 /48 form of loopback", "64:ff9b:1:7f00:0:100::", false},
		{"local-use NAT64 is never public", "64:ff9b:1:808:8:800::", false},
		{"local-use NAT64 of public in /96 form", "64:ff9b:1::8.8.8.8", false},
		{"discard 100::/64", "100::1", false},
		{"Teredo 2001::/32", "2001:0:4136:e378:8000:63bf:3fff:fdd2", false},
		{"benchmark 2001:2::/48", "2001:2::1", false},
		{"documentation 2001:db8::/32", "2001:db8::1", false},
		{"documentation 3fff::/20", "3fff:fff::1", false},
		{"ORCHID 2001:10::/28", "2001:10::1", false},
		{"SRv6 SIDs 5f00::/16", "5f00::1", false},
		{"6to4 of private", "2002:c0a8:101::1", false},
		{"6to4 of loopback", "2002:7f00:1::", false},
		{"6to4 of CGNAT", "2002:6440:1::", false},
		{"unique local fc00::/7", "fd12:3456::1", false},
		{"unique local fc", "fc00::1", false},
		{"link-local fe80::/10", "fe80::1", false},
		{"link-local with zone", "fe80::1%eth0", false},
		{"site-local fec0::/10", "fec0::1", false},
		{"multicast ff00::/8", "ff02::1", false},
		{"public v4", "8.8.8.8", true},
		{"public v4 next to CGNAT", "100.128.0.1", true},
		{"public v4 next to benchmark", "198.20.0.1", true},
		{"public v4 next to 192.0.2", "192.0.3.1", true},
		{"public v4 below multicast", "223.255.255.1", true},
		{"IPv4-mapped public", "::ffff:8.8.8.8", true},
		{"public v6", "2606:4700:4700::1111", true},
		{"NAT64 of public", "64:ff9b::8.8.8.8", true},
		{"6to4 of public", "2002:808:808::1", true},
		{"public next to Teredo", "2001:4860::8888", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ip := netip.MustParseAddr(tt.addr)
			if got := tools.PublicAddr(ip); got != tt.public {
				t.Errorf("PublicAddr(%s) = %v; want %v", ip, got, tt.public)
			}
			f := tools.NewLocalFetcher(tools.FetcherOptions{})
			err := tools.DialCheck(f, "tcp", netip.AddrPortFrom(ip.WithZone(""), 443).String())
			if tt.public != (err == nil) {
				t.Errorf("dial check of %s: %v; want public=%v", ip, err, tt.public)
			}
			if err != nil && !strings.Contains(err.Error(), "not a public address") {
				t.Errorf("dial check error %q does not say why", err)
			}
		})
	}
}

// hostResolver answers name lookups from a table.
type hostResolver map[string][]string

func (r hostResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	addrs, ok := r[host]
	if !ok {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	var out []netip.Addr
	for _, a := range addrs {
		out = append(out, netip.MustParseAddr(a))
	}
	return out, nil
}

// redirectServer serves /go?to=URL, a redirect to URL, and /ok, which
// answers "reached HOST"; it returns the server and its port.
func redirectServer(t *testing.T) (*httptest.Server, int) {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/go", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, r.URL.Query().Get("to"), http.StatusFound)
	})
	mux.HandleFunc("/ok", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprintf(w, "reached %s", r.Host)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv, srv.Listener.Addr().(*net.TCPAddr).Port
}

// TestFetcherRedirectsCannotReachNonPublicAddresses: a loopback test
// server (the one address the test lets through) redirects to forbidden
// addresses, spelled as literals or behind names whose DNS answers are
// not public; every hop is refused before a connection is made.
func TestFetcherRedirectsCannotReachNonPublicAddresses(t *testing.T) {
	srv, port := redirectServer(t)
	f := tools.NewLocalFetcher(tools.FetcherOptions{
		Allow:              []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")},
		CrossHostRedirects: true, // the address checks are under test, not the stop at another host
		Resolver: hostResolver{
			"ok.test":      {"127.0.0.1"},
			"rebind.test":  {"127.0.0.1", "10.0.0.1"},
			"mapped.test":  {"::ffff:127.0.0.2"},
			"nat64.test":   {"64:ff9b::a9fe:a9fe"},
			"sixto4.test":  {"2002:a00:1::1"},
			"teredo.test":  {"2001:0:4136:e378:8000:63bf:3fff:fdd2"},
			"bench.test":   {"198.18.0.1"},
			"compat.test":  {"::127.0.0.1"},
			"cgnat.test":   {"100.64.1.1"},
			"reserved.tst": {"240.1.2.3"},
		},
	})
	ctx := t.Context()
	// The test's own address is reachable, by literal and by name.
	for _, u := range []string{srv.URL + "/ok", fmt.Sprintf("http://ok.test:%d/ok", port),
		srv.URL + "/go?to=" + fmt.Sprintf("http://ok.test:%d/ok", port)} {
		page, err := f.Fetch(ctx, u)
		if err != nil || !strings.HasPrefix(page.Content, "reached ") {
			t.Fatalf("%s: %q, %v; want it reached", u, page.Content, err)
		}
	}
	for _, target := range []string{
		"http://10.0.0.1/", "http://127.0.0.2/", "http://[::ffff:127.0.0.2]/", "http://[::127.0.0.1]/",
		"http://[64:ff9b::7f00:1]/", "http://[2002:7f00:1::]/", "http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/",
		"http://198.18.0.1/", "http://240.0.0.1/", "http://0.0.0.0/", "http://[::]/", "http://[fe80::1]/",
		"http://100.64.0.1/", "http://192.0.2.1/", "http://224.0.0.1/", "http://255.255.255.255/",
		fmt.Sprintf("http://rebind.test:%d/ok", port), fmt.Sprintf("http://mapped.test:%d/ok", port),
		fmt.Sprintf("http://nat64.test:%d/ok", port), fmt.Sprintf("http://sixto4.test:%d/ok", port),
		fmt.Sprintf("http://teredo.test:%d/ok", port), fmt.Sprintf("http://bench.test:%d/ok", port),
		fmt.Sprintf("http://compat.test:%d/ok", port), fmt.Sprintf("http://cgnat.test:%d/ok", port),
		fmt.Sprintf("http://reserved.tst:%d/ok", port), fmt.Sprintf("http://localhost:%d/ok", port),
	} {
		page, err := f.Fetch(ctx, srv.URL+"/go?to="+target)
		if err == nil || !strings.Contains(err.Error(), "not a public address") && !strings.Contains(err.Error(), "local address") {
			t.Errorf("redirect to %s: %q, %v; want a refusal", target, page.Content, err)
		}
	}
}

// TestFetchURLStopsAtARedirectToAnotherHost: a fetch approved or allowed
// for one host does not reach another through a redirect (an open
// redirect on an approved host would otherwise carry the model's URL to
// any host, past deny rules and the per-host ask); the model is told the
// target. Redirects within the host are followed.
func TestFetchURLStopsAtARedirectToAnotherHost(t *testing.T) {
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("the other host was reached: %s", r.URL)
	}))
	t.Cleanup(other.Close)
	_, port := redirectServer(t)
	fetch := tools.NewFetchURL(tools.NewLocalFetcher(tools.FetcherOptions{
		Allow:    []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")},
		Resolver: hostResolver{"ok.test": {"127.0.0.1"}},
	}))
	base := fmt.Sprintf("http://ok.test:%d", port)
	for _, to := range []string{other.URL + "/secret?k=v", fmt.Sprintf("http://127.0.0.1:%d/ok", port)} {
		r := call(t, fetch, `{"url":"`+base+`/go?to=`+to+`"}`)
		if r.IsError || strings.Contains(text(r), "reached") || !strings.Contains(text(r), "redirects to another host: "+to) {
			t.Errorf("redirect to %s: %q; want it named, not followed", to, text(r))
		}
	}
	for _, to := range []string{"/ok", fmt.Sprintf("http://ok.test:%d/ok", port)} {
		if r := call(t, fetch, `{"url":"`+base+`/go?to=`+to+`"}`); r.IsError || !strings.Contains(text(r), "reached ") {
			t.Errorf("redirect to %s on the same host: %q; want it followed", to, text(r))
		}
	}
}

// TestFetcherReadsNumericHostsAsAddresses: a host such as 2130706433 or
// 0x7f.1 is the IPv4 address a C resolver and the URL rules read in it,
// whatever resolver the fetcher has; a numeric host that is no address is
// refused.
func TestFetcherReadsNumericHostsAsAddresses(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprintf(w, "reached %s", r.Host)
	}))
	t.Cleanup(srv.Close)
	port := srv.Listener.Addr().(*net.TCPAddr).Port
	f := tools.NewLocalFetcher(tools.FetcherOptions{
		Allow:    []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")},
		Resolver: hostResolver{}, // knows no name: a numeric host must not reach it
	})
	for _, host := range []string{"2130706433", "0x7f.1", "0177.0.0.1", "127.1"} {
		page, err := f.Fetch(t.Context(), fmt.Sprintf("http://%s:%d/", host, port))
		if want := fmt.Sprintf("reached 127.0.0.1:%d", port); err != nil || page.Content != want {
			t.Errorf("%s: %q, %v; want %q", host, page.Content, err, want)
		}
	}
	for _, host := range []string{"2130706434", "0x7f.2", "0x7f000002"} {
		if page, err := f.Fetch(t.Context(), fmt.Sprintf("http://%s:%d/", host, port)); err == nil || !strings.Contains(err.Error(), "not a public address") {
			t.Errorf("%s: %q, %v; want a refusal", host, page.Content, err)
		}
	}
	for _, host := range []string{"08.1", "4294967296", "1.2.3.4.5"} {
		if page, err := f.Fetch(t.Context(), fmt.Sprintf("http://%s:%d/", host, port)); err == nil || !strings.Contains(err.Error(), "neither a name nor an IPv4 address") {
			t.Errorf("%s: %q, %v; want a refusal", host, page.Content, err)
		}
	}
}

// TestFetcherSendsThePathRulesMatched: dot segments, "%2e" included, are
// resolved before the request, as the URL rules resolve them, so a path
// allowed by a rule is the path the server is asked for.
func TestFetcherSendsThePathRulesMatched(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprintf(w, "path %s", r.URL.EscapedPath())
	}))
	t.Cleanup(srv.Close)
	f := tools.NewLocalFetcher(tools.FetcherOptions{Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}})
	for in, want := range map[string]string{
		"/docs/../admin/x": "/admin/x", "/docs/%2e%2E/admin": "/admin", "/./a/./b/": "/a/b/", "/../..": "/", "/a%2Fb/c": "/a%2Fb/c",
	} {
		if page, err := f.Fetch(t.Context(), srv.URL+in); err != nil || page.Content != "path "+want {
			t.Errorf("%s: %q, %v; want path %s", in, page.Content, err, want)
		}
	}
}
