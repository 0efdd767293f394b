package llmtest

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/")

// Golden compares got with testdata/<name>, the golden file of a wire
// request or a trace. Names ending in .json are indented before the
// comparison, so reviewers read a stable, line-based diff. When the test
// runs with -update the file is written instead.
func Golden(t testing.TB, name string, got []byte) {
	t.Helper()
	if strings.HasSuffix(name, ".json") {
		var buf bytes.Buffer
		if err := json.Indent(&buf, got, "", "  "); err != nil {
			t.Fatalf("golden %s: output is not JSON: %v\n%s", name, err, got)
		}
		buf.WriteByte('\n')
		got = buf.Bytes()
	}
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("golden %s: %v (run the test with -update to create it)", name, err)
	}
	if d := cmp.Diff(string(want), string(got)); d != "" {
		t.Errorf("golden %s mismatch (-want +got; rerun with -update if the change is intended):\n%s", name, d)
	}
}
