package background_test

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kimigo/kimigo/agent/background"
	"github.com/kimigo/kimigo/agent/history"
	"github.com/kimigo/kimigo/osenv"
	"github.com/kimigo/kimigo/tools"
)

// writeRecord puts a task record where a previous kimigo left it.
func writeRecord(t *testing.T, home string, info tools.TaskInfo) {
	t.Helper()
	b, err := json.Marshal(info)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(home, "tasks", info.TaskID+".json"), string(b))
}

func writeFile(t *testing.T, p, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

func ended(ms int64) *int64 { return &ms }

func TestS45ResumeTurnsARunningTaskIntoALostOne(t *testing.T) {
	home := t.TempDir()
	writeRecord(t, home, tools.TaskInfo{TaskID: "bash-k3j9x0qa", Description: "npm test", Status: tools.TaskRunning,
		Detached: true, StartedAt: 1000, Kind: tools.TaskKindProcess, Command: "npm test", Pid: 0})
	writeFile(t, filepath.Join(home, "tasks", "bash-k3j9x0qa", "output.log"), "partial output\n")
	m, r := newManager(t, background.Options{Dir: home})
	res, err := m.Reconcile(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Lost) != 1 || len(res.Problems) != 0 || len(res.Orphans) != 0 {
		t.Fatalf("result = %+v", res)
	}
	// Lost on disk and in the full list; never in the active list.
	b, _ := os.ReadFile(filepath.Join(home, "tasks", "bash-k3j9x0qa.json"))
	var disk tools.TaskInfo
	if err := json.Unmarshal(b, &disk); err != nil || disk.Status != tools.TaskLost || disk.EndedAt == nil {
		t.Errorf("record on disk = %s (%v)", b, err)
	}
	if all := m.List(false); len(all) != 1 || all[0].Status != tools.TaskLost {
		t.Errorf("list = %+v", all)
	}
	if active := m.List(true); len(active) != 0 {
		t.Errorf("active list = %+v", active)
	}
	// The notification went into history directly: no steer, no turn.
	if len(r.steered) != 0 || len(r.appended) != 1 {
		t.Fatalf("steered %d, appended %d", len(r.steered), len(r.appended))
	}
	n := r.appended[0]
	contains(t, textOf(n), `<notification id="task:bash-k3j9x0qa:lost" category="task" type="task.lost"`,
		"Title: Background process lost", "Severity: warning",
		"npm test lost: kimigo stopped while the task was running.",
		`<output-file path="`+filepath.Join(home, "tasks", "bash-k3j9x0qa", "output.log")+`" bytes="15">`)
	if !n.Origin.Is(history.OriginBackgroundTask) || n.Origin.Status != "lost" {
		t.Errorf("origin = %+v", n.Origin)
	}
	if got := r.eventTypes(); len(got) != 1 || got[0] != "background.task.terminated" {
		t.Errorf("events = %v", got)
	}
	// TaskOutput still reads a lost task's log.
	snap, info, ok := m.Snapshot(t.Context(), "bash-k3j9x0qa", 100)
	if !ok || info.Status != tools.TaskLost || snap.Preview != "partial output\n" {
		t.Errorf("snapshot = %+v %+v %v", snap, info, ok)
	}

	// A second resume finds the notification delivered (history told the
	// manager) and appends nothing.
	m2, r2 := newManager(t, background.Options{Dir: home})
	m2.MarkDelivered(*n.Origin)
	if res, err := m2.Reconcile(t.Context()); err != nil || len(res.Lost) != 0 || len(r2.appended) != 0 {
		t.Errorf("second resume = %+v, %v, appended %d", res, err, len(r2.appended))
	}
}

func TestResumeDeliversOnlyWhatHistoryLacks(t *testing.T) {
	home := t.TempDir()
	writeRecord(t, home, tools.TaskInfo{TaskID: "bash-aaaaaaaa", Description: "done one", Status: tools.TaskCompleted,
		Detached: true, StartedAt: 1, EndedAt: ended(2), Kind: tools.TaskKindProcess, Command: "true"})
	writeRecord(t, home, tools.TaskInfo{TaskID: "bash-bbbbbbbb", Description: "told", Status: tools.TaskFailed,
		Detached: true, StartedAt: 3, EndedAt: ended(4), Kind: tools.TaskKindProcess, Command: "false"})
	writeRecord(t, home, tools.TaskInfo{TaskID: "bash-cccccccc", Description: "stopped", Status: tools.TaskKilled,
		Detached: true, StartedAt: 5, EndedAt: ended(6), StopReason: "Stopped by TaskStop", TerminalNotificationSuppressed: true,
		Kind: tools.TaskKindProcess})
	writeRecord(t, home, tools.TaskInfo{TaskID: "bash-dddddddd", Description: "foreground", Status: tools.TaskCompleted,
		Detached: false, StartedAt: 7, EndedAt: ended(8), Kind: tools.TaskKindProcess})
	m, r := newManager(t, background.Options{Dir: home})
	m.MarkDelivered(history.Origin{Kind: history.OriginBackgroundTask, TaskID: "bash-bbbbbbbb", Status: "failed",
		NotificationID: "task:bash-bbbbbbbb:failed"})
	res, err := m.Reconcile(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Notified) != 1 || res.Notified[0] != "bash-aaaaaaaa" || len(r.appended) != 1 {
		t.Errorf("notified %v, appended %d", res.Notified, len(r.appended))
	}
	if got := m.List(false); len(got) != 3 {
		t.Errorf("list = %+v; want the three background tasks", got)
	}
}

func TestHandEditedTasksDirIsReportedNotFatal(t *testing.T) {
	home := t.TempDir()
	dir := filepath.Join(home, "tasks")
	writeFile(t, filepath.Join(dir, "bash-aaaaaaaa.json"), "{not json")
	writeFile(t, filepath.Join(dir, "notanid.json"), "{}")
	writeFile(t, filepath.Join(dir, "bash-bbbbbbbb.json"), `{"taskId":"bash-cccccccc","status":"running","kind":"process"}`)
	writeFile(t, filepath.Join(dir, "bash-dddddddd.json"), `{"taskId":"bash-dddddddd","status":"exploded","kind":"process"}`)
	writeFile(t, filepath.Join(dir, "bash-eeeeeeee.json"), `{"taskId":"bash-eeeeeeee","status":"completed","kind":"process","detached":true,"startedAt":1,"endedAt":2,"description":"fine"}`)
	writeFile(t, filepath.Join(dir, "README"), "notes")
	if err := os.MkdirAll(filepath.Join(dir, "bash-eeeeeeee"), 0o700); err != nil {
		t.Fatal(err)
	}
	m, r := newManager(t, background.Options{Dir: home})
	res, err := m.Reconcile(t.Context())
	if err != nil {
		t.Fatalf("a bad record failed the resume: %v", err)
	}
	var msgs []string
	for _, p := range res.Problems {
		msgs = append(msgs, p.Error())
	}
	got := strings.Join(msgs, "\n")
	contains(t, got, filepath.Join(dir, "bash-aaaaaaaa.json")+": not a task record",
		filepath.Join(dir, "notanid.json")+`: "notanid" is not a task id`,
		filepath.Join(dir, "bash-bbbbbbbb.json")+`: record is for task "bash-cccccccc"`,
		filepath.Join(dir, "bash-dddddddd.json")+`: unknown status "exploded"`)
	if len(res.Problems) != 4 {
		t.Errorf("%d problems; want 4:\n%s", len(res.Problems), got)
	}
	if l := m.List(false); len(l) != 1 || l[0].TaskID != "bash-eeeeeeee" || len(r.appended) != 1 {
		t.Errorf("list %+v, appended %d", l, len(r.appended))
	}
}

func TestResumeStopsTheProcessesOfAKilledKimigo(t *testing.T) {
	home := t.TempDir()
	env := osenv.NewLocal(osenv.LocalOptions{Cwd: home, Environ: []string{"PATH=" + os.Getenv("PATH")}})
	// What a killed kimigo leaves: a group still running, nobody reading
	// its pipes, and a record saying it runs.
	p, err := env.Exec(osenv.Cmd{Args: []string{"/bin/sh", "-c", spawnTwo}, CombinedOutput: true})
	if err != nil {
		t.Fatal(err)
	}
	var buf [256]byte
	n, _ := p.Stdout().Read(buf[:])
	for len(pidsIn(string(buf[:n]))) < 3 {
		k, err := p.Stdout().Read(buf[n:])
		if err != nil {
			t.Fatal(err)
		}
		n += k
	}
	pids := pidsIn(string(buf[:n]))
	_ = p.Close()
	probe := background.LocalProcesses{}
	task := background.NewProcessTask(background.ProcessSpec{Process: p, Command: spawnTwo, Description: "sleeps"})
	info := task.Info(tools.TaskInfo{TaskID: "bash-orphan01", Description: "sleeps", Status: tools.TaskRunning, Detached: true,
		StartedAt: 1, Kind: tools.TaskKindProcess})
	if info.Pid != p.Pid() || info.ProcessStart == 0 || !probe.Running(info.Pid, info.ProcessStart) {
		t.Fatalf("the probe does not see the live group: %+v", info)
	}
	writeRecord(t, home, info)
	// A record whose pid now belongs to someone else (here: the test
	// itself) must never be signalled.
	writeRecord(t, home, tools.TaskInfo{TaskID: "bash-recycled", Description: "old", Status: tools.TaskRunning, Detached: true,
		StartedAt: 2, Kind: tools.TaskKindProcess, Pid: os.Getpid(), ProcessStart: 1})

	m, _ := newManager(t, background.Options{Dir: home})
	res, err := m.Reconcile(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Lost) != 2 || len(res.Orphans) != 1 || res.Orphans[0].TaskID != "bash-orphan01" {
		t.Fatalf("lost %+v orphans %+v", res.Lost, res.Orphans)
	}
	lost, _ := m.Get("bash-orphan01")
	contains(t, lost.StopReason, "were still running and were stopped")
	waitGone(t, pids)
	if err := p.Wait(); err != nil {
		t.Fatal(err)
	}
}

func TestRecordsFollowTheTask(t *testing.T) {
	home := t.TempDir()
	m, _ := newManager(t, background.Options{Dir: home})
	g := newGated(true)
	h := mustRegister(t, m, background.NewAgentTask(g.spec("child")), background.RegisterOptions{})
	rec := func() tools.TaskInfo {
		b, err := os.ReadFile(filepath.Join(home, "tasks", h.ID()+".json"))
		if err != nil {
			t.Fatal(err)
		}
		var info tools.TaskInfo
		if err := json.Unmarshal(b, &info); err != nil {
			t.Fatal(err)
		}
		return info
	}
	if r := rec(); r.Status != tools.TaskRunning || r.AgentID != "agent-child001" || r.SubagentType != "coder" {
		t.Errorf("record at start = %+v", r)
	}
	g.finish("final text")
	<-h.Done()
	if r := rec(); r.Status != tools.TaskCompleted || r.EndedAt == nil {
		t.Errorf("record at end = %+v", r)
	}
	if b, _ := os.ReadFile(filepath.Join(home, "tasks", h.ID(), "output.log")); string(b) != "final text" {
		t.Errorf("output.log = %q", b)
	}
	// A foreground task that never spilled leaves nothing on disk.
	fg := newGated(true)
	f := mustRegister(t, m, background.NewAgentTask(fg.spec("fg")), background.RegisterOptions{Foreground: true, Signal: t.Context()})
	fg.finish("small")
	<-f.Done()
	if _, err := os.Stat(filepath.Join(home, "tasks", f.ID()+".json")); !os.IsNotExist(err) {
		t.Errorf("a foreground task left a record: %v", err)
	}
	if !background.ValidID(h.ID()) || background.ValidID("../etc") {
		t.Error("ValidID")
	}
}

// racingFS deletes the agent's home while kimigo makes a directory in
// it, as a user's rm -rf would: right after a look at the home succeeds,
// or just before a directory is made.
type racingFS struct {
	osenv.FS
	home  string
	armed bool
}

func (r *racingFS) strike() {
	if r.armed {
		os.RemoveAll(filepath.Dir(r.home))
	}
}

func (r *racingFS) Stat(name string) (fs.FileInfo, error) {
	fi, err := r.FS.Stat(name)
	if name == r.home && err == nil {
		r.strike()
	}
	return fi, err
}

func (r *racingFS) Mkdir(name string, perm fs.FileMode) error {
	r.strike()
	return r.FS.Mkdir(name, perm)
}

func (r *racingFS) MkdirAll(name string, perm fs.FileMode) error {
	r.strike()
	return r.FS.MkdirAll(name, perm)
}

// A home deleted while a task runs (the user removed the session) stays
// deleted, however the deletion falls between kimigo's steps: the task's
// later records and output fail, logged, instead of bringing the home
// back with only task files in it.
func TestDeletedHomeStaysDeleted(t *testing.T) {
	home := filepath.Join(t.TempDir(), "agents", "main")
	if err := os.MkdirAll(home, 0o700); err != nil {
		t.Fatal(err)
	}
	rfs := &racingFS{FS: osenv.NewLocal(osenv.LocalOptions{}), home: home}
	m, _ := newManager(t, background.Options{Dir: home, FS: rfs})
	g := newGated(true)
	h := mustRegister(t, m, background.NewAgentTask(g.spec("review")), background.RegisterOptions{})
	rfs.armed = true
	g.finish("done")
	<-h.Done()
	if _, known := m.Wait(t.Context(), h.ID()); !known {
		t.Fatalf("task %s unknown after it ended", h.ID())
	}
	if _, err := os.Stat(filepath.Dir(home)); !os.IsNotExist(err) {
		t.Errorf("the deleted home came back: %v", err)
	}
}
