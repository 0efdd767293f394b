package session

import (
	"archive/zip"
	"bufio"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/kimigo/kimigo/agent/records"
	"github.com/kimigo/kimigo/osenv"
)

// Names inside an export archive.
const (
	manifestEntry  = "manifest.json"
	globalLogEntry = "logs/global/kimigo.log"
	sessionLogPath = "logs/kimigo.log"
)

// ExportOptions configure an export.
type ExportOptions struct {
	// Version is kimigo's version, for the manifest.
	Version string
	// GlobalLog is the global diagnostic log (<root>/logs/kimigo.log) to
	// bundle as logs/global/kimigo.log; "" leaves it out
	// (--no-include-global-log). An unreadable one is skipped.
	GlobalLog string
	// InstallSource and ShellEnv go into the manifest when set.
	InstallSource string
	ShellEnv      map[string]string
}

// Manifest is manifest.json, the first entry of an export (spec 06 §4.4).
// Field names are upstream's, but for the runtime's version (goVersion).
type Manifest struct {
	SessionID            string            `json:"sessionId"`
	ExportedAt           string            `json:"exportedAt"`
	KimiCodeVersion      string            `json:"kimiCodeVersion,omitempty"`
	WireProtocolVersion  string            `json:"wireProtocolVersion"`
	OS                   string            `json:"os"`
	GoVersion            string            `json:"goVersion"`
	SessionFirstActivity string            `json:"sessionFirstActivity,omitempty"`
	SessionLastActivity  string            `json:"sessionLastActivity,omitempty"`
	Title                string            `json:"title,omitempty"`
	WorkspaceDir         string            `json:"workspaceDir,omitempty"`
	SessionLogPath       string            `json:"sessionLogPath,omitempty"`
	GlobalLogPath        string            `json:"globalLogPath,omitempty"`
	InstallSource        string            `json:"installSource,omitempty"`
	ShellEnv             map[string]string `json:"shellEnv,omitempty"`
}

// DefaultExportName is the file name of an export made now without -o:
// kimigo-debug-<8 characters after "session_">-<YYYYMMDD-HHMMSS>.zip, in
// UTC.
func DefaultExportName(id string, now time.Time) string {
	short := strings.TrimPrefix(id, IDPrefix)
	short = short[:min(8, len(short))]
	return fmt.Sprintf("kimigo-debug-%s-%s.zip", short, now.UTC().Format("20060102-150405"))
}

// ExportFile writes the export of sum to the file out (an absolute path;
// its parent directories are created). The archive is built in a
// temporary file beside out and renamed over it, so a failure leaves no
// partial archive.
func (s *Store) ExportFile(ctx context.Context, sum Summary, out string, opts ExportOptions) error {
	if fi, err := s.fs.Stat(out); err == nil && fi.IsDir() {
		return fmt.Errorf("export session %s: %s is a directory; name a file to write the ZIP to", sum.ID, out)
	}
	if err := s.fs.MkdirAll(filepath.Dir(out), 0o700); err != nil {
		return fmt.Errorf("export session %s: %w", sum.ID, err)
	}
	tmp := filepath.Join(filepath.Dir(out), "."+filepath.Base(out)+"."+rand.Text()[:10]+".tmp")
	f, err := s.fs.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("export session %s: %w", sum.ID, err)
	}
	w := bufio.NewWriter(f)
	err = s.Export(ctx, sum, w, opts)
	if err == nil {
		err = w.Flush()
	}
	err = osenv.SyncClose(f, err)
	if err == nil {
		err = s.fs.Rename(tmp, out)
	}
	if err != nil {
		_ = s.fs.Remove(tmp) // best effort: it may be gone already
		return fmt.Errorf("export session %s to %s: %w", sum.ID, out, err)
	}
	return nil
}

// Export writes a ZIP of the session to w (spec 06 §4.4): manifest.json,
// then every regular file of the session directory by relative path, then
// the global log when asked. A session directory without files is a
// CodeExportNotFound error. Session files are never changed.
func (s *Store) Export(ctx context.Context, sum Summary, w io.Writer, opts ExportOptions) error {
	files, err := s.exportFiles(sum.Dir)
	if err != nil {
		return fmt.Errorf("export session %s: %w", sum.ID, err)
	}
	if len(files) == 0 {
		return &Error{Code: CodeExportNotFound, ID: sum.ID, Path: sum.Dir}
	}
	globalLog := ""
	if opts.GlobalLog != "" {
		if fi, err := s.fs.Stat(opts.GlobalLog); err == nil && fi.Mode().IsRegular() {
			globalLog = opts.GlobalLog
		}
	}
	now := s.now()
	m := s.manifest(sum, opts, now, slices.Contains(files, sessionLogPath), globalLog != "")
	zw := zip.NewWriter(w)
	mb, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return fmt.Errorf("export session %s: encode manifest: %w", sum.ID, err)
	}
	if err := writeEntry(zw, manifestEntry, now, strings.NewReader(string(mb)+"\n")); err != nil {
		return fmt.Errorf("export session %s: %w", sum.ID, err)
	}
	for _, rel := range files {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := s.copyEntry(zw, rel, filepath.Join(sum.Dir, filepath.FromSlash(rel)), true); err != nil {
			return fmt.Errorf("export session %s: %w", sum.ID, err)
		}
	}
	if globalLog != "" {
		if err := s.copyEntry(zw, globalLogEntry, globalLog, false); err != nil {
			return fmt.Errorf("export session %s: %w", sum.ID, err)
		}
	}
	if err := zw.Close(); err != nil {
		return fmt.Errorf("export session %s: %w", sum.ID, err)
	}
	return nil
}

