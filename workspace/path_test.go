package workspace_test

import (
	"testing"

	"github.com/kimigo/kimigo/osenv/osenvtest"
	"github.com/kimigo/kimigo/workspace"
)

func TestResolvePath(t *testing.T) {
	env := osenvtest.New(osenvtest.Options{})
	ws := workspace.Dirs{Dir: "/ws", AdditionalDirs: []string{"/extra"}}
	for _, tt := range []struct {
		name, raw string
		intent    workspace.PathIntent
		want      string
		outside   bool
		err       string
	}{
		{"relative inside", "src/../a.go", workspace.IntentRead, "/ws/a.go", false, ""},
		{"home", "~/n.txt", workspace.IntentRead, "/home/user/n.txt", true, ""},
		{"absolute outside is allowed", "/etc/hosts", workspace.IntentWrite, "/etc/hosts", true, ""},
		{"additional dir", "/extra/x", workspace.IntentWrite, "/extra/x", false, ""},
		{"prefix is not containment", "/ws-evil/x", workspace.IntentRead, "/ws-evil/x", true, ""},
		{"relative escape", "../x", workspace.IntentSearch, "", false, `"../x" is not an absolute path. You must provide an absolute path to search outside the working directory.`},
		{"empty", "", workspace.IntentRead, "", false, "Path cannot be empty"},
		{"sensitive", "config/.env.local", workspace.IntentRead, "", false, `"config/.env.local" matches a sensitive-file pattern (env / credential / SSH key). Access is blocked to protect secrets.`},
		{"search skips the sensitive check", ".env", workspace.IntentSearch, "/ws/.env", false, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := workspace.ResolvePath(env, ws, tt.raw, tt.intent)
			if tt.err != "" {
				if err == nil || err.Error() != tt.err {
					t.Fatalf("err = %v; want %q", err, tt.err)
				}
				var pe *workspace.PathError
				if !asPathError(err, &pe) || !pe.Verbatim() {
					t.Errorf("error %T is not a verbatim *PathError", err)
				}
				return
			}
			if err != nil || got.Path != tt.want || got.Outside != tt.outside || got.Raw != tt.raw {
				t.Errorf("ResolvePath(%q) = %+v, %v; want %s outside=%v", tt.raw, got, err, tt.want, tt.outside)
			}
		})
	}
}

func asPathError(err error, target **workspace.PathError) bool {
	pe, ok := err.(*workspace.PathError)
	*target = pe
	return ok
}

func TestIsSensitive(t *testing.T) {
	for p, want := range map[string]bool{
		"/ws/.env": true, "/ws/.ENV": true, "/ws/.env.local": true, "/ws/.env.production": true,
		"/ws/.env.example": false, "/ws/.env.sample": false, "/ws/.env.template": false,
		"/h/.ssh/id_rsa": true, "/h/.ssh/id_rsa.pub": false, "/h/.ssh/id_ed25519_backup": true,
		"/h/.ssh/id_ecdsa.old": true, "/h/id_rsafoo": false, "/h/credentials": true, "/h/credentials-prod": true,
		"/h/credentials.json": false, "/h/.aws/credentials": true, "/h/.gcp/credentials/x.json": true,
		`C:\h\.aws\credentials`: true, "/ws/main.go": false, "/ws/env": false, "/h/id_rsa.pem": true,
		// token stores (issue 16 item 5)
		"/h/.git-credentials": true, "/h/.netrc": true, "/h/.npmrc": true, "/h/.config/gh/hosts.yml": true,
		"/h/.kube/config": true, "/h/.docker/config.json": true, "/h/.kube/cache/x": false, "/h/.config/gh/config.yml": false,
	} {
		if got := workspace.IsSensitive(p); got != want {
			t.Errorf("IsSensitive(%q) = %v; want %v", p, got, want)
		}
	}
	globs := workspace.SensitiveExcludeGlobs()
	if globs[0] != "**/.env" || len(globs) != 1+4*(2+10)+2*8 {
		t.Errorf("globs = %d: %v", len(globs), globs[:3])
	}
}

func TestRuleMatching(t *testing.T) {
	if got := workspace.EscapeRule(`a*b?(c)[d]{e}!+@|\`); got != `a\*b\?\(c\)\[d\]\{e\}\!\+\@\|\\` {
		t.Errorf("EscapeRule = %q", got)
	}
	m := workspace.StringRuleMatcher("git status")
	for rule, want := range map[string]bool{"": true, "git *": true, "git": false, "!rm *": true, "!git *": false, "{git,hg} status": true} {
		if got := m(rule); got != want {
			t.Errorf("rule %q on 'git status' = %v; want %v", rule, got, want)
		}
	}
	if workspace.StringRuleMatcher("cat a/b")("cat *") {
		t.Error("* crossed a slash")
	}
	env := osenvtest.New(osenvtest.Options{})
	ws := workspace.Dirs{Dir: "/ws"}
	p, _ := workspace.ResolvePath(env, ws, "src/A.go", workspace.IntentRead)
	pm := workspace.PathRuleMatcher(env, ws, p)
	for rule, want := range map[string]bool{"src/*.go": true, "/ws/**": true, "/ws/src/a.GO": true, "./src/a.go": true, "/other/**": false, "*.go": false} {
		if got := pm(rule); got != want {
			t.Errorf("path rule %q on src/A.go = %v; want %v", rule, got, want)
		}
	}
}
