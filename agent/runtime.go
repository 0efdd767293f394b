package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/kimigo/kimigo/agent/background"
	"github.com/kimigo/kimigo/agent/cron"
	"github.com/kimigo/kimigo/agent/history"
	"github.com/kimigo/kimigo/agent/records"
	"github.com/kimigo/kimigo/agent/turn"
	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/tools"
)

// The agent's runtime subsystems: reminders (Options.Injection),
// background tasks (Options.Background) and cron (Options.Cron). Each is
// built by the caller, bound to the agent here, restored by Resume and
// closed with the agent. They reach the agent only through the adapters
// below, which take the agent's locks themselves.

// historyHooks are history's callbacks: they run under the state lock
// and only update the subsystems' own state.
func (a *Agent) historyHooks() history.Hooks {
	h := history.Hooks{
		Cleared: func() {
			a.toolsReset()
			if a.o.Injection != nil {
				a.o.Injection.OnContextClear()
			}
		},
		Compacted: func() {
			a.toolsReset()
			if a.o.Injection != nil {
				a.o.Injection.OnContextCompacted()
			}
		},
	}
	if a.o.Injection != nil {
		h.MessageRemoved = func(i int, _ history.Message) { a.o.Injection.OnMessageRemoved(i) }
	}
	h.DynamicTools = a.disclosure // progressive disclosure keeps schemas and announcements
	h.ShapeDynamicTools = a.shapeDynamicTools
	if a.o.Background != nil {
		h.NotificationDelivered = a.o.Background.MarkDelivered
	}
	return h
}

// bindRuntime connects the subsystems to the agent and starts the cron
// ticker (a resumed agent's jobs are loaded by Resume; until then there
// are none to fire).
func (a *Agent) bindRuntime() {
	if a.o.Injection != nil {
		a.o.Injection.Bind(injectionHost{a})
	}
	if a.o.Background != nil {
		a.o.Background.Bind(backgroundHost{runtimeHost{a}})
	}
	if a.o.Cron != nil {
		a.o.Cron.Bind(cronHost{runtimeHost{a}})
		a.o.Cron.Start()
	}
	a.bindModes()
}

// injector is the turn's injector, or nil.
func (a *Agent) injector() turn.Injector {
	if a.o.Injection == nil {
		return nil
	}
	return a.o.Injection
}

// reinject re-adds the reminders a compaction dropped (spec 03 §6.8 step
// 3).
func (a *Agent) reinject(ctx context.Context) error {
	if a.o.Injection == nil {
		return nil
	}
	return a.o.Injection.InjectAfterCompaction(ctx)
}

// resumeRuntime is the runtime's part of the post-replay phase (spec 02
// §6.14 step 3): background tasks that were running become lost and the
// notifications history lacks are appended (no turn starts); the cron
// jobs are loaded. A task or job file that does not read is logged and
// skipped. It reports whether it committed records.
func (a *Agent) resumeRuntime(ctx context.Context) (bool, error) {
	wrote := false
	if b := a.o.Background; b != nil {
		res, err := b.Reconcile(ctx)
		wrote = len(res.Notified) > 0
		if err != nil {
			return wrote, fmt.Errorf("resume background tasks: %w", err)
		}
		for _, p := range res.Problems {
			a.logger.Warn("background task record skipped", "error", p)
		}
		if len(res.Lost) > 0 {
			a.logger.Info("background tasks lost while kimigo was stopped", "count", len(res.Lost), "orphans", len(res.Orphans))
		}
	}
	if c := a.o.Cron; c != nil {
		for _, p := range c.Load() {
			a.logger.Warn("cron job file skipped", "error", p)
		}
	}
	return wrote, nil
}

// closeRuntime stops the background tasks (their processes too) and the
// cron ticker.
func (a *Agent) closeRuntime(ctx context.Context) error {
	var err error
	if c := a.o.Cron; c != nil {
		err = errors.Join(err, c.Close(ctx))
	}
	if b := a.o.Background; b != nil {
		err = errors.Join(err, b.Close(ctx))
	}
	return err
}

// appendMessage commits msg to history (context.append_message).
func (a *Agent) appendMessage(ctx context.Context, msg history.Message) error {
	_, err := a.commitPayload(ctx, records.Type(history.TypeAppendMessage), history.AppendMessageRecord{Message: msg})
	return err
}

// runtimeHost is the agent as the background and cron managers see it.
type runtimeHost struct{ a *Agent }

