package tools

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/kimigo/kimigo/workspace"
)

// Local fetcher limits (spec 05 §4.8).
const (
	FetchMaxBytes     = 10 << 20
	fetchMaxRedirects = 10
	fetchTimeout      = 30 * time.Second
	fetchUserAgent    = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36"
)

// FetchStatusError is an HTTP response with a status of 400 or more.
type FetchStatusError struct {
	StatusCode int
	Status     string // e.g. "404 Not Found"
}

func (e *FetchStatusError) Error() string { return "HTTP " + e.Status }

// FetcherOptions configure NewLocalFetcher. The zero value is right for
// production.
type FetcherOptions struct {
	// AllowPrivateNetworks lifts the refusal of every address that is not
	// public. Only tests against an httptest server set it.
	AllowPrivateNetworks bool
	// Allow lists the non-public addresses the fetcher may reach anyway:
	// tests name their loopback server's, so that everything else stays
	// refused. Matched exactly (::ffff:127.0.0.1 is not 127.0.0.1).
	Allow []netip.Prefix
	// Resolver looks host names up; nil means net.DefaultResolver.
	Resolver HostResolver
	// Timeout bounds one fetch, redirects included; 0 means 30 s.
	Timeout time.Duration
	// CrossHostRedirects follows a redirect to another host. Off, such a
	// redirect ends the fetch with a *FetchRedirectError: permission
	// rules and the per-host ask judged the URL the model gave, so a
	// page on another host must be asked for by its own URL.
	CrossHostRedirects bool
}

// FetchRedirectError is a redirect to another host than the fetched URL's,
// not followed (FetcherOptions.CrossHostRedirects).
type FetchRedirectError struct {
	URL string // where the redirect points
}

func (e *FetchRedirectError) Error() string { return "redirect to another host: " + e.URL }

// HostResolver looks a host name up (*net.Resolver is one).
type HostResolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// LocalFetcher fetches public http(s) pages itself. It refuses other
// schemes and every address that is not public (publicAddr): a literal
// before any connection, every address of each DNS answer (the first is
// pinned for the connection, so a rebinding name cannot slip through), and
// the address of every socket again as it connects,
// follows at most ten redirects re-checking each hop, reads at most
// 10 MiB, passes text through and extracts the readable text of HTML.
// It is safe for concurrent use.
type LocalFetcher struct {
	opts   FetcherOptions
	client *http.Client
}

var _ URLFetcher = (*LocalFetcher)(nil)

// NewLocalFetcher returns a fetcher.
func NewLocalFetcher(opts FetcherOptions) *LocalFetcher {
	if opts.Resolver == nil {
		opts.Resolver = net.DefaultResolver
	}
	if opts.Timeout == 0 {
		opts.Timeout = fetchTimeout
	}
	f := &LocalFetcher{opts: opts}
	dialer := &net.Dialer{Timeout: 10 * time.Second, Control: f.dialControl}
	f.client = &http.Client{
		Transport: &http.Transport{
			Proxy: nil, // a proxy would resolve names where we cannot check them
			DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
				ip, port, err := f.resolve(ctx, addr)
				if err != nil {
					return nil, err
				}
				return dialer.DialContext(ctx, network, net.JoinHostPort(ip.String(), port))
			},
			TLSHandshakeTimeout:   10 * time.Second,
			ResponseHeaderTimeout: 20 * time.Second,
		},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	return f
}

// Address ranges a fetch may not reach, parsed on first use: every range
// of the IANA special-purpose registries that is not globally reachable,
// plus multicast, and the IPv6 forms that carry an IPv4 address the
// fetcher cannot vouch for.
var (
	blockedV4 = sync.OnceValue(func() []netip.Prefix {
		return prefixes("0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16", "172.16.0.0/12",
			"192.0.0.0/24", "192.0.2.0/24", "192.88.99.0/24", "192.168.0.0/16", "198.18.0.0/15", "198.51.100.0/24",
			"203.0.113.0/24", "224.0.0.0/4", "240.0.0.0/4") // 240/4 holds the broadcast address
	})
	blockedV6 = sync.OnceValue(func() []netip.Prefix {
		return prefixes(
			"::/96",           // IPv4-compatible (deprecated); holds :: and ::1
			"::ffff:0:0:0/96", // IPv4-translated
			"64:ff9b:1::/48",  // local-use NAT64: never globally reachable, whatever it embeds
			"100::/64",        // discard-only
			"2001::/32",       // Teredo: the client's IPv4 address is hidden in it
			"2001:2::/48",     // benchmarking
			"2001:10::/28",    // ORCHID (deprecated)
			"2001:db8::/32",   // documentation
			"3fff::/20",       // documentation
			"5f00::/16",       // SRv6 SIDs
			"fc00::/7",        // unique local
			"fe80::/10",       // link-local
			"fec0::/10",       // site-local (deprecated)
			"ff00::/8",        // multicast
		)
	})
	nat64Prefix = netip.MustParsePrefix("64:ff9b::/96")
	sixToFour   = netip.MustParsePrefix("2002::/16")
)