func (s *Store) manifest(sum Summary, opts ExportOptions, now time.Time, hasSessionLog, hasGlobalLog bool) Manifest {
	m := Manifest{
		SessionID:           sum.ID,
		ExportedAt:          formatTime(now),
		KimiCodeVersion:     opts.Version,
		WireProtocolVersion: records.ProtocolVersion,
		OS:                  runtime.GOOS + " " + runtime.GOARCH,
		GoVersion:           strings.TrimPrefix(runtime.Version(), "go"),
		Title:               sum.Title,
		WorkspaceDir:        sum.WorkDir,
		InstallSource:       opts.InstallSource,
		ShellEnv:            opts.ShellEnv,
	}
	first, last, ok := s.activity(agentHome(sum.Dir, MainAgentID))
	if ok {
		m.SessionFirstActivity, m.SessionLastActivity = formatTime(first), formatTime(last)
	}
	if hasSessionLog {
		m.SessionLogPath = sessionLogPath
	}
	if hasGlobalLog {
		m.GlobalLogPath = globalLogEntry
	}
	return m
}

// exportFiles lists the regular files below dir as slash-separated
// relative paths, sorted.
func (s *Store) exportFiles(dir string) ([]string, error) {
	var out []string
	var walk func(abs, rel string) error
	walk = func(abs, rel string) error {
		entries, err := s.fs.ReadDir(abs)
		if err != nil {
			return err
		}
		for _, e := range entries {
			childAbs, childRel := filepath.Join(abs, e.Name()), joinRel(rel, e.Name())
			switch {
			case e.IsDir():
				if err := walk(childAbs, childRel); err != nil {
					return err
				}
			case e.Type().IsRegular():
				out = append(out, childRel)
			}
		}
		return nil
	}
	if err := walk(dir, ""); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	slices.Sort(out)
	return out, nil
}

func joinRel(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}

// copyEntry adds the file name as entry rel. A file that vanished since
// the listing is skipped; so is any unreadable one when required is false.
func (s *Store) copyEntry(zw *zip.Writer, rel, name string, required bool) error {
	f, err := s.fs.OpenFile(name, os.O_RDONLY, 0)
	if err != nil {
		if !required || errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return fmt.Errorf("read %s: %w", name, err)
	}
	defer func() { _ = f.Close() }() // read-only
	mtime := s.now()
	if fi, err := f.Stat(); err == nil {
		mtime = fi.ModTime()
	}
	if err := writeEntry(zw, rel, mtime, f); err != nil {
		return fmt.Errorf("read %s: %w", name, err)
	}
	return nil
}

func writeEntry(zw *zip.Writer, name string, mtime time.Time, r io.Reader) error {
	w, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Deflate, Modified: mtime})
	if err != nil {
		return err
	}
	_, err = io.Copy(w, r)
	return err
}

// activity scans the main agent's wire.jsonl for the first and last
// numeric time field; values above 10^12 are milliseconds, others seconds.
func (s *Store) activity(home string) (first, last time.Time, ok bool) {
	f, err := s.fs.OpenFile(filepath.Join(home, wireFileName), os.O_RDONLY, 0)
	if err != nil {
		return first, last, false
	}
	defer func() { _ = f.Close() }() // read-only
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64*1024), 64<<20)
	for sc.Scan() {
		var rec struct {
			Time *float64 `json:"time"`
		}
		if json.Unmarshal(sc.Bytes(), &rec) != nil || rec.Time == nil {
			continue
		}
		t := activityTime(*rec.Time)
		if !ok {
			first, ok = t, true
		}
		last = t
	}
	return first, last, ok
}

func activityTime(v float64) time.Time {
	if v > 1e12 {
		return time.UnixMilli(int64(v))
	}
	return time.Unix(0, int64(v*1e9))
}
