package permission_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kimigo/kimigo/agent/permission"
	"github.com/kimigo/kimigo/event"
)

func fetchArgs(url string) string { return `{"url":"` + url + `"}` }

// TestFetchURLAsksOncePerHostInManualMode: in manual mode the first fetch
// of a host asks; "approve for this session" covers that scheme, host and
// port only (issue 16 item 5).
func TestFetchURLAsksOncePerHostInManualMode(t *testing.T) {
	r := newRig(t, withMode(permission.ModeManual), withAnswers(answer(event.ApproveSession)))
	if got := r.judge("FetchURL", fetchArgs("https://example.com/docs/a")); got != asked {
		t.Fatalf("first fetch of the host = %s; want an ask", got)
	}
	if got := r.decidedBy(); got != "fetch-url-host-ask" {
		t.Errorf("decided by %s", got)
	}
	if p := r.m.SessionPatterns(); len(p) != 1 || p[0] != "FetchURL(https://example.com/*)" {
		t.Errorf("session patterns %q", p)
	}
	for _, tt := range []struct {
		url  string
		want outcome
	}{
		{"https://example.com/docs/a", approved},
		{"https://example.com/other/page?q=a/b", approved},
		{"https://example.com", approved},
		{"HTTPS://Example.COM./x", approved},
		{"https://example.com:443/x", approved},
		{"https://example.org/", asked},
		{"http://example.com/", asked},
		{"https://example.com:8443/", asked},
		{"https://example.com.evil.net/", asked},
		{"https://www.example.com/", asked},
		{"https://example.com@evil.net/", asked},
		{"https://evil.net/?u=https://example.com/", asked},
		{"https://evil.net/https://example.com/x", asked},
	} {
		if got := r.judge("FetchURL", fetchArgs(tt.url)); got != tt.want {
			t.Errorf("%s = %s; want %s", tt.url, got, tt.want)
		}
	}
}

// TestFetchURLApprovedOnceStillAsks: approving one fetch once approves
// nothing else of the host.
func TestFetchURLApprovedOnceStillAsks(t *testing.T) {
	r := newRig(t, withMode(permission.ModeManual))
	for i := range 2 {
		if got := r.judge("FetchURL", fetchArgs("https://example.com/a")); got != asked {
			t.Errorf("fetch %d = %s; want an ask", i, got)
		}
	}
	if p := r.m.SessionPatterns(); len(p) != 0 {
		t.Errorf("session patterns %q", p)
	}
}

// TestFetchURLByMode: auto and yolo keep running fetches without asking;
// rules match the host the fetcher reaches, not the spelling.
func TestFetchURLByMode(t *testing.T) {
	allow, deny := permission.DecisionAllow, permission.DecisionDeny
	for _, tt := range []struct {
		name string
		mode permission.Mode
		opts []rigOption
		url  string
		want outcome
	}{
		{name: "auto runs it", mode: permission.ModeAuto, url: "https://example.com/a", want: approved},
		{name: "yolo runs it", mode: permission.ModeYolo, url: "https://example.com/a", want: approved},
		{name: "manual asks", mode: permission.ModeManual, url: "https://example.com/a", want: asked},
		{name: "manual with a host allow rule", mode: permission.ModeManual,
			opts: []rigOption{withRules(rule(allow, "FetchURL(https://example.com/*)"))}, url: "https://example.com/a/b?c", want: approved},
		{name: "host allow rule leaves other hosts asking", mode: permission.ModeManual,
			opts: []rigOption{withRules(rule(allow, "FetchURL(https://example.com/*)"))}, url: "https://example.com.evil.net/a", want: asked},
		{name: "a bare FetchURL allow rule", mode: permission.ModeManual,
			opts: []rigOption{withRules(rule(allow, "FetchURL"))}, url: "https://example.com/a", want: approved},
		{name: "deny rule sees through spelling", mode: permission.ModeYolo,
			opts: []rigOption{withRules(rule(deny, "FetchURL(https://evil.net/*)"))}, url: "HTTPS://Evil.NET:443/x/y", want: denied},
		{name: "deny rule in auto mode", mode: permission.ModeAuto,
			opts: []rigOption{withRules(rule(deny, "FetchURL(https://evil.net/*)"))}, url: "https://evil.net/%61/b", want: denied},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := newRig(t, append(tt.opts, withMode(tt.mode))...)
			if got := r.judge("FetchURL", fetchArgs(tt.url)); got != tt.want {
				t.Errorf("%s = %s; want %s (decided by %s)", tt.url, got, tt.want, r.decidedBy())
			}
		})
	}
}

