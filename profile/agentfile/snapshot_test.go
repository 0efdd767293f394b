package agentfile

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestSnapshotRestore: a catalog rebuilt from the stored snapshot, after
// the files are gone, equals the one the session was created with.
func TestSnapshotRestore(t *testing.T) {
	files := map[string]string{
		dataHome + "/SYSTEM.md":             "Sys ${base_prompt}",
		"/ws/.kimi-code/agents/coder.md":    "---\ndescription: Mine\noverride: true\ntools: Read\n---\nMy coder ${cwd}\n",
		"/ws/.kimi-code/agents/reviewer.md": "---\ndescription: Rev\nsubagents: [explore]\nmodel_preference: secondary\n---\nReview ${base_prompt}\n",
	}
	env := newEnv(files)
	l := load(t, env, Options{WorkDir: "/ws"})
	data, err := json.Marshal(l.Snapshot)
	if err != nil {
		t.Fatal(err)
	}
	var snap Snapshot
	if err := json.Unmarshal(data, &snap); err != nil {
		t.Fatal(err)
	}
	restored, warns, err := Restore(builtin(t), snap)
	if err != nil || len(warns) != 0 {
		t.Fatalf("Restore: %v, %v", err, warns)
	}
	pc := promptContext(t, newEnv(nil))
	if diff := cmp.Diff(l.Catalog.Names(), restored.Names()); diff != "" {
		t.Fatalf("names (-want +got):\n%s", diff)
	}
	for _, name := range l.Catalog.Names() {
		a, _ := l.Catalog.Get(name)
		b, _ := restored.Get(name)
		type meta struct {
			Desc, When string
			Tools, Dis []string
			Subs       []string
			Pref       string
		}
		ma := meta{a.Description, a.WhenToUse, a.Tools, a.DisallowedTools, a.Subagents, string(a.ModelPreference)}
		mb := meta{b.Description, b.WhenToUse, b.Tools, b.DisallowedTools, b.Subagents, string(b.ModelPreference)}
		if diff := cmp.Diff(ma, mb); diff != "" {
			t.Errorf("%s (-created +restored):\n%s", name, diff)
		}
		if pa, pb := prompt(t, l.Catalog, name, pc), prompt(t, restored, name, pc); pa != pb {
			t.Errorf("%s prompt differs:\n%s", name, cmp.Diff(pa, pb))
		}
	}
	if (Snapshot{Version: 1}).IsZero() != true || l.Snapshot.IsZero() {
		t.Error("IsZero is wrong")
	}
	if _, _, err := Restore(builtin(t), Snapshot{Version: 9, SystemPrompt: "x"}); err == nil {
		t.Error("an unknown snapshot version was accepted")
	}
}