func prefixes(ss ...string) []netip.Prefix {
	out := make([]netip.Prefix, len(ss))
	for i, s := range ss {
		out[i] = netip.MustParsePrefix(s)
	}
	return out
}

// publicAddr reports whether ip may be fetched from: not in a blocked
// range, and, for IPv4-mapped, NAT64 (64:ff9b::/96) and 6to4 (2002::/16)
// addresses, the IPv4 address they embed is public too.
func publicAddr(ip netip.Addr) bool {
	if !ip.IsValid() {
		return false
	}
	ip = ip.WithZone("") // a zoned address matches no prefix
	if ip.Is4In6() {
		return publicAddr(ip.Unmap())
	}
	blocked := blockedV6()
	if ip.Is4() {
		blocked = blockedV4()
	}
	for _, p := range blocked {
		if p.Contains(ip) {
			return false
		}
	}
	b := ip.As16()
	switch {
	case nat64Prefix.Contains(ip):
		return publicAddr(netip.AddrFrom4([4]byte(b[12:16])))
	case sixToFour.Contains(ip):
		return publicAddr(netip.AddrFrom4([4]byte(b[2:6])))
	}
	return true
}

// allowed reports whether this fetcher may connect to ip.
func (f *LocalFetcher) allowed(ip netip.Addr) bool {
	if f.opts.AllowPrivateNetworks || publicAddr(ip) {
		return true
	}
	for _, p := range f.opts.Allow {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}

// dialControl checks the address of every socket as it connects, whatever
// resolved it: the last word over redirects and DNS answers.
func (f *LocalFetcher) dialControl(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("refusing to connect to %s: not an IP address", address)
	}
	if !f.allowed(ap.Addr()) {
		return fmt.Errorf("refusing to connect to %s: it is not a public address", ap.Addr())
	}
	return nil
}

// resolve looks addr's host up and returns the address to connect to,
// refusing non-public answers.
func (f *LocalFetcher) resolve(ctx context.Context, addr string) (netip.Addr, string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return netip.Addr{}, "", err
	}
	var ips []netip.Addr
	if ip, err := netip.ParseAddr(host); err == nil {
		ips = []netip.Addr{ip}
	} else {
		ips, err = f.opts.Resolver.LookupNetIP(ctx, "ip", host)
		if err != nil {
			return netip.Addr{}, "", err
		}
	}
	if len(ips) == 0 {
		return netip.Addr{}, "", fmt.Errorf("%s has no address", host)
	}
	for _, ip := range ips {
		if !f.allowed(ip) {
			return netip.Addr{}, "", fmt.Errorf("refusing to connect to %s: %s is not a public address", host, ip)
		}
	}
	return ips[0], port, nil
}

// checkURL refuses what may never be fetched, before any connection.
func (f *LocalFetcher) checkURL(u *url.URL) error {
	if u.Scheme != "http" && u.Scheme != "https" {
		return messageError(fmt.Sprintf("Unsupported URL scheme %q — only http(s) allowed.", u.Scheme))
	}
	host := strings.ToLower(strings.TrimSuffix(u.Hostname(), "."))
	if host == "" {
		return errors.New("the URL has no host")
	}
	if _, err := netip.ParseAddr(host); err != nil {
		// 134744072 or 0x7f.1 is an address to a C resolver and a name to
		// Go's: it is read as the address the URL rules matched, or refused.
		if ip, numeric := workspace.LegacyIPv4(host); numeric {
			if !ip.IsValid() {
				return fmt.Errorf("refusing to fetch %s: it is neither a name nor an IPv4 address", host)
			}
			host = ip.String()
			if p := u.Port(); p != "" {
				u.Host = net.JoinHostPort(host, p)
			} else {
				u.Host = host
			}
		}
	}
	if esc := u.EscapedPath(); workspace.RemoveDotSegments(esc) != esc {
		// The path the URL rules matched, not one a server resolves to
		// another page: /docs/../admin is sent as /admin.
		clean := workspace.RemoveDotSegments(esc)
		dec, err := url.PathUnescape(clean)
		if err != nil {
			return fmt.Errorf("bad URL path %q: %w", esc, err)
		}
		u.Path, u.RawPath = dec, clean
	}
	if f.opts.AllowPrivateNetworks {
		return nil
	}
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return fmt.Errorf("refusing to fetch %s: it is a local address", host)
	}
	if ip, err := netip.ParseAddr(host); err == nil && !f.allowed(ip) {
		return fmt.Errorf("refusing to fetch %s: it is not a public address", host)
	}
	return nil
}

