package background

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/kimigo/kimigo/osenv"
	"github.com/kimigo/kimigo/tools"
)

// validID is the shape of a task id; it is checked before an id names a
// path, so a hand-edited record cannot point outside tasks/ (spec 05
// §6.7).
var validID = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9]+(?:-[a-z0-9]+)*-[0-9a-z]{8}$`) })

// ValidID reports whether id has the shape of a task id.
func ValidID(id string) bool { return validID().MatchString(id) }

// writeInfo writes tasks/<id>.json atomically. A failure is logged: the
// task goes on, and a resume would not find it.
func (m *Manager) writeInfo(info tools.TaskInfo) { m.saveInfo(info, true) }

// saveInfo writes the record; durable syncs it to disk first. A record
// that only has to outlive a crash of kimigo, not of the machine (a
// foreground command's, found by a resume after kill -9), skips the sync.
func (m *Manager) saveInfo(info tools.TaskInfo, durable bool) {
	if m.o.Dir == "" {
		return
	}
	data, err := json.MarshalIndent(info, "", "  ")
	if err == nil {
		err = m.ensureDir(m.tasksDir())
	}
	p := path.Join(m.tasksDir(), info.TaskID+".json")
	if err == nil {
		if durable {
			err = osenv.WriteFileAtomic(m.fs, p, append(data, '\n'), 0o600)
		} else {
			err = m.writeQuick(p, append(data, '\n'))
		}
	}
	if err != nil {
		m.log.Warn("cannot save background task record", "task_id", info.TaskID, "path", p, "error", err)
	}
}

// writeQuick replaces p through a temporary file and a rename, without
// syncing.
func (m *Manager) writeQuick(p string, data []byte) error {
	tmp := p + ".tmp"
	f, err := m.fs.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = m.fs.Rename(tmp, p)
	}
	if err != nil {
		_ = m.fs.Remove(tmp) // best effort: it may not exist
	}
	return err
}

// dropInfo removes the record of a foreground command that ended without
// leaving output on disk: such a task leaves nothing behind.
func (m *Manager) dropInfo(id string) {
	if m.o.Dir == "" {
		return
	}
	p := path.Join(m.tasksDir(), id+".json")
	if err := m.fs.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		m.log.Warn("cannot remove background task record", "task_id", id, "path", p, "error", err)
	}
}

// LoadError is a task record a resume skipped, and why.
type LoadError struct {
	Path string
	Err  error
}

func (e LoadError) Error() string { return fmt.Sprintf("background task record %s: %v", e.Path, e.Err) }

func (e LoadError) Unwrap() error { return e.Err }

// load reads the task records on disk (spec 05 §6.7). Files that are not
// records are ignored; records that do not read are returned as problems
// and skipped, never fatal.
func (m *Manager) load() ([]tools.TaskInfo, []error) {
	entries, err := m.fs.ReadDir(m.tasksDir())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, []error{LoadError{Path: m.tasksDir(), Err: err}}
	}
	var (
		out      []tools.TaskInfo
		problems []error
	)
	for _, de := range entries {
		name := de.Name()
		id, ok := strings.CutSuffix(name, ".json")
		if !ok || de.IsDir() {
			continue // output directories and other files
		}
		p := path.Join(m.tasksDir(), name)
		if !ValidID(id) {
			problems = append(problems, LoadError{Path: p, Err: fmt.Errorf("%q is not a task id", id)})
			continue
		}
		data, err := m.fs.ReadFile(p)
		if err != nil {
			problems = append(problems, LoadError{Path: p, Err: err})
			continue
		}
		var info tools.TaskInfo
		if err := json.Unmarshal(data, &info); err != nil {
			problems = append(problems, LoadError{Path: p, Err: fmt.Errorf("not a task record: %w", err)})
			continue
		}
		if err := info.Validate(); err != nil {
			problems = append(problems, LoadError{Path: p, Err: err})
			continue
		}
		if info.TaskID != id {
			problems = append(problems, LoadError{Path: p, Err: fmt.Errorf("record is for task %q", info.TaskID)})
			continue
		}
		out = append(out, info)
	}
	slices.SortFunc(out, func(a, b tools.TaskInfo) int {
		if a.StartedAt != b.StartedAt {
			return int(a.StartedAt - b.StartedAt)
		}
		return strings.Compare(a.TaskID, b.TaskID)
	})
	return out, problems
}

// ReconcileResult is what Reconcile found.
type ReconcileResult struct {
	// Lost are the tasks that were running when kimigo stopped.
	Lost []tools.TaskInfo
	// Orphans are the lost tasks whose processes were still running; they
	// were stopped (their process groups terminated).
	Orphans []tools.TaskInfo
	// Notified are the tasks whose undelivered notifications were
	// appended to history.
	Notified []string
	// Problems are records that could not be read, and other failures
	// that did not stop the resume.
	Problems []error
}

// Reconcile is the background part of an agent's resume (spec 02 §6.14,
// spec 05 §6.7), called after the replay: it loads the task records on
// disk that are not live tasks, turns every one that was still running
// into a lost task (rewriting its record; a process group it left behind
// is stopped and reported), then appends to history, without starting a
// turn, the notification of every finished background task that never
// reached it.
func (m *Manager) Reconcile(ctx context.Context) (ReconcileResult, error) {
	var res ReconcileResult
	if m.o.Dir != "" {
		infos, problems := m.load()
		res.Problems = problems
		for _, p := range problems {
			m.log.Warn("skipped a background task record", "error", p)
		}
		now := time.Now().UnixMilli()
		for _, info := range infos {
			m.mu.Lock()
			_, live := m.entries[info.TaskID]
			if !live {
				if _, seen := m.ghosts[info.TaskID]; !seen {
					m.order = append(m.order, info.TaskID)
				}
			}
			m.mu.Unlock()
			if live {
				continue
			}
			if info.Status == tools.TaskRunning {
				info = m.lose(info, now, &res)
			}
			m.mu.Lock()
			m.ghosts[info.TaskID] = info
			m.mu.Unlock()
		}
	}
	for _, n := range m.undelivered() {
		m.mu.Lock()
		host := m.host
		m.mu.Unlock()
		if host == nil {
			break
		}
		if err := host.AppendMessage(ctx, n.Message()); err != nil {
			return res, fmt.Errorf("deliver notification of %s: %w", n.SourceID, err)
		}
		m.MarkDelivered(*n.Origin)
		res.Notified = append(res.Notified, n.SourceID)
	}
	return res, nil
}

// lose turns a record of a task that was running into a lost task. A
// process group it left behind is terminated (SIGTERM now, SIGKILL after
// the grace) and named in the stop reason.
func (m *Manager) lose(info tools.TaskInfo, now int64, res *ReconcileResult) tools.TaskInfo {
	info.Status = tools.TaskLost
	if info.EndedAt == nil {
		info.EndedAt = &now
	}
	info.StopReason = "kimigo stopped while the task was running"
	if info.Kind == tools.TaskKindProcess && info.Pid > 0 && m.probe.Running(info.Pid, info.ProcessStart) {
		info.StopReason += fmt.Sprintf("; its processes (group %d) were still running and were stopped", info.Pid)
		m.terminateOrphan(info.Pid, info.ProcessStart)
		res.Orphans = append(res.Orphans, info)
		m.log.Warn("stopped the processes of a lost background task", "task_id", info.TaskID, "pid", info.Pid)
	}
	m.writeInfo(info)
	res.Lost = append(res.Lost, info)
	m.emit(TaskTerminated{Info: info})
	return info
}

// terminateOrphan sends SIGTERM to the group and SIGKILL after the grace
// if it still runs; the goroutine belongs to the manager.
func (m *Manager) terminateOrphan(pid int, start uint64) {
	if err := m.probe.Terminate(pid, syscall.SIGTERM); err != nil {
		m.log.Warn("stop lost task processes", "pid", pid, "error", err)
	}
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		t := time.NewTimer(m.grace)
		defer t.Stop()
		select {
		case <-t.C:
		case <-m.closing:
		}
		if m.probe.Running(pid, start) {
			if err := m.probe.Terminate(pid, syscall.SIGKILL); err != nil {
				m.log.Warn("kill lost task processes", "pid", pid, "error", err)
			}
		}
	}()
}

// Snapshot implements tools.BackgroundTasks (spec 05 §6.5).
func (m *Manager) Snapshot(_ context.Context, id string, maxPreview int) (tools.OutputSnapshot, tools.TaskInfo, bool) {
	m.mu.Lock()
	e, live := m.entries[id]
	ghost, isGhost := m.ghosts[id]
	var info tools.TaskInfo
	if live {
		info = e.infoLocked()
	}
	m.mu.Unlock()
	switch {
	case live:
		return e.snapshot(maxPreview), info, true
	case isGhost:
		p := path.Join(m.tasksDir(), id, "output.log")
		snap, ok := m.fileSnapshot(p, maxPreview)
		if !ok {
			snap = tools.OutputSnapshot{}
		}
		return snap, ghost, true
	}
	return tools.OutputSnapshot{}, tools.TaskInfo{}, false
}

// snapshot reads the output so far: from the log when there is one, else
// from the ring. Writes happen under outMu, so holding it is the flush
// barrier.
func (e *entry) snapshot(maxPreview int) tools.OutputSnapshot {
	e.outMu.Lock()
	logPath, total, tail := e.logPath, e.total, e.ring.tail(maxPreview)
	e.outMu.Unlock()
	if logPath != "" {
		if snap, ok := e.m.fileSnapshot(logPath, maxPreview); ok {
			return snap
		}
	}
	tail = runeAligned(tail)
	return tools.OutputSnapshot{OutputSizeBytes: total, PreviewBytes: len(tail),
		Truncated: total > int64(len(tail)), Preview: string(tail)}
}

// fileSnapshot previews the last maxPreview bytes of a log file.
func (m *Manager) fileSnapshot(p string, maxPreview int) (tools.OutputSnapshot, bool) {
	f, err := m.fs.OpenFile(p, 0, 0)
	if err != nil {
		return tools.OutputSnapshot{}, false
	}
	defer func() { _ = f.Close() }() // read-only
	st, err := f.Stat()
	if err != nil {
		return tools.OutputSnapshot{}, false
	}
	size := st.Size()
	off := max(size-int64(maxPreview), 0)
	buf := make([]byte, size-off)
	n, err := f.ReadAt(buf, off)
	if err != nil && !errors.Is(err, io.EOF) {
		return tools.OutputSnapshot{}, false
	}
	prev := buf[:n]
	if off > 0 {
		prev = runeAligned(prev)
	}
	return tools.OutputSnapshot{OutputPath: p, OutputSizeBytes: size, PreviewBytes: len(prev),
		Truncated: off > 0, FullOutputAvailable: true, Preview: string(prev)}, true
}