// Steer implements background.Host and cron.Host.
func (h runtimeHost) Steer(ctx context.Context, parts []llm.ContentPart, origin *history.Origin) error {
	_, err := h.a.Steer(ctx, parts, origin)
	return err
}

// AppendMessage implements background.Host.
func (h runtimeHost) AppendMessage(ctx context.Context, m history.Message) error {
	return h.a.appendMessage(ctx, m)
}

// Idle implements cron.Host: no turn runs.
func (h runtimeHost) Idle() bool { return !h.a.turns.HasActiveTurn() }

// backgroundHost and cronHost add Publish, whose argument type differs
// between the two managers: the event goes to the agent's sinks.
type backgroundHost struct{ runtimeHost }

// Publish implements background.Host: a task event goes out as the
// front end's.
func (h backgroundHost) Publish(ev background.Event) {
	switch e := ev.(type) {
	case background.TaskStarted:
		h.a.events.Publish(event.TaskStarted{Header: event.InTurn(event.NoTurn), Task: taskOf(e.Info)})
	case background.TaskTerminated:
		h.a.events.Publish(event.TaskTerminated{Header: event.InTurn(event.NoTurn), Task: taskOf(e.Info)})
	}
}

// taskOf is the front end's view of a task.
func taskOf(i tools.TaskInfo) event.Task {
	return event.Task{ID: i.TaskID, Kind: string(i.Kind), Description: i.Description, Status: string(i.Status),
		Detached: i.Detached, StartedAt: i.StartedAt, EndedAt: i.EndedAt, StopReason: i.StopReason,
		Command: i.Command, ExitCode: i.ExitCode, SubagentID: i.AgentID}
}

// HookNotification is the hook event fired for each notification the
// model is sent (spec 05 §6.6); the matcher is the notification type.
const HookNotification turn.HookEvent = "Notification"

// Notified implements background.Host: the Notification hook runs, not
// awaited.
func (h backgroundHost) Notified(n background.Notification) {
	if h.a.o.Hooks == nil {
		return
	}
	h.a.o.Hooks.Fire(HookNotification, n.Type, map[string]any{"sink": "context", "notificationType": n.Type,
		"title": n.Title, "body": n.Body, "severity": n.Severity, "sourceKind": n.SourceKind, "sourceId": n.SourceID})
}

type cronHost struct{ runtimeHost }

// Publish implements cron.Host: a fire goes out as the front end's event.
func (h cronHost) Publish(ev cron.Event) {
	if e, ok := ev.(cron.Fired); ok {
		h.a.events.Publish(event.CronFired{Header: event.InTurn(event.NoTurn), JobID: e.Origin.JobID, Prompt: e.Prompt})
	}
}

// injectionHost is the agent as injectors see it.
type injectionHost struct{ a *Agent }

// History implements injection.Host.
func (h injectionHost) History() []history.Message { return h.a.History() }

// AppendMessage implements injection.Host.
func (h injectionHost) AppendMessage(ctx context.Context, m history.Message) error {
	return h.a.appendMessage(ctx, m)
}

// PermissionMode implements injection.Host; an agent without a
// permission manager is in manual mode.
func (h injectionHost) PermissionMode() string {
	if h.a.perm == nil {
		return "manual"
	}
	return string(h.a.perm.Mode())
}

// ToolActive implements injection.Host.
func (h injectionHost) ToolActive(name string) bool {
	table, _ := h.a.toolTable(context.Background()) // the table never fails
	for _, t := range table {
		if t.Definition().Name == name {
			return true
		}
	}
	return false
}

// Todos implements injection.Host.
func (h injectionHost) Todos() []tools.TodoItem {
	h.a.mu.Lock()
	raw, ok := h.a.store.Get(tools.StoreKeyTodo)
	h.a.mu.Unlock()
	var items []tools.TodoItem
	if ok {
		_ = json.Unmarshal(raw, &items) // a malformed stored list reads as empty, as the tool reads it
	}
	return items
}

// LoadableTools implements injection.Host: the tools select_tools may
// load, when progressive disclosure is on.
func (h injectionHost) LoadableTools() (names []string, disclosure bool) {
	if !h.a.disclosure() {
		return nil, false
	}
	return h.a.manager.Loadable(), true
}

// ActiveTasks implements injection.Host.
func (h injectionHost) ActiveTasks() []tools.TaskInfo {
	if h.a.o.Background == nil {
		return nil
	}
	return h.a.o.Background.List(true)
}
