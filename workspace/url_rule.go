package workspace

import (
	"net"
	"net/netip"
	"net/url"
	"strings"

	"golang.org/x/net/idna"
)

// URL rule matching (FetchURL(...) rules). A URL is matched as the fetcher
// reads it, not as the model spelled it: scheme and host lower-cased, a
// trailing dot and a default port dropped, user info and fragment dropped,
// an empty path read as "/". A rule argument of the form
// "scheme://host[:port]/path" is matched in two parts: the origin as a
// whole, case-insensitively, and the path and query; in both "*" matches
// any characters, "/" included (like a Bash rule, ERRATA 35), so
// FetchURL(https://example.com/*) covers every page of that host and
// nothing of any other host, port or scheme (a query or path that spells
// another host stays in the path part). An argument without "://" is a
// glob over the whole normalized URL.

// urlRuleSlash and urlRuleLead stand for "/" and the start of the text, so
// that the glob engine's "*" crosses slashes and leading dots (see the Bash
// command patterns in agent/permission).
const (
	urlRuleSlash = "\x01"
	urlRuleLead  = "\x02"
)

// fetchURL is a URL split the way rules match it.
type fetchURL struct {
	origins []string // scheme://host[:port], no trailing slash; the fetched spelling first
	paths   []string
}

// parseFetchURL normalizes an http(s) URL; ok is false for anything the
// fetcher would refuse to parse.
func parseFetchURL(raw string) (fetchURL, bool) {
	origin, u, ok := urlOrigin(raw)
	if !ok {
		return fetchURL{}, false
	}
	origins := []string{origin}
	if host := u.Hostname(); strings.Contains(host, "xn--") || !isASCII(host) {
		scheme, hostPort, _ := strings.Cut(origin, "://")
		h, port, err := net.SplitHostPort(hostPort)
		if err != nil {
			h, port = hostPort, ""
		}
		if uni, err := idna.Lookup.ToUnicode(h); err == nil && uni != h {
			if port != "" {
				uni = net.JoinHostPort(uni, port)
			}
			origins = append(origins, scheme+"://"+uni) // a rule may name an IDN host in Unicode
		}
	}
	query := ""
	if u.RawQuery != "" || u.ForceQuery {
		query = "?" + u.RawQuery
	}
	esc := RemoveDotSegments(u.EscapedPath())
	if esc == "" {
		esc = "/"
	}
	f := fetchURL{origins: origins, paths: []string{esc + query}}
	if dec, err := url.PathUnescape(esc); err == nil && dec != esc {
		f.paths = append(f.paths, dec+query) // a deny rule must see the decoded spelling too
	}
	return f, true
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// urlOrigin returns scheme://host[:port] of an http(s) URL in the form the
// fetcher connects to.
func urlOrigin(raw string) (string, *url.URL, bool) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", nil, false
	}
	scheme := strings.ToLower(u.Scheme)
	if scheme != "http" && scheme != "https" {
		return "", nil, false
	}
	host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	if host == "" {
		return "", nil, false
	}
	if ascii, err := idna.Lookup.ToASCII(host); err == nil {
		host = ascii // what net/http connects to: ＥＸＡＭＰＬＥ.com is example.com, évil.com xn--vil-bma.com
	}
	if ip, err := netip.ParseAddr(host); err == nil {
		host = ip.String() // one spelling per address: [2606:4700:0::1] is [2606:4700::1]
	} else if ip, numeric := LegacyIPv4(host); numeric {
		if !ip.IsValid() {
			return "", nil, false // the fetcher refuses it
		}
		host = ip.String() // what the fetcher connects to: 134744072 is 8.8.8.8
	}
	port := u.Port()
	if scheme == "http" && port == "80" || scheme == "https" && port == "443" {
		port = ""
	}
	origin := scheme + "://"
	switch {
	case port != "":
		origin += net.JoinHostPort(host, port)
	case strings.Contains(host, ":"):
		origin += "[" + host + "]"
	default:
		origin += host
	}
	return origin, u, true
}

