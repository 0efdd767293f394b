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
	"time"
	"unicode/utf8"
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
	// AllowPrivateNetworks lifts the refusal of loopback, private and
	// link-local addresses. Only tests against an httptest server set it.
	AllowPrivateNetworks bool
	// Resolver looks host names up; nil means net.DefaultResolver.
	Resolver *net.Resolver
	// Timeout bounds one fetch, redirects included; 0 means 30 s.
	Timeout time.Duration
}

// LocalFetcher fetches public http(s) pages itself. It refuses other
// schemes and every address that is not public (checked on each DNS answer
// and pinned for the connection, so a rebinding name cannot slip through),
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
	dialer := &net.Dialer{Timeout: 10 * time.Second}
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

// blockedPrefixes are the address ranges a fetch may not reach; parsed on
// first use.
var blockedPrefixes = sync.OnceValue(func() []netip.Prefix {
	var out []netip.Prefix
	for _, s := range []string{"0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16",
		"172.16.0.0/12", "192.168.0.0/16", "::/128", "::1/128", "fc00::/7", "fe80::/10"} {
		out = append(out, netip.MustParsePrefix(s))
	}
	return out
})

func blockedAddr(ip netip.Addr) bool {
	ip = ip.Unmap()
	for _, p := range blockedPrefixes() {
		if p.Contains(ip) {
			return true
		}
	}
	return false
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
	if !f.opts.AllowPrivateNetworks {
		for _, ip := range ips {
			if blockedAddr(ip) {
				return netip.Addr{}, "", fmt.Errorf("refusing to connect to %s: %s is not a public address", host, ip)
			}
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
	if f.opts.AllowPrivateNetworks {
		return nil
	}
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return fmt.Errorf("refusing to fetch %s: it is a local address", host)
	}
	if ip, err := netip.ParseAddr(host); err == nil && blockedAddr(ip) {
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
			u = next
			continue
		}
		defer resp.Body.Close() // read-only
		return decodeResponse(resp)
	}
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
