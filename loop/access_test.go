package loop

import (
	"slices"
	"testing"
)

func TestConflict(t *testing.T) {
	for _, tt := range []struct {
		name string
		a, b []Access
		want bool
	}{
		{"write and read of the same file", WriteFile("/a"), ReadFile("/a"), true},
		{"case and trailing slash are normalised", WriteFile("/Dir/File"), ReadFile("/dir/file/"), true},
		{"backslashes and repeated slashes", WriteFile(`C:\src\\x.go`), ReadFile("c:/src/x.go"), true},
		{"write tree covers a file below", WriteTree("/src"), ReadFile("/src/x.go"), true},
		{"read tree and write below", ReadTree("/src"), WriteFile("/src/x.go"), true},
		{"readwrite tree and write below", ReadWriteTree("/src"), WriteFile("/src/x.go"), true},
		{"non-recursive read does not cover below", ReadFile("/src"), WriteFile("/src/x.go"), false},
		{"sibling prefix is not below", WriteTree("/src"), ReadFile("/src2/x.go"), false},
		{"read and search never conflict", ReadFile("/a"), SearchTree("/a"), false},
		{"search trees never conflict", SearchTree("/"), SearchTree("/a"), false},
		{"search and write below", SearchTree("/src"), WriteFile("/src/x.go"), true},
		{"all conflicts with a file", All(), ReadFile("/a"), true},
		{"all conflicts with all", All(), All(), true},
		{"none conflicts with nothing", None(), All(), false},
		{"different files", WriteFile("/a"), WriteFile("/b"), false},
		{"readwrite file and read", ReadWriteFile("/a"), ReadFile("/A"), true},
		{"root tree covers everything", WriteTree("/"), ReadFile("/etc/x"), true},
		{"any pair of a list", slices.Concat(ReadFile("/a"), WriteFile("/b")), ReadFile("/b"), true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := Conflict(tt.a, tt.b); got != tt.want {
				t.Errorf("Conflict(%v, %v) = %v, want %v", tt.a, tt.b, got, tt.want)
			}
			if got := Conflict(tt.b, tt.a); got != tt.want {
				t.Errorf("Conflict is not symmetric for %v, %v", tt.a, tt.b)
			}
		})
	}
}
