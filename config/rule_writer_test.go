package config_test

import (
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kimigo/kimigo/config"
)

func TestUserRuleWriterKeepsConcurrentRules(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "home")
	w := &config.UserRuleWriter{Home: dir}
	var want []string
	var wg sync.WaitGroup
	for i := range 8 {
		pattern := fmt.Sprintf("Bash(printf %d)", i)
		want = append(want, pattern)
		wg.Go(func() {
			if err := w.AddUserAllowRule(pattern); err != nil {
				t.Errorf("AddUserAllowRule(%q): %v", pattern, err)
			}
		})
	}
	wg.Wait()
	cfg, _ := mustLoad(t, dir, nil)
	var got []string
	for _, r := range cfg.Permission {
		if r.Decision != config.DecisionAllow || r.Scope != "user" {
			t.Errorf("rule %+v is not a user allow rule", r)
		}
		got = append(got, r.Pattern)
	}
	slices.Sort(got)
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("rules in config.toml (-want +got):\n%s", d)
	}
}
