package session_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kimigo/kimigo/agent/history/historytest"
	"github.com/kimigo/kimigo/agent/records"
	"github.com/kimigo/kimigo/agent/turn"
	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/llm/llmtest"
	"github.com/kimigo/kimigo/osenv"
	"github.com/kimigo/kimigo/osenv/osenvtest"
	"github.com/kimigo/kimigo/session"
)

func wireOf(s *session.Session) string {
	return filepath.Join(s.Dir(), "agents", session.MainAgentID, records.LogFileName)
}

// userTexts is the text of every user message the next request carries.
func userTexts(t *testing.T, s *session.Session) []string {
	t.Helper()
	req, err := session.NextRequest(t.Context(), s)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range req.Messages {
		if m.Role == llm.RoleUser {
			out = append(out, textOf(m))
		}
	}
	return out
}

// A disk that fills up (or fails with EIO, EDQUOT, EROFS) under a session
// fails the prompt or the turn at once with records.write_failed; the
// session keeps the write error itself (file and errno) for the user; once
// the disk recovers the next prompt goes through, and a resume finds every
// acknowledged prompt. A failed write refuses the prompt; a failed fsync
// shows after the prompt was written and its request went out, so it
// fails the turn, and the prompt, kept like the input of any failed turn,
// is in the records once the disk recovers.
func TestSessionSurvivesWriteFailures(t *testing.T) {
	for _, tt := range []struct {
		name  string
		fault osenvtest.Fault
		errno string
		users []string // after the resume
	}{
		{"disk full", osenvtest.Fault{Op: osenvtest.OpWrite, PathContains: records.LogFileName, Err: syscall.ENOSPC, Partial: true}, "ENOSPC",
			[]string{"first", "third"}},
		{"quota", osenvtest.Fault{Op: osenvtest.OpWrite, PathContains: records.LogFileName, Err: syscall.EDQUOT}, "EDQUOT",
			[]string{"first", "third"}},
		{"I/O error", osenvtest.Fault{Op: osenvtest.OpSync, PathContains: records.LogFileName, Err: syscall.EIO}, "EIO",
			[]string{"first", "second", "third"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := newRig(t, "one", "two", "three")
			ffs := osenvtest.NewFaultFS(osenv.LocalFS{})
			r.store = session.NewStore(session.StoreOptions{FS: ffs, Root: r.root})
			s, err := session.Open(t.Context(), r.opts(""))
			if err != nil {
				t.Fatal(err)
			}
			prompt(t, s, "first")

			clear := ffs.Inject(tt.fault)
			sub := s.Subscribe()
			err = s.Prompt(t.Context(), textParts("second"))
			if tt.fault.Op == osenvtest.OpSync && err == nil {
				ended := waitEnded(t, sub)
				if ended.Reason != event.EndFailed || ended.Error == nil {
					t.Fatalf("the turn while fsync fails ended %+v, want failed", ended)
				}
				err = &turn.FlushError{Err: errors.New(ended.Error.Message)}
				if ended.Error.Code != event.CodeRecordsWriteFailed {
					err = errors.New(ended.Error.Message)
				}
			}
			sub.Close()
			var fe *turn.FlushError
			if !errors.As(err, &fe) || event.ErrorOf(err).Code != event.CodeRecordsWriteFailed {
				t.Fatalf("Prompt while the disk fails = %v, want a records.write_failed error", err)
			}
			msg := event.ErrorOf(err).Message
			if !strings.Contains(msg, wireOf(s)) || !strings.Contains(msg, "("+tt.errno+")") {
				t.Errorf("the error %q does not name %s and %s", msg, wireOf(s), tt.errno)
			}
			var we *records.WriteError
			if werr := s.WriteError(); !errors.As(werr, &we) || we.Path != wireOf(s) {
				t.Errorf("WriteError() = %v, want the *records.WriteError of %s", werr, wireOf(s))
			}

			clear()
			prompt(t, s, "third")
			closeSession(t, s)

			r.store = session.NewStore(session.StoreOptions{Root: r.root})
			s, err = session.Open(t.Context(), r.resumeOpts(s.ID(), ""))
			if err != nil {
				t.Fatal(err)
			}
			defer closeSession(t, s)
			// A refused "second" never ran a turn.
			if d := cmp.Diff(tt.users, userTexts(t, s)); d != "" {
				t.Errorf("user messages after resume (-want +got):\n%s", d)
			}
		})
	}
}