// URLOriginRule is the rule an "approve for this session" of a fetch
// stands for: every page of the URL's origin, Tool(scheme://host[:port]/*).
// A URL that does not parse as http(s) gets its literal rule.
func URLOriginRule(tool, rawURL string) string {
	origin, _, ok := urlOrigin(rawURL)
	if !ok {
		return ApprovalRule(tool, rawURL)
	}
	return tool + "(" + EscapeRule(origin) + "/*)"
}

// URLRuleMatcher returns an Execution.MatchesRule for a URL subject (see
// the comment at the top of this file). A leading "!" negates; an argument
// that does not compile matches nothing. A URL that does not parse as
// http(s) is matched as written, the way StringRuleMatcher does.
func URLRuleMatcher(rawURL string) func(string) bool {
	f, ok := parseFetchURL(rawURL)
	if !ok {
		return StringRuleMatcher(rawURL)
	}
	return func(ruleArgs string) bool {
		return negatable(ruleArgs, func(pat string) (bool, error) {
			originPat, pathPat, split := splitURLPattern(pat)
			for _, origin := range f.origins {
				if !split {
					for _, p := range f.paths {
						hit, err := matchAnyGlob(pat, origin+p, false)
						if hit || err != nil {
							return hit, err
						}
					}
					continue
				}
				hit, err := matchAnyGlob(originPat, origin, true)
				if err != nil {
					return false, err
				}
				if !hit {
					continue
				}
				for _, p := range f.paths {
					hit, err := matchAnyGlob(pathPat, p, false)
					if hit || err != nil {
						return hit, err
					}
				}
			}
			return false, nil
		})
	}
}

// splitURLPattern cuts "scheme://authority/rest" into the origin pattern
// and the path pattern ("/rest", or "/" when there is none). A pattern
// without "://" does not split.
func splitURLPattern(pat string) (origin, rest string, ok bool) {
	i := strings.Index(pat, "://")
	if i < 0 {
		return "", "", false
	}
	for j := i + 3; j < len(pat); j++ {
		switch pat[j] {
		case '\\':
			j++ // an escaped character is never the separator
		case '/':
			return pat[:j], pat[j:], true
		}
	}
	return pat, "/", true
}

// matchAnyGlob matches a rule glob in which "*" crosses "/" and leading
// dots; fold ignores case.
func matchAnyGlob(pattern, value string, fold bool) (bool, error) {
	return matchRuleGlob(urlRuleLead+strings.ReplaceAll(pattern, "/", urlRuleSlash),
		urlRuleLead+strings.ReplaceAll(value, "/", urlRuleSlash), fold)
}

// RemoveDotSegments resolves the "." and ".." segments of an escaped URL
// path (RFC 3986 §5.2.4), "%2e" counting as a dot as browsers count it,
// so that a path rule sees the page a server serves: /docs/../admin is
// /admin. The fetcher sends the path it returns.
func RemoveDotSegments(escaped string) string {
	if !strings.Contains(escaped, ".") && !strings.Contains(strings.ToLower(escaped), "%2e") {
		return escaped
	}
	dot := func(s string) string { return strings.ReplaceAll(strings.ReplaceAll(s, "%2e", "."), "%2E", ".") }
	segs := strings.Split(escaped, "/")
	var out []string
	for i, s := range segs {
		last := i == len(segs)-1
		switch dot(s) {
		case ".":
			if last {
				out = append(out, "")
			}
		case "..":
			if len(out) > 1 {
				out = out[:len(out)-1]
			}
			if last {
				out = append(out, "")
			}
		default:
			out = append(out, s)
		}
	}
	if len(out) == 0 || out[0] != "" {
		out = append([]string{""}, out...)
	}
	if len(out) == 1 {
		return "/"
	}
	return strings.Join(out, "/")
}
