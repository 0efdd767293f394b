package permission

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"mvdan.cc/sh/v3/syntax"
)

// TestAnalyzeScript pins what the analysis reads from a script: each
// command (with the commands it runs, indented), the files written and
// whether allow rules may approve it at all.
func TestAnalyzeScript(t *testing.T) {
	for _, tt := range []struct {
		script     string
		units      []string
		writes     []string
		unknown    bool
		approvable bool
	}{
		{"git status && go test -run X", []string{"git status", "go test -run X"}, nil, false, true},
		{"echo $(rm -rf x) > out.txt", []string{"~echo $(rm -rf x)", "rm -rf x"}, []string{"/repo/out.txt"}, false, true},
		{"FOO=1 nohup timeout 5 make", []string{"FOO=1 nohup timeout 5 make", "  FOO=1 timeout 5 make", "    FOO=1 make"}, nil, false, true},
		{"sudo -u root rm -rf x", []string{"sudo -u root rm -rf x", "  rm -rf x"}, nil, false, true},
		{"bash -c 'ls; echo hi > ~/x'", []string{"bash -c ls; echo hi > ~/x", "  ls", "  echo hi"}, []string{"/home/u/x"}, false, true},
		{"find . -exec rm {} + -exec ls \\;", []string{"find . -exec rm {} + -exec ls ;", "  rm {}", "  ls"}, nil, false, true},
		{"cd sub && make > log", []string{"cd sub", "make"}, nil, true, true},
		{"make > $LOG 2>&1 >/dev/null", []string{"make"}, nil, true, true},
		{"[ -f go.mod ] && ls", []string{"[ -f go.mod ]", "ls"}, nil, false, true},
		{"ls ~/src", []string{"ls /home/u/src"}, nil, false, true},
		{"ls ~other", []string{"~ls ~other"}, nil, false, true},
		{"$'\\x67it' status", []string{"git status"}, nil, false, true},
		{"eval 'ls'", []string{"eval ls", "  ls"}, nil, false, false},
		{"$X arg", []string{"~$X arg"}, nil, false, false},
		{"[[ $a == b ]]", nil, nil, false, false},
		{"echo 'open", []string{"~echo 'open", "~echo 'open"}, nil, false, false},
	} {
		t.Run(tt.script, func(t *testing.T) {
			s := analyzeScript(syntax.NewParser(syntax.Variant(syntax.LangBash)), tt.script, "/repo", "/home/u")
			var units []string
			var list func(u *unit, indent string)
			list = func(u *unit, indent string) {
				mark := ""
				if !u.static {
					mark = "~"
				}
				units = append(units, indent+mark+u.text)
				for _, in := range u.inner {
					list(in, indent+"  ")
				}
			}
			for _, u := range s.units {
				list(u, "")
			}
			var writes []string
			for _, w := range s.writes {
				writes = append(writes, w.path)
			}
			if d := cmp.Diff(tt.units, units); d != "" {
				t.Errorf("units (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tt.writes, writes); d != "" || s.unknownWrites != tt.unknown {
				t.Errorf("unknown writes %v; writes (-want +got):\n%s", s.unknownWrites, d)
			}
			if s.approvable() != tt.approvable {
				t.Errorf("approvable = %v (opaque: %s)", s.approvable(), strings.Join(s.opaque, "; "))
			}
		})
	}
}
