package config_test

import (
	"bytes"
	"testing"

	"github.com/kimigo/kimigo/config"
	"github.com/kimigo/kimigo/osenv/osenvtest"
)

// FuzzLoadConfig feeds arbitrary bytes as config.toml. Load yields a
// config or an error, never a panic; whatever loads can be resolved and
// checked; a file that fails to load is refused by every writer and left
// byte-identical; a file that loads takes an appended allow rule and
// still loads, with the rule last.
func FuzzLoadConfig(f *testing.F) {
	for _, seed := range []string{
		"", "[[[", "# only a comment\n", goodProvider,
		goodProvider + "\n[loop_control]\nmax_steps_per_turn = \"nope\"\n[providers.bad]\ntype = \"nope\"\n",
		"[[hooks]]\nevent = \"Stop\"\ncommand = \"x\"\nfoo = 1\n",
		"[permission]\nrules = [{decision = \"deny\", pattern = \"Bash\"}]\n",
		"[[permission.rules]]\ndecision = \"maybe\"\npattern = \"Write\"\n",
		"permission = 3\n", "[models.m]\nprovider = \"p\"\nmodel = \"x\"\nmax_context_size = 1.5\n",
		"a = \"unterminated\n", "[x]\n[x]\n", "x = 1979-05-27T07:32:00Z\n",
		"[models.\"a.b\"]\nprovider = \"p\"\nmodel = \"m\"\nmax_context_size = 9\n[providers.p]\ntype = \"anthropic\"\napi_key = \"k\"\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fsys := osenvtest.NewMemFS("/")
		const dir, path = "/h", "/h/config.toml"
		if err := fsys.MkdirAll(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := fsys.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		cfg, _, err := config.Load(config.LoadOptions{FS: fsys, Home: dir})
		if (err == nil) == (cfg == nil) {
			t.Fatalf("Load returned config %v and error %v", cfg != nil, err)
		}
		config.Check(fsys, path, true)
		unchanged := func(what string) {
			got, rerr := fsys.ReadFile(path)
			if rerr != nil || !bytes.Equal(got, data) {
				t.Fatalf("%s changed a file that failed to load:\n%q\nnow\n%q", what, data, got)
			}
		}
		if err != nil {
			if config.Patch(fsys, path, map[string]any{"default_model": "x"}) == nil {
				t.Fatal("Patch accepted a file that fails to load")
			}
			unchanged("Patch")
			if config.AddAllowRule(fsys, path, "Bash(fuzz*)") == nil {
				t.Fatal("AddAllowRule accepted a file that fails to load")
			}
			unchanged("AddAllowRule")
			return
		}
		for alias := range cfg.Models {
			_, _ = cfg.Resolve(alias) // must not panic
		}
		if _, _, err := cfg.SelectModel(""); err != nil && cfg.DefaultModel == "" {
			t.Fatalf("SelectModel with no default_model failed: %v", err)
		}
		if err := config.AddAllowRule(fsys, path, "Bash(fuzz*)"); err != nil {
			unchanged("a refused AddAllowRule")
			return
		}
		after, _, err := config.Load(config.LoadOptions{FS: fsys, Home: dir})
		if err != nil {
			written, _ := fsys.ReadFile(path)
			t.Fatalf("file no longer loads after AddAllowRule: %v\n%s", err, written)
		}
		n := len(after.Permission)
		if n == 0 || after.Permission[n-1].Pattern != "Bash(fuzz*)" || after.Permission[n-1].Decision != config.DecisionAllow {
			t.Fatalf("appended rule missing: %+v", after.Permission)
		}
	})
}
