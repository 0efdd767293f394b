package tools_test

import (
	"testing"

	"github.com/kimigo/kimigo/osenv/osenvtest"
	"github.com/kimigo/kimigo/tools"
)

func TestResolvePath(t *testing.T) {
	env := osenvtest.New(osenvtest.Options{})
	ws := tools.Workspace{Dir: "/ws", AdditionalDirs: []string{"/extra"}}
	for _, tt := range []struct {
		name, raw string
		intent    tools.PathIntent
		want      string
		outside   bool
		err       string
	}{
		{"relative inside", "src/../a.go", tools.IntentRead, "/ws/a.go", false, ""},
		{"home", "~/n.txt", tools.IntentRead, "/home/user/n.txt", true, ""},
		{"absolute outside is allowed", "/etc/hosts", tools.IntentWrite, "/etc/hosts", true, ""},
		{"additional dir", "/extra/x", tools.IntentWrite, "/extra/x", false, ""},
		{"prefix is not containment", "/ws-evil/x", tools.IntentRead, "/ws-evil/x", true, ""},
		{"relative escape", "../x", tools.IntentSearch, "", false, `"../x" is not an absolute path. You must provide an absolute path to search outside the working directory.`},
		{"empty", "", tools.IntentRead, "", false, "Path cannot be empty"},
		{"sensitive", "config/.env.local", tools.IntentRead, "", false, `"config/.env.local" matches a sensitive-file pattern (env / credential / SSH key). Access is blocked to protect secrets.`},
		{"search skips the sensitive check", ".env", tools.IntentSearch, "/ws/.env", false, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tools.ResolvePath(env, ws, tt.raw, tt.intent)
			if tt.err != "" {
				if err == nil || err.Error() != tt.err {
					t.Fatalf("err = %v; want %q", err, tt.err)
				}
				var pe *tools.PathError
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

func asPathError(err error, target **tools.PathError) bool {
	pe, ok := err.(*tools.PathError)
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
	} {
		if got := tools.IsSensitive(p); got != want {
			t.Errorf("IsSensitive(%q) = %v; want %v", p, got, want)
		}
	}
	globs := tools.SensitiveExcludeGlobs()
	if globs[0] != "**/.env" || len(globs) != 1+4*(2+10)+4 {
		t.Errorf("globs = %d: %v", len(globs), globs[:3])
	}
}

func TestDetectFileType(t *testing.T) {
	png := []byte("\x89PNG\r\n\x1a\n....")
	for _, tt := range []struct {
		name, path string
		head       []byte
		mode       tools.DetectMode
		want       tools.FileType
	}{
		{"png magic", "a.png", png, tools.DetectText, tools.FileType{Kind: tools.KindImage, MIME: "image/png"}},
		{"text named png", "a.png", []byte("hello"), tools.DetectText, tools.FileType{Kind: tools.KindUnknown}},
		{"png magic named txt in text mode", "a.txt", png, tools.DetectText, tools.FileType{Kind: tools.KindImage, MIME: "image/png"}},
		{"png magic named jpg, media mode", "a.jpg", png, tools.DetectMedia, tools.FileType{Kind: tools.KindImage, MIME: "image/png"}},
		{"png magic named mp4, text mode", "a.mp4", png, tools.DetectText, tools.FileType{Kind: tools.KindUnknown}},
		{"video extension, media mode", "a.mkv", []byte("??"), tools.DetectMedia, tools.FileType{Kind: tools.KindVideo, MIME: "video/x-matroska"}},
		{"svg is text", "a.svg", []byte("<svg>"), tools.DetectText, tools.FileType{Kind: tools.KindText}},
		{"NUL", "a.dat", []byte("ab\x00c"), tools.DetectText, tools.FileType{Kind: tools.KindUnknown}},
		{"pdf suffix", "a.PDF", []byte("%PDF"), tools.DetectText, tools.FileType{Kind: tools.KindUnknown}},
		{"dot file", ".bashrc", []byte("x"), tools.DetectText, tools.FileType{Kind: tools.KindText}},
		{"webp", "x", []byte("RIFF\x00\x00\x00\x00WEBPVP8 "), tools.DetectMedia, tools.FileType{Kind: tools.KindImage, MIME: "image/webp"}},
		{"heic brand", "x", []byte("\x00\x00\x00\x18ftypheic"), tools.DetectMedia, tools.FileType{Kind: tools.KindImage, MIME: "image/heic"}},
		{"webm", "x", []byte("\x1a\x45\xdf\xa3....webm"), tools.DetectMedia, tools.FileType{Kind: tools.KindVideo, MIME: "video/webm"}},
	} {
		if got := tools.DetectFileType(tt.path, tt.head, tt.mode); got != tt.want {
			t.Errorf("%s: DetectFileType = %+v; want %+v", tt.name, got, tt.want)
		}
	}
}

func TestRuleMatching(t *testing.T) {
	if got := tools.EscapeRule(`a*b?(c)[d]{e}!+@|\`); got != `a\*b\?\(c\)\[d\]\{e\}\!\+\@\|\\` {
		t.Errorf("EscapeRule = %q", got)
	}
	m := tools.StringRuleMatcher("git status")
	for rule, want := range map[string]bool{"": true, "git *": true, "git": false, "!rm *": true, "!git *": false, "{git,hg} status": true} {
		if got := m(rule); got != want {
			t.Errorf("rule %q on 'git status' = %v; want %v", rule, got, want)
		}
	}
	if tools.StringRuleMatcher("cat a/b")("cat *") {
		t.Error("* crossed a slash")
	}
	env := osenvtest.New(osenvtest.Options{})
	ws := tools.Workspace{Dir: "/ws"}
	p, _ := tools.ResolvePath(env, ws, "src/A.go", tools.IntentRead)
	pm := tools.PathRuleMatcher(env, ws, p)
	for rule, want := range map[string]bool{"src/*.go": true, "/ws/**": true, "/ws/src/a.GO": true, "./src/a.go": true, "/other/**": false, "*.go": false} {
		if got := pm(rule); got != want {
			t.Errorf("path rule %q on src/A.go = %v; want %v", rule, got, want)
		}
	}
}
