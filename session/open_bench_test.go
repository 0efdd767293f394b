package session_test

import (
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/kimigo/kimigo/config"
	"github.com/kimigo/kimigo/osenv"
	"github.com/kimigo/kimigo/session"
)

// BenchmarkSessionOpen opens a new session and closes it: the data root,
// the main agent with its tool table and profile, and the first records.
// No request goes out.
func BenchmarkSessionOpen(b *testing.B) {
	srv := httptest.NewServer(&stepServer{})
	defer srv.Close()
	base := b.TempDir()
	cfgHome, work := filepath.Join(base, "config"), filepath.Join(base, "work")
	for _, d := range []string{cfgHome, work} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			b.Fatal(err)
		}
	}
	toml := fmt.Sprintf("default_model = \"fake\"\n\n[providers.fake]\ntype = \"openai\"\nbase_url = %q\n\n"+
		"[models.fake]\nprovider = \"fake\"\nmodel = \"fake-model\"\nmax_context_size = 1000000\n", srv.URL+"/v1")
	if err := os.WriteFile(config.ConfigFile(cfgHome), []byte(toml), 0o600); err != nil {
		b.Fatal(err)
	}
	cfg, _, err := config.Load(config.LoadOptions{Home: cfgHome, Env: config.Env{}})
	if err != nil {
		b.Fatal(err)
	}
	env := osenv.NewLocal(osenv.LocalOptions{Cwd: work, Environ: []string{"PATH=" + os.Getenv("PATH")}})
	ctx := b.Context()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		s, err := session.Open(ctx, session.Options{Config: cfg, Home: filepath.Join(base, fmt.Sprint("home", i)),
			WorkDir: work, Env: env, Version: "bench"})
		if err != nil {
			b.Fatal(err)
		}
		if err := s.Close(ctx); err != nil {
			b.Fatal(err)
		}
	}
}
