package permission_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/kimigo/kimigo/agent/permission"
)

// TestRulesOnRealPaths: rules, the sensitive-file list and the workspace
// boundary judge the file a path reaches through symbolic links and /proc
// as well as the path as written (ERRATA 37); a Write rule governs Edit and
// a Read rule governs the trees Grep and Glob search (ERRATA 36). On the
// real file system, in manual mode with an approver that is never asked
// unless the table says so.
func TestRulesOnRealPaths(t *testing.T) {
	root := t.TempDir()
	root, _ = filepath.EvalSymlinks(root)
	ws, protected, secretDir := filepath.Join(root, "ws"), filepath.Join(root, "protected"), filepath.Join(root, "ws", "secret")
	for _, d := range []string{filepath.Join(ws, ".git"), protected, secretDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for name, content := range map[string]string{
		filepath.Join(ws, ".env"): "K=v\n", filepath.Join(ws, "a.go"): "package a\n", filepath.Join(secretDir, "k.txt"): "key\n",
		filepath.Join(protected, "hosts"): "x\n", filepath.Join(ws, ".git", "config"): "[core]\n",
	} {
		if err := os.WriteFile(name, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{
		"notes.txt": ".env", "etc": protected, "cfg": ".git/config", "out": root, "loop1": "loop2", "loop2": "loop1",
	} {
		if err := os.Symlink(target, filepath.Join(ws, link)); err != nil {
			t.Fatal(err)
		}
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	pipeFD := fmt.Sprintf("/proc/self/fd/%d", w.Fd())
	deny := func(p string) permission.Rule { return rule(permission.DecisionDeny, p) }
	js := func(v map[string]string) string { b, _ := json.Marshal(v); return string(b) }
	for _, tt := range []struct {
		name  string
		rules []permission.Rule
		mode  permission.Mode
		tool  string
		args  string
		want  outcome
	}{
		{"link to .env is sensitive", nil, permission.ModeYolo, "Write", js(map[string]string{"path": "notes.txt", "content": "x"}), asked},
		{"link into a denied dir", []permission.Rule{deny("Write(" + protected + "/**)")}, permission.ModeAuto,
			"Write", js(map[string]string{"path": "etc/x", "content": "x"}), denied},
		{"/proc/self/root into a denied dir", []permission.Rule{deny("Write(" + protected + "/**)")}, permission.ModeAuto,
			"Write", js(map[string]string{"path": "/proc/self/root" + protected + "/x", "content": "x"}), denied},
		{"/proc/self/cwd leads out of the workspace", nil, permission.ModeYolo,
			"Write", js(map[string]string{"path": "/proc/self/cwd/../protected/y", "content": "x"}), asked},
		{"a /proc fd is refused", nil, permission.ModeAuto, "Write", js(map[string]string{"path": pipeFD, "content": "x"}), denied},
		{"a link loop is refused", nil, permission.ModeAuto, "Write", js(map[string]string{"path": "loop1/x", "content": "x"}), denied},
		{"link to .git/config asks", nil, permission.ModeYolo, "Write", js(map[string]string{"path": "cfg", "content": "x"}), asked},
		{"link out of the workspace asks", nil, permission.ModeYolo, "Write",
			js(map[string]string{"path": "out/elsewhere.txt", "content": "x"}), asked},
		{"redirect through a link out of the workspace asks", nil, permission.ModeYolo, "Bash",
			js(map[string]string{"command": "echo x > out/elsewhere.txt"}), asked},
		{"Write rule governs Edit", []permission.Rule{deny("Write(" + protected + "/**)")}, permission.ModeAuto, "Edit",
			js(map[string]string{"path": filepath.Join(protected, "hosts"), "old_string": "x", "new_string": "y"}), denied},
		{"Write rule governs Edit through a link", []permission.Rule{deny("Write(" + protected + "/**)")}, permission.ModeAuto, "Edit",
			js(map[string]string{"path": "etc/hosts", "old_string": "x", "new_string": "y"}), denied},
		{"Read rule governs Grep", []permission.Rule{deny("Read(secret/**)")}, permission.ModeAuto, "Grep",
			js(map[string]string{"pattern": "key", "path": "secret"}), denied},
		{"Read rule governs Glob", []permission.Rule{deny("Read(secret/**)")}, permission.ModeAuto, "Glob",
			js(map[string]string{"pattern": "*.txt", "path": "secret"}), denied},
		{"Read rule leaves other trees", []permission.Rule{deny("Read(secret/**)")}, permission.ModeAuto, "Grep",
			js(map[string]string{"pattern": "key", "path": "."}), approved},
		{"plain write in the workspace", []permission.Rule{deny("Write(" + protected + "/**)")}, permission.ModeYolo, "Write",
			js(map[string]string{"path": "b.go", "content": "x"}), approved},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := newRig(t, onDisk(ws), withRules(tt.rules...), withMode(tt.mode))
			if got := r.judge(tt.tool, tt.args); got != tt.want {
				t.Errorf("%s %s: %s (by %s); want %s", tt.tool, tt.args, got, r.decidedBy(), tt.want)
			}
		})
	}
}
