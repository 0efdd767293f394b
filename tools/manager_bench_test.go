package tools_test

import (
	"testing"

	"github.com/kimigo/kimigo/tools"
)

// BenchmarkManagerBuild is a main agent's tool table as a session opens
// it: the manager with its builtins, the profile's activation (applied
// when the manager is made and again when it is recorded), and the
// definitions the first request offers.
func BenchmarkManagerBuild(b *testing.B) {
	active := tools.ActiveTools{Names: []string{"Read", "Write", "Edit", "Glob", "Grep", "Bash", "ReadMediaFile",
		"FetchURL", "TodoList", "AskUserQuestion", "TaskList", "TaskOutput", "TaskStop"}}
	b.ReportAllocs()
	for b.Loop() {
		m := defaultManager(b)
		m.SetActiveTools(active)
		m.SetActiveTools(active)
		for _, t := range m.Tools(nil) {
			_ = t.Definition()
		}
	}
}