// Fetch implements URLFetcher.
func (f *LocalFetcher) Fetch(ctx context.Context, rawURL string) (FetchedPage, error) {
	ctx, cancel := context.WithTimeout(ctx, f.opts.Timeout)
	defer cancel()
	u, err := url.Parse(rawURL)
	if err != nil {
		return FetchedPage{}, fmt.Errorf("invalid URL: %w", err)
	}
	first := u
	for hop := 0; ; hop++ {
		if err := f.checkURL(u); err != nil {
			return FetchedPage{}, err
		}
		resp, err := f.get(ctx, u)
		if err != nil {
			return FetchedPage{}, err
		}
		switch resp.StatusCode {
		case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther,
			http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
			loc := resp.Header.Get("Location")
			_ = resp.Body.Close() // the redirect body is not needed
			if hop == fetchMaxRedirects {
				return FetchedPage{}, fmt.Errorf("more than %d redirects", fetchMaxRedirects)
			}
			next, err := u.Parse(loc)
			if err != nil || loc == "" {
				return FetchedPage{}, fmt.Errorf("bad redirect location %q", loc)
			}
			if !f.opts.CrossHostRedirects && !sameFetchHost(first, next) {
				return FetchedPage{}, &FetchRedirectError{URL: next.String()}
			}
			u = next
			continue
		}
		defer resp.Body.Close() // read-only
		return decodeResponse(resp)
	}
}

// sameFetchHost reports whether next is on first's origin, or is its
// https upgrade (http://h to https://h, default ports), as the URL rules
// compare them (workspace.URLOriginRule).
func sameFetchHost(first, next *url.URL) bool {
	a := workspace.URLOriginRule("", first.String())
	b := workspace.URLOriginRule("", next.String())
	if a == b {
		return true
	}
	if strings.EqualFold(first.Scheme, "http") && first.Port() == "" && next.Port() == "" {
		up := *first
		up.Scheme = "https"
		return workspace.URLOriginRule("", up.String()) == b
	}
	return false
}

func (f *LocalFetcher) get(ctx context.Context, u *url.URL) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("User-Agent", fetchUserAgent)
	req.Header.Set("Accept", "text/html,application/xhtml+xml,text/plain,text/markdown;q=0.9,*/*;q=0.5")
	resp, err := f.client.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			return nil, ue.Err
		}
		return nil, err
	}
	return resp, nil
}

func decodeResponse(resp *http.Response) (FetchedPage, error) {
	if resp.StatusCode >= 400 {
		return FetchedPage{}, &FetchStatusError{StatusCode: resp.StatusCode, Status: resp.Status}
	}
	if resp.ContentLength > FetchMaxBytes {
		return FetchedPage{}, fmt.Errorf("the response is %d bytes, more than the %d MiB limit", resp.ContentLength, FetchMaxBytes>>20)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, FetchMaxBytes+1))
	if err != nil {
		return FetchedPage{}, fmt.Errorf("read body: %w", err)
	}
	if len(body) > FetchMaxBytes {
		return FetchedPage{}, fmt.Errorf("the response is more than the %d MiB limit", FetchMaxBytes>>20)
	}
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if mt == "" {
		mt, _, _ = mime.ParseMediaType(http.DetectContentType(body))
	}
	switch {
	case mt == "text/html" || mt == "application/xhtml+xml":
		return FetchedPage{Content: ExtractHTMLText(body), Kind: FetchExtracted}, nil
	case strings.HasPrefix(mt, "text/") || strings.HasSuffix(mt, "json") || strings.HasSuffix(mt, "xml") ||
		mt == "application/javascript":
		if !utf8.Valid(body) {
			body = []byte(strings.ToValidUTF8(string(body), "\uFFFD"))
		}
		return FetchedPage{Content: string(body), Kind: FetchPassthrough}, nil
	}
	return FetchedPage{}, fmt.Errorf("the response is %s, which is not text", mt)
}
