package workspace_test

import (
	"testing"

	"github.com/kimigo/kimigo/workspace"
)

func TestURLOriginRule(t *testing.T) {
	for _, tt := range []struct{ url, want string }{
		{"https://example.com/a/b?c=d#e", "FetchURL(https://example.com/*)"},
		{"https://Example.COM.", "FetchURL(https://example.com/*)"},
		{"https://example.com:443/x", "FetchURL(https://example.com/*)"},
		{"http://example.com:80/x", "FetchURL(http://example.com/*)"},
		{"https://example.com:8443/x", "FetchURL(https://example.com:8443/*)"},
		{"http://user:pw@example.com/x", "FetchURL(http://example.com/*)"},
		{"http://[2606:4700:0::1]:8080/x", `FetchURL(http://\[2606:4700::1\]:8080/*)`},
		{"https://ＥＸＡＭＰＬＥ.com/x", "FetchURL(https://example.com/*)"},
		{"https://bücher.example/x", "FetchURL(https://xn--bcher-kva.example/*)"},
		{"ftp://example.com/x", "FetchURL(ftp://example.com/x)"},
		{"not a url (x)", `FetchURL(not a url \(x\))`},
	} {
		if got := workspace.URLOriginRule("FetchURL", tt.url); got != tt.want {
			t.Errorf("URLOriginRule(%q) = %q; want %q", tt.url, got, tt.want)
		}
	}
}

func TestURLRuleMatcher(t *testing.T) {
	for _, tt := range []struct {
		name, url, rule string
		want            bool
	}{
		{"host rule covers a page", "https://example.com/a", "https://example.com/*", true},
		{"host rule covers nested paths and queries", "https://example.com/a/b/c?d=e/f", "https://example.com/*", true},
		{"host rule covers the bare origin", "https://example.com", "https://example.com/*", true},
		{"host case and trailing dot", "HTTPS://EXAMPLE.com./x", "https://example.com/*", true},
		{"default port", "https://example.com:443/x", "https://example.com/*", true},
		{"rule spelled in capitals", "https://example.com/x", "https://Example.com/*", true},
		{"user info is not the host", "https://example.com@evil.net/", "https://example.com/*", false},
		{"other port", "https://example.com:8443/", "https://example.com/*", false},
		{"other scheme", "http://example.com/", "https://example.com/*", false},
		{"longer host", "https://example.com.evil.net/", "https://example.com/*", false},
		{"host in the query", "https://evil.net/?https://example.com/", "https://example.com/*", false},
		{"host in the path", "https://evil.net/https://example.com/", "https://example.com/*", false},
		{"subdomain glob", "https://docs.example.com/x", "https://*.example.com/*", true},
		{"subdomain glob does not reach the path", "https://evil.net/.example.com/x", "https://*.example.com/*", false},
		{"path prefix", "https://example.com/docs/a/b", "https://example.com/docs/*", true},
		{"path prefix elsewhere", "https://example.com/admin", "https://example.com/docs/*", false},
		{"decoded path is seen by a deny rule", "https://example.com/%61dmin/x", "https://example.com/admin/*", true},
		{"literal approval rule", "https://example.com/a?b", workspace.EscapeRule("https://example.com/a?b"), true},
		{"literal approval rule is literal", "https://example.com/ab", workspace.EscapeRule("https://example.com/a?b"), false},
		{"origin-only rule is the root page", "https://example.com/", "https://example.com", true},
		{"origin-only rule is not another page", "https://example.com/x", "https://example.com", false},
		{"whole-URL glob", "https://example.com/a/b", "*", true},
		{"negation", "https://evil.net/", "!https://example.com/*", true},
		{"negation of a match", "https://example.com/a", "!https://example.com/*", false},
		{"broken glob matches nothing", "https://example.com/a", "https://[z-a]/*", false},
		{"fullwidth host is the ASCII host net/http connects to", "https://ＥＸＡＭＰＬＥ.com/x", "https://example.com/*", true},
		{"IDN host in Unicode meets a punycode rule", "https://bücher.example/x", "https://xn--bcher-kva.example/*", true},
		{"IDN host in punycode meets a Unicode rule", "https://xn--bcher-kva.example/x", "https://bücher.example/*", true},
		{"IDN host in Unicode meets a Unicode rule", "https://bücher.example/x", "https://bücher.example/*", true},
		{"IDN host is not another host", "https://bucher.example/x", "https://bücher.example/*", false},
		{"dot segments reach a deny rule", "https://example.com/docs/../admin/x", "https://example.com/admin/*", true},
		{"encoded dot segments reach a deny rule", "https://example.com/docs/%2e%2E/admin/x", "https://example.com/admin/*", true},
		{"dot segments leave an allowed prefix", "https://example.com/docs/../admin/x", "https://example.com/docs/*", false},
		{"a single dot segment", "https://example.com/./admin/./x", "https://example.com/admin/x", true},
		{"dot segments above the root", "https://example.com/../../admin", "https://example.com/admin", true},
		{"decimal IPv4 host is its address", "http://134744072/x", "http://8.8.8.8/*", true},
		{"hex and short IPv4 host is its address", "http://0x8.0x8.2056/x", "http://8.8.8.8/*", true},
		{"octal IPv4 host is its address", "http://010.010.010.010/x", "http://8.8.8.8/*", true},
		{"ipv6 origin rule", "http://[2606:4700::1]:8080/y", `http://\[2606:4700::1\]:8080/*`, true},
		{"unparsable URL as written", "file:///etc/passwd", "file:///etc/passwd", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := workspace.URLRuleMatcher(tt.url)(tt.rule); got != tt.want {
				t.Errorf("URLRuleMatcher(%q)(%q) = %v; want %v", tt.url, tt.rule, got, tt.want)
			}
		})
	}
}
