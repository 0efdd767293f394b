package background

import (
	"context"
	"errors"
	"time"

	"github.com/kimigo/kimigo/tools"
)

// lifecycle races the task's settlement, its deadline, a stop request and,
// while a tool call waits for it, that call's end (spec 05 §6.3). It runs
// on its own goroutine, the only one that changes the task's status.
func (m *Manager) lifecycle(e *entry) {
	defer m.wg.Done()
	var (
		timer    *time.Timer
		deadline <-chan time.Time
		signal   <-chan struct{}
	)
	arm := func(d time.Duration) {
		if timer != nil {
			timer.Stop()
		}
		timer, deadline = nil, nil
		if d > 0 {
			timer = time.NewTimer(d)
			deadline = timer.C
		}
	}
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	arm(e.timeout)
	if e.signal != nil {
		signal = e.signal.Done()
	}
	for {
		select {
		case s := <-e.settled:
			m.finish(e, s)
			return
		case <-deadline:
			if signal != nil && e.autoBackground {
				m.detach(e, tools.ReleaseTimeoutDetached)
				signal = nil
				arm(e.detachTimeout)
				continue
			}
			m.finish(e, m.stopWorker(e, errTimedOut, tools.TaskTimedOut, ""))
			return
		case <-e.stopReq:
			m.mu.Lock()
			reason, cause := e.requested, e.stopCause
			m.mu.Unlock()
			if cause == nil {
				cause = errors.New(reason)
			}
			m.finish(e, m.stopWorker(e, cause, tools.TaskKilled, reason))
			return
		case <-signal:
			// The task is aborted with the call's cause (spec 05 §6.3), so
			// a user's cancel reaches it as the user's.
			m.mu.Lock()
			if e.requested == "" {
				e.stopCause = context.Cause(e.signal)
			}
			m.mu.Unlock()
			e.requestStop("Interrupted by user")
			signal = nil
		case kind := <-e.detachReq:
			if signal != nil {
				m.detach(e, kind)
				signal = nil
				arm(e.detachTimeout)
			}
		}
	}
}

// stopWorker aborts the task with cause and waits up to the grace for it
// to settle, forcing it afterwards (spec 05 §6.3). A stop's natural
// settlement within the grace (the process exited 0 right then) wins;
// otherwise the task ends with status and reason.
func (m *Manager) stopWorker(e *entry, cause error, status tools.TaskStatus, reason string) Settlement {
	e.cancel(cause)
	grace := time.NewTimer(m.grace)
	defer grace.Stop()
	select {
	case s := <-e.settled:
		if status == tools.TaskKilled && s.Status != tools.TaskKilled && s.Status != tools.TaskTimedOut {
			return s
		}
		return Settlement{Status: status, Reason: reason, ExitCode: s.ExitCode}
	case <-grace.C:
	}
	f, ok := e.task.(ForceStopper)
	if !ok {
		return Settlement{Status: status, Reason: reason}
	}
	f.ForceStop()
	s := <-e.settled // a task that can be forced settles once forced
	return Settlement{Status: status, Reason: reason, ExitCode: s.ExitCode}
}

// detach moves a foreground task to the background: its output goes to
// disk from now on, the model will be notified of its end, and the call
// waiting for it is released.
func (m *Manager) detach(e *entry, kind tools.ReleaseKind) {
	m.mu.Lock()
	e.info.Detached = true
	info := e.infoLocked()
	m.mu.Unlock()
	e.outMu.Lock()
	e.onOutput = nil
	e.startLogLocked()
	e.outMu.Unlock()
	if d, ok := e.task.(Detacher); ok {
		d.OnDetach()
	}
	m.writeInfo(info)
	m.emit(TaskStarted{Info: info})
	e.releaseWith(kind)
	m.log.Info("background task detached", "task_id", e.id, "release", kind)
}

// finish records the task's end: status, end time and reason, the closed
// log, the persisted record, and for a background task the notification
// and the terminated event.
func (m *Manager) finish(e *entry, s Settlement) {
	now := time.Now().UnixMilli()
	e.outMu.Lock()
	e.closeLogLocked()
	e.outMu.Unlock()
	m.mu.Lock()
	e.info.Status = s.Status
	e.info.EndedAt = &now
	e.info.ExitCode = s.ExitCode
	e.info.StopReason = s.Reason
	if s.Status == tools.TaskKilled && e.requested != "" {
		e.info.StopReason = e.requested
	}
	info := e.infoLocked()
	m.mu.Unlock()
	switch {
	case info.Detached || e.persisted():
		m.writeInfo(info)
	case e.kind == tools.TaskKindProcess:
		m.dropInfo(e.id) // the record it kept while running
	}
	if info.Detached {
		m.notify(e, info)
		m.emit(TaskTerminated{Info: info})
	}
	e.releaseWith(tools.ReleaseTerminal)
	e.cancel(errFinished)
	close(e.done)
	m.log.Info("background task ended", "task_id", e.id, "status", info.Status,
		"duration_ms", now-info.StartedAt)
}

// errFinished releases the stop signal of a task that ended on its own.
var errFinished = errors.New("task finished")