// A corrupt line in the middle of the main agent's records, here the
// record of a tool call or of its result, is quarantined when the session
// resumes: the session opens, Warnings names the file and the line, the
// bytes are in the side file, and the pairing gap the line leaves (a call
// without its result, a result without its call) is repaired, so the next
// request passes the strict wire checks.
func TestResumeQuarantinesACorruptLine(t *testing.T) {
	for _, torn := range []string{"tool.result", "tool.call"} {
		t.Run(torn, func(t *testing.T) { resumeWithCorruptLine(t, torn) })
	}
}

func resumeWithCorruptLine(t *testing.T, torn string) {
	r := newRig(t)
	r.srv.Add(llmtest.ToolCall("call_1", "Nope", `{}`), llmtest.Text("done"), llmtest.Text("again"))
	s := r.ran(t, "use a tool")

	wire := wireOf(s)
	data, err := os.ReadFile(wire)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	lineNo := 0
	for i, l := range lines {
		if bytes.Contains(l, []byte(`"type":"`+torn+`"`)) {
			lines[i] = append(l[:len(l)/2:len(l)/2], '\n') // the write torn in the middle of the log
			lineNo = i + 1
			break
		}
	}
	if lineNo == 0 {
		t.Fatalf("no %s line in\n%s", torn, data)
	}
	if err := os.WriteFile(wire, bytes.Join(lines, nil), 0o600); err != nil {
		t.Fatal(err)
	}

	s, err = session.Open(t.Context(), r.resumeOpts(s.ID(), ""))
	if err != nil {
		t.Fatalf("Resume with a corrupt middle line: %v", err)
	}
	defer closeSession(t, s)
	side := wire + records.QuarantineSuffix
	want := []string{"skipped corrupt line " + strconv.Itoa(lineNo) + " of " + wire + "; its bytes were moved to " + side}
	if d := cmp.Diff(want, s.Warnings()); d != "" {
		t.Errorf("Warnings (-want +got):\n%s", d)
	}
	if b, err := os.ReadFile(side); err != nil || !bytes.Contains(b, lines[lineNo-1]) {
		t.Errorf("side file %s lacks the line: %q, %v", side, b, err)
	}
	req, err := session.NextRequest(t.Context(), s)
	if err != nil {
		t.Fatal(err)
	}
	if err := historytest.CheckWire(append(req.Messages, llm.Message{Role: llm.RoleUser,
		Content: textParts("next")})); err != nil {
		t.Errorf("the resumed conversation breaks the wire rules: %v", err)
	}
	prompt(t, s, "next")
}

// A session whose records a newer kimigo wrote is refused with
// CodeLogTooNew naming the file and saying what to do, and nothing in
// the data root changes: no lock pid, no record, no quarantine.
func TestResumeRefusesALogFromANewerKimigo(t *testing.T) {
	r := newRig(t, "ok")
	s := r.ran(t, "hi")
	wire := wireOf(s)
	newer := `{"type":"metadata","protocol_version":"9.1","created_at":1}` + "\n" + `{"type":"future.thing"` + "\n"
	if err := os.WriteFile(wire, []byte(newer), 0o600); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, r.root)
	for _, open := range []func() (*session.Session, error){
		func() (*session.Session, error) { return session.Open(t.Context(), r.resumeOpts(s.ID(), "")) },
		func() (*session.Session, error) { return session.Open(t.Context(), r.contOpts("")) },
	} {
		_, err := open()
		var se *session.Error
		if !errors.As(err, &se) || se.Code != session.CodeLogTooNew || !errors.Is(err, session.ErrLogTooNew) {
			t.Fatalf("open = %v, want CodeLogTooNew", err)
		}
		if !strings.Contains(err.Error(), wire) || !strings.Contains(err.Error(), "9.1") ||
			!strings.Contains(se.Hint(), "upgrade kimigo") {
			t.Errorf("error %q / hint %q do not name the file, the version and what to do", err, se.Hint())
		}
	}
	if d := cmp.Diff(before, snapshot(t, r.root)); d != "" {
		t.Errorf("a refused open changed the data root:\n%s", d)
	}
}

