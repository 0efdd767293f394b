package main

import (
	"archive/zip"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/kimigo/kimigo/config"
	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/llm/scripted"
	"github.com/kimigo/kimigo/session"
)

// openSession opens session id of c's work dir in this process, the way
// the command does, with c's environment.
func openSession(t *testing.T, c *cli, id string) *session.Session {
	t.Helper()
	cfg, _, err := config.Load(config.LoadOptions{Home: c.home, Env: config.Env(c.env)})
	if err != nil {
		t.Fatal(err)
	}
	s, err := session.Open(t.Context(), session.Options{Config: cfg, Home: c.home, WorkDir: c.dir, Resume: id})
	if err != nil {
		t.Fatalf("open session %s: %v", id, err)
	}
	return s
}

func setSavedMode(t *testing.T, c *cli, id, mode string) {
	t.Helper()
	s := openSession(t, c, id)
	defer s.Close(context.WithoutCancel(t.Context()))
	if err := s.SetMode(t.Context(), event.PermissionMode(mode)); err != nil {
		t.Fatal(err)
	}
}

func savedMode(t *testing.T, c *cli, id string) string {
	t.Helper()
	s := openSession(t, c, id)
	defer s.Close(context.WithoutCancel(t.Context()))
	return string(s.Status().Permission)
}

// sessionDir is the directory of session id.
func sessionDir(t *testing.T, c *cli, id string) string {
	t.Helper()
	sum, err := session.NewStore(session.StoreOptions{Root: c.home}).Get(id)
	if err != nil {
		t.Fatal(err)
	}
	return sum.Dir
}

// state reads session id's state.json.
func state(t *testing.T, c *cli, id string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(sessionDir(t, c, id), session.StateFileName))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// age moves every modification time in session id's directory back by d.
func age(t *testing.T, c *cli, id string, d time.Duration) {
	t.Helper()
	old := time.Now().Add(-d)
	err := filepath.Walk(sessionDir(t, c, id), func(p string, _ os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		return os.Chtimes(p, old, old)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// readZip lists an archive's entries and decodes its manifest.json.
func readZip(t *testing.T, path string) ([]string, map[string]any) {
	t.Helper()
	zr, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	var names []string
	var manifest map[string]any
	for _, f := range zr.File {
		names = append(names, f.Name)
		if f.Name == "manifest.json" {
			rc, _ := f.Open()
			b, _ := io.ReadAll(rc)
			rc.Close()
			json.Unmarshal(b, &manifest)
		}
	}
	return names, manifest
}

func contains(list []string, s string) bool { return slices.Contains(list, s) }

// diffTrees describes how two trees differ, "" when they are equal.
func diffTrees(a, b map[string]string) string {
	var out []string
	for p, v := range a {
		if w, ok := b[p]; !ok {
			out = append(out, "removed "+p)
		} else if v != w {
			out = append(out, "changed "+p)
		}
	}
	for p := range b {
		if _, ok := a[p]; !ok {
			out = append(out, "added "+p)
		}
	}
	sort.Strings(out)
	return strings.Join(out, ", ")
}

func scriptedCall(id, name, args string) scripted.Call {
	return scripted.Call{ID: id, Name: name, Arguments: args}
}
