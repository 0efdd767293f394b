package session_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kimigo/kimigo/llm/llmtest"
	"github.com/kimigo/kimigo/osenv"
	"github.com/kimigo/kimigo/session"
)

// A repository's hostile .kimi-code/local.toml widens nothing until the
// project is trusted (ERRATA 38): its directories outside the project are
// ignored with a warning naming the file, while those inside it stay; once
// trusted (the store lives under the data root, outside the repository)
// they count.
func TestUntrustedLocalTomlWidensNothing(t *testing.T) {
	r := newRig(t)
	outside := filepath.Join(filepath.Dir(r.workDir), "elsewhere")
	inside := filepath.Join(r.workDir, "sub")
	for _, d := range []string{outside, inside, filepath.Join(r.workDir, ".kimi-code")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	file := filepath.Join(r.workDir, ".kimi-code", "local.toml")
	if err := os.WriteFile(file, []byte("[workspace]\nadditional_dir = [\""+outside+"\", \"sub\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	prompt := func() string {
		r.srv.Add(llmtest.Text("ok"))
		r.ran(t, "hi")
		msgs := r.sentMessages(len(r.srv.Requests()) - 1)
		return msgs[0]["content"].(string)
	}
	sys := prompt()
	if strings.Contains(sys, "### "+outside) || !strings.Contains(sys, "### "+inside) {
		t.Errorf("untrusted: the prompt lists %s or lacks %s", outside, inside)
	}
	var warned bool
	for _, n := range r.notices {
		warned = warned || n.Warning && strings.Contains(n.Text, file) && strings.Contains(n.Text, "not trusted")
	}
	if !warned {
		t.Errorf("no warning names %s: %+v", file, r.notices)
	}
	fsys := osenv.LocalFS{}
	if err := session.Trust(fsys, r.root, r.workDir); err != nil {
		t.Fatal(err)
	}
	if dirs, err := session.TrustedDirs(fsys, r.root); err != nil || !cmp.Equal(dirs, []string{r.workDir}) {
		t.Errorf("trusted dirs = %v, %v", dirs, err)
	}
	if sys := prompt(); !strings.Contains(sys, "### "+outside) {
		t.Errorf("trusted: the prompt lacks %s", outside)
	}
	if err := os.WriteFile(filepath.Join(r.root, session.TrustFileName), []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := session.TrustedDirs(fsys, r.root); err == nil || !strings.Contains(err.Error(), session.TrustFileName) {
		t.Errorf("a corrupt store = %v; want an error naming it", err)
	}
}

// Widening names the project files that ask for more than the project
// (the interface asks whether to trust it then): local.toml only when a
// directory lies outside the project, .mcp.json and .kimi-code/mcp.json
// when they name servers, a file that does not parse; nothing once the
// project is trusted.
func TestWideningNamesTheFilesThatAsk(t *testing.T) {
	root := t.TempDir()
	home, work, outside := filepath.Join(root, "home"), filepath.Join(root, "work"), filepath.Join(root, "outside")
	for _, d := range []string{home, filepath.Join(work, ".kimi-code"), filepath.Join(work, "sub"), outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(name, content string) string {
		t.Helper()
		p := filepath.Join(work, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	fsys := osenv.LocalFS{}
	widening := func() []string { return session.Widening(fsys, home, work, root) }
	if got := widening(); len(got) != 0 {
		t.Errorf("an empty project: %v", got)
	}
	local := write(".kimi-code/local.toml", "[workspace]\nadditional_dir = [\"sub\"]\n")
	if got := widening(); len(got) != 0 {
		t.Errorf("a directory inside the project: %v", got)
	}
	write(".kimi-code/local.toml", "[workspace]\nadditional_dir = [\"sub\", \""+outside+"\"]\n")
	project := write(".mcp.json", `{"mcpServers": {"x": {"command": "x"}}}`)
	if got := widening(); !cmp.Equal(got, []string{local, project}) {
		t.Errorf("widening = %v; want local.toml and .mcp.json", got)
	}
	write(".mcp.json", `{"mcpServers": {}}`)
	broken := write(".kimi-code/mcp.json", `{`)
	if got := widening(); !cmp.Equal(got, []string{local, broken}) {
		t.Errorf("widening = %v; want local.toml and the broken .kimi-code/mcp.json", got)
	}
	if err := session.Trust(fsys, home, work); err != nil {
		t.Fatal(err)
	}
	if got := widening(); len(got) != 0 {
		t.Errorf("a trusted project: %v", got)
	}
}
