package session_test

import (
	"archive/zip"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kimigo/kimigo/session"
)

func readZip(t *testing.T, name string) (names []string, files map[string]string) {
	t.Helper()
	zr, err := zip.OpenReader(name)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	files = map[string]string{}
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, f.Name)
		files[f.Name] = string(b)
	}
	return names, files
}

// S35: the ZIP starts with manifest.json, then every file of the session
// by path, then the global log unless left out.
func TestS35ExportZip(t *testing.T) {
	r := newRig(t, "ok")
	ctx := t.Context()
	s := r.ran(t, "hi")
	if err := os.MkdirAll(filepath.Dir(s.LogPath()), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(s.LogPath(), []byte("session log\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	globalLog := filepath.Join(r.root, "logs", "kimigo.log")
	if err := os.MkdirAll(filepath.Dir(globalLog), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(globalLog, []byte("global log\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	sum, err := r.store.Find(s.ID(), r.workDir)
	if err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, s.Dir())

	out := filepath.Join(t.TempDir(), "nested", "out.zip")
	opts := session.ExportOptions{Version: "0.1.0", GlobalLog: globalLog}
	if err := r.store.ExportFile(ctx, sum, out, opts); err != nil {
		t.Fatal(err)
	}
	names, files := readZip(t, out)
	var want []string
	for p, st := range before {
		if st.Mode.IsRegular() {
			rel, _ := filepath.Rel(s.Dir(), p)
			want = append(want, filepath.ToSlash(rel))
		}
	}
	slices.Sort(want)
	for _, must := range []string{"state.json", "agents/main/wire.jsonl", "logs/kimigo.log"} {
		if !slices.Contains(want, must) {
			t.Fatalf("session dir lacks %s: %v", must, want)
		}
	}
	want = append(append([]string{"manifest.json"}, want...), "logs/global/kimigo.log")
	if d := cmp.Diff(want, names); d != "" {
		t.Errorf("entries (-want +got):\n%s", d)
	}
	for _, rel := range want[1 : len(want)-1] {
		if files[rel] != before[filepath.Join(s.Dir(), filepath.FromSlash(rel))].Data {
			t.Errorf("entry %s differs from the file", rel)
		}
	}
	if files["logs/global/kimigo.log"] != "global log\n" {
		t.Errorf("global log entry = %q", files["logs/global/kimigo.log"])
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(files["manifest.json"]), &m); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(files["manifest.json"], "{\n  \"sessionId\"") {
		t.Errorf("manifest is not pretty-printed with sessionId first:\n%s", files["manifest.json"])
	}
	for k, v := range map[string]any{"sessionId": s.ID(), "workspaceDir": r.workDir, "kimiCodeVersion": "0.1.0",
		"wireProtocolVersion": "1.4", "os": runtime.GOOS + " " + runtime.GOARCH, "title": "hi",
		"goVersion":      strings.TrimPrefix(runtime.Version(), "go"),
		"sessionLogPath": "logs/kimigo.log", "globalLogPath": "logs/global/kimigo.log"} {
		if m[k] != v {
			t.Errorf("manifest %s = %v, want %v", k, m[k], v)
		}
	}
	for _, k := range []string{"exportedAt", "sessionFirstActivity", "sessionLastActivity"} {
		ts, _ := m[k].(string)
		if _, err := time.Parse(time.RFC3339, ts); err != nil {
			t.Errorf("manifest %s = %v, want an ISO time", k, m[k])
		}
	}
	if _, ok := m["installSource"]; ok {
		t.Error("manifest has an installSource nobody gave")
	}
	if d := cmp.Diff(before, snapshot(t, s.Dir())); d != "" {
		t.Errorf("export changed the session (-before +after):\n%s", d)
	}

	// --no-include-global-log
	out2 := filepath.Join(t.TempDir(), "no-global.zip")
	if err := r.store.ExportFile(ctx, sum, out2, session.ExportOptions{}); err != nil {
		t.Fatal(err)
	}
	names, files = readZip(t, out2)
	if slices.Contains(names, "logs/global/kimigo.log") || strings.Contains(files["manifest.json"], "globalLogPath") {
		t.Errorf("global log exported without being asked for: %v", names)
	}
}

func TestExportNothingToExport(t *testing.T) {
	m := newMemStore(t)
	sum := m.create(t, "s1", "/w")
	if err := m.fs.Remove(filepath.Join(sum.Dir, "state.json")); err != nil {
		t.Fatal(err)
	}
	err := m.store.ExportFile(t.Context(), sum, "/out/x.zip", session.ExportOptions{})
	want := `Session "s1" has no exportable directory at "` + sum.Dir + `"`
	if !errors.Is(err, session.ErrExportNotFound) || !strings.Contains(err.Error(), want) {
		t.Errorf("export of an empty session = %v, want %q", err, want)
	}
	if entries, _ := m.fs.ReadDir("/out"); len(entries) != 0 {
		t.Errorf("a failed export left files: %v", entries)
	}
}

func TestDefaultExportName(t *testing.T) {
	now := time.Date(2025, 3, 1, 23, 4, 5, 0, time.FixedZone("x", -3600))
	got := session.DefaultExportName("session_0b7c1d2e-aaaa-4bbb-8ccc-000000000000", now)
	if got != "kimigo-debug-0b7c1d2e-20250302-000405.zip" {
		t.Errorf("DefaultExportName = %q", got)
	}
	if !regexp.MustCompile(`^kimigo-debug-[0-9a-f-]{8}-\d{8}-\d{6}\.zip$`).MatchString(session.DefaultExportName(session.NewID(), now)) {
		t.Error("DefaultExportName of a minted id does not match the spec's pattern")
	}
}
