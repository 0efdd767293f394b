package skill

import "testing"

// BenchmarkBuiltinSkills is what the first Builtin call of a process
// pays (later calls reuse the list).
func BenchmarkBuiltinSkills(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if len(parseBuiltin()) == 0 {
			b.Fatal("no built-in skills")
		}
	}
}
