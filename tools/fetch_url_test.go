package tools_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/kimigo/kimigo/tools"
)

func fetchServer(t *testing.T) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/plain", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Write([]byte("hello"))
	})
	mux.HandleFunc("/empty", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
	})
	mux.HandleFunc("/page", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte(`<html><head><title>The  Title</title><script>var x = "no";</script><style>p{}</style></head>
<body><nav>Home | About</nav><article><h2>Intro</h2><p>First   paragraph with <a href="/x">a link</a>.</p>
<ul><li>one</li><li>two</li></ul><pre>  keep
    spacing</pre></article><footer>copyright</footer></body></html>`))
	})
	mux.HandleFunc("/redirect", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/plain", http.StatusFound) })
	mux.HandleFunc("/loop", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/loop", http.StatusFound) })
	mux.HandleFunc("/binary", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		w.Write([]byte("\x89PNG"))
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func TestS89FetchURL(t *testing.T) {
	srv := fetchServer(t)
	fetch := tools.NewFetchURL(tools.NewLocalFetcher(tools.FetcherOptions{AllowPrivateNetworks: true}))
	r := call(t, fetch, `{"url":"`+srv.URL+`/plain"}`)
	if r.IsError || !strings.HasPrefix(text(r), "The returned content is the full response body, returned verbatim. ") || !strings.HasSuffix(text(r), "\n\nhello") {
		t.Errorf("passthrough = %q", text(r))
	}
	wantError(t, call(t, fetch, `{"url":"`+srv.URL+`/missing"}`), "Failed to fetch URL. Status: 404. HTTP 404 Not Found")
	wantOK(t, call(t, fetch, `{"url":"`+srv.URL+`/empty"}`), "The response body is empty.")
	if r := call(t, fetch, `{"url":"`+srv.URL+`/redirect"}`); !strings.HasSuffix(text(r), "\n\nhello") {
		t.Errorf("redirect = %q", text(r))
	}
	if r := call(t, fetch, `{"url":"`+srv.URL+`/loop"}`); !r.IsError || !strings.Contains(text(r), "redirects") {
		t.Errorf("redirect loop = %q", text(r))
	}
	if r := call(t, fetch, `{"url":"`+srv.URL+`/binary"}`); !r.IsError || !strings.Contains(text(r), "not text") {
		t.Errorf("binary = %q", text(r))
	}

	local := tools.NewFetchURL(nil)
	for _, u := range []string{"http://127.0.0.1/", srv.URL + "/plain", "http://localhost/x", "http://[::1]/", "http://10.1.2.3/", "http://[::ffff:192.168.0.1]/"} {
		r := call(t, local, `{"url":"`+u+`"}`)
		if !r.IsError || !strings.HasPrefix(text(r), "Failed to fetch URL due to network error: "+u+". ") {
			t.Errorf("%s = %q; want a refusal", u, text(r))
		}
	}
	wantError(t, call(t, local, `{"url":"file:///etc/passwd"}`),
		`Failed to fetch URL due to network error: file:///etc/passwd. Unsupported URL scheme "file" — only http(s) allowed.`)
}

func TestFetchURLExtractsReadableText(t *testing.T) {
	srv := fetchServer(t)
	f := tools.NewLocalFetcher(tools.FetcherOptions{AllowPrivateNetworks: true})
	page, err := f.Fetch(t.Context(), srv.URL+"/page")
	if err != nil {
		t.Fatal(err)
	}
	want := "# The Title\n\n## Intro\n\nFirst paragraph with a link.\n\n- one\n\n- two\n\n  keep\n    spacing"
	if page.Kind != tools.FetchExtracted || page.Content != want {
		t.Errorf("extracted %s:\n%q\nwant\n%q", page.Kind, page.Content, want)
	}
	r := call(t, tools.NewFetchURL(f), `{"url":"`+srv.URL+`/page"}`)
	if !strings.HasPrefix(text(r), "The returned content is the main text extracted from the page. ") {
		t.Errorf("extracted lead = %q", text(r))
	}
}

func TestFetchURLResolveIsPure(t *testing.T) {
	called := false
	fetch := tools.NewFetchURL(fetcherFunc(func(context.Context, string) (tools.FetchedPage, error) {
		called = true
		return tools.FetchedPage{}, nil
	}))
	exec, _, err := fetch.ResolveExecution([]byte(`{"url":"https://example.com/a"}`))
	if err != nil || called {
		t.Fatalf("resolve: %v, fetched %v", err, called)
	}
	if exec.ApprovalRule != "FetchURL(https://example.com/*)" || exec.Description != "Fetching: https://example.com/a" || len(exec.Accesses) != 0 || exec.Accesses == nil {
		t.Errorf("execution = %+v", exec)
	}
	// The host rule an approval writes matches the host's pages and no
	// other host's.
	for rule, want := range map[string]bool{"https://example.com/*": true, "https://example.com/a": true,
		"https://example.org/*": false, "http://example.com/*": false, "https://*.example.com/*": false} {
		if got := exec.MatchesRule(rule); got != want {
			t.Errorf("MatchesRule(%q) = %v; want %v", rule, got, want)
		}
	}
}

type fetcherFunc func(context.Context, string) (tools.FetchedPage, error)

func (f fetcherFunc) Fetch(ctx context.Context, u string) (tools.FetchedPage, error) {
	return f(ctx, u)
}