// TestFetchURLHeadlessNamesTheHostRule: with nobody to answer, the fetch
// is denied and the text names the host rule that allows it; that rule,
// given as --allowedTools, does allow it (ERRATA 34).
func TestFetchURLHeadlessNamesTheHostRule(t *testing.T) {
	r := newRig(t, withMode(permission.ModeManual), withoutApprover())
	a, err := r.call("FetchURL", fetchArgs("https://example.com/docs/a"))
	wantBlock(t, a, err, "nobody is here to approve it", `--allowedTools "FetchURL(https://example.com/*)"`)
	if got := r.decidedBy(); got != "fetch-url-host-ask" {
		t.Errorf("decided by %s", got)
	}
	loaded, errs := permission.LoadRules([]permission.RuleSpec{{Decision: "allow", Pattern: "FetchURL(https://example.com/*)"}},
		permission.LoadOptions{})
	if len(errs) != 0 {
		t.Fatal(errs)
	}
	allowed := newRig(t, withMode(permission.ModeManual), withoutApprover(), withRules(loaded...))
	for _, u := range []string{"https://example.com/docs/a", "https://example.com/other/b"} {
		a, err := allowed.call("FetchURL", fetchArgs(u))
		wantAllow(t, a, err)
	}
	a, err = allowed.call("FetchURL", fetchArgs("https://example.org/"))
	wantBlock(t, a, err, `--allowedTools "FetchURL(https://example.org/*)"`)
}

// TestFetchURLApproveAlwaysWritesTheHostRule: "always" persists the host
// rule, which approves other pages of the host in a later session.
func TestFetchURLApproveAlwaysWritesTheHostRule(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "config.toml")
	w := &fileRuleWriter{path: cfg}
	r := newRig(t, withMode(permission.ModeManual), withWriter(w), withAnswers(answer(event.ApproveAlways)))
	if got := r.judge("FetchURL", fetchArgs("https://example.com:8443/a")); got != asked {
		t.Fatalf("first fetch = %s", got)
	}
	data, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `pattern = "FetchURL(https://example.com:8443/*)"`) {
		t.Fatalf("config.toml:\n%s", data)
	}
	recs := r.log.of(permission.TypeApprovalResult)
	if len(recs) != 1 || !strings.Contains(recs[0], `"sessionApprovalRule":"FetchURL(https://example.com:8443/*)"`) {
		t.Errorf("records %v", recs)
	}
	loaded, errs := permission.LoadRules(specsOf([]string{"FetchURL(https://example.com:8443/*)"}), permission.LoadOptions{})
	next := newRig(t, withMode(permission.ModeManual), withRules(loaded...))
	if got := next.judge("FetchURL", fetchArgs("https://example.com:8443/b/c")); got != approved || len(errs) != 0 {
		t.Errorf("next session: %s (load errors %v)", got, errs)
	}
	if got := next.judge("FetchURL", fetchArgs("https://example.com/b")); got != asked {
		t.Errorf("next session, default port: %s", got)
	}
}

// TestFetchURLSessionApprovalSurvivesResume: the host approval is a
// session record like any other.
func TestFetchURLSessionApprovalSurvivesResume(t *testing.T) {
	r := newRig(t, withMode(permission.ModeManual), withAnswers(answer(event.ApproveSession)))
	r.judge("FetchURL", fetchArgs("https://example.com/a"))
	resumed := newRig(t, withMode(permission.ModeManual))
	r.log.replay(t, resumed.m)
	if got := resumed.judge("FetchURL", fetchArgs("https://example.com/b")); got != approved {
		t.Errorf("after resume: %s", got)
	}
	if got := resumed.judge("FetchURL", fetchArgs("https://example.net/b")); got != asked {
		t.Errorf("other host after resume: %s", got)
	}
}