// The index is derived data: RepairIndex moves corrupt lines to the side
// file, rebuilds entries the index lacks, also for a session whose
// state.json is gone (from the cwd its records hold), and a second run
// finds nothing to do. Readers meanwhile skip the corrupt lines and copy
// them to the side file once.
func TestRepairIndex(t *testing.T) {
	r := newRig(t, "a", "b")
	var ids, dirs []string
	for range 2 {
		s := r.ran(t, "hi")
		ids, dirs = append(ids, s.ID()), append(dirs, s.Dir())
	}
	index := filepath.Join(r.root, session.IndexFileName)
	data, err := os.ReadFile(index)
	if err != nil {
		t.Fatal(err)
	}
	// Line 1 garbled, line 2 (the second session) lost; state.json of
	// the second session gone too.
	first, _, _ := bytes.Cut(data, []byte("\n"))
	garbled := `{"sessionId":"sess` + "\x00\n"
	if err := os.WriteFile(index, []byte(garbled+string(first)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dirs[1], session.StateFileName)); err != nil {
		t.Fatal(err)
	}

	var warnings []string
	store := session.NewStore(session.StoreOptions{Root: r.root, OnWarning: func(m string) { warnings = append(warnings, m) }})
	if _, err := store.Get(ids[0]); err != nil {
		t.Fatalf("Get with a corrupt index line: %v", err)
	}
	side := index + session.IndexQuarantineSuffix
	if b, _ := os.ReadFile(side); !bytes.Contains(b, []byte(garbled)) || !bytes.Contains(b, []byte("line 1 ")) {
		t.Errorf("side file after a read = %q", b)
	}
	store.Get(ids[0])
	if b, _ := os.ReadFile(side); bytes.Count(b, []byte(garbled)) != 1 {
		t.Errorf("a second read copied the line again: %q", b)
	}
	if d := cmp.Diff([]string{"skipped corrupt line 1 of " + index + "; its bytes were copied to " + side}, warnings); d != "" {
		t.Errorf("warnings (-want +got):\n%s", d)
	}

	rep, err := r.store.RepairIndex()
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(session.IndexRepair{Path: index, SideFile: side, Corrupt: []int{1},
		Reindex: session.ReindexResult{Scanned: 2, Added: 1}}, rep); d != "" {
		t.Errorf("RepairIndex (-want +got):\n%s", d)
	}
	if b, _ := os.ReadFile(index); bytes.Contains(b, []byte("\x00")) {
		t.Errorf("the corrupt line is still in the index: %q", b)
	}
	for _, id := range ids {
		if _, err := r.store.Get(id); err != nil {
			t.Errorf("Get(%s) after the repair: %v", id, err)
		}
	}
	rep, err = r.store.RepairIndex()
	if err != nil || len(rep.Corrupt) != 0 || rep.Reindex.Added+rep.Reindex.Repaired != 0 {
		t.Errorf("second RepairIndex = %+v, %v; want nothing to do", rep, err)
	}
	// The session without state.json resumes, and gets it back.
	s, err := session.Open(t.Context(), r.resumeOpts(ids[1], ""))
	if err != nil {
		t.Fatal(err)
	}
	closeSession(t, s)
}

// A session whose log holds records this kimigo cannot restore yet
// (a micro-compaction cutoff) resumes, warns once per type naming it, and
// keeps the records in the log; a goal, plan mode and swarm mode in the
// same log are restored (the goal paused, as after any restart), with no
// warning.
func TestResumeWarnsAboutRecordsItCannotRestoreYet(t *testing.T) {
	r := newRig(t, "ok", "again")
	s := r.ran(t, "hi")
	wire := wireOf(s)
	f, err := os.OpenFile(wire, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	extra := `{"type":"goal.create","goalId":"g","objective":"ship","time":9}` + "\n" + `{"type":"plan_mode.enter","id":"p","time":9}` + "\n" +
		`{"type":"swarm_mode.enter","trigger":"manual","time":9}` + "\n" + `{"type":"micro_compaction.apply","cutoff":1,"time":9}` + "\n"
	if _, err := f.WriteString(extra); err != nil {
		t.Fatal(err)
	}
	f.Close()

	again, err := session.Open(t.Context(), r.resumeOpts(s.ID(), ""))
	if err != nil {
		t.Fatal(err)
	}
	defer closeSession(t, again)
	w := strings.Join(again.Warnings(), "\n")
	if !strings.Contains(w, "micro_compaction.apply") || len(again.Warnings()) != 1 {
		t.Errorf("Warnings = %q, want one line for micro_compaction.apply", again.Warnings())
	}
	if !again.SwarmMode() {
		t.Error("swarm mode was not restored")
	}
	if g := again.Goal(); g == nil || g.Objective != "ship" || g.Status != "paused" {
		t.Errorf("goal after the resume %+v", g)
	}
	if st := again.PlanState(); !st.Active || st.ID != "p" {
		t.Errorf("plan mode after the resume %+v", st)
	}
	prompt(t, again, "still works")
	if b, err := os.ReadFile(wire); err != nil || !strings.Contains(string(b), extra) {
		t.Errorf("the records were not kept: %v", err)
	}
}
