package tui

import (
	"context"
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/ui/render"
)

// swarmer is swarm mode as the TUI drives it (/swarm, spec 04 §7.1).
type swarmer interface {
	SetSwarmMode(ctx context.Context, on bool) error
	SwarmMode() bool
	StartSwarmTask(ctx context.Context, task string) error
}

// cmdSwarm is /swarm: on and off switch swarm mode, no argument toggles
// it, and anything else is a task that runs as a prompt in swarm mode
// for its turn.
func cmdSwarm(c *Ctx, args string) tea.Cmd {
	m := c.m
	sw, ok := m.sess.(swarmer)
	if !ok {
		c.Warn("This session has no swarm mode.")
		return nil
	}
	args = strings.TrimSpace(args)
	switch strings.ToLower(args) {
	case "", "on", "off":
		on := !sw.SwarmMode()
		if args != "" {
			on = strings.EqualFold(args, "on")
		}
		state := "off"
		if on {
			state = "on"
		}
		c.Info(fmt.Sprintf("Swarm mode %s.", state))
		return c.Call("swarm", func(ctx context.Context, _ Session) error { return sw.SetSwarmMode(ctx, on) })
	}
	if m.busy() {
		c.Warn("Cannot start a swarm task while streaming — press Esc or Ctrl-C first.")
		return nil
	}
	if m.mode() != event.ModeManual {
		return startSwarmTask(m, sw, args)
	}
	// In manual mode every child's call would ask: offer auto or yolo
	// first (spec 04 §7.2). Closing the picker starts nothing.
	var items []choice
	for _, md := range []event.PermissionMode{event.ModeAuto, event.ModeYolo, event.ModeManual} {
		items = append(items, choice{label: string(md), detail: modeDescriptions[md], value: md})
	}
	p := newPicker("A swarm runs many subagents: switch the permission mode first?", items)
	p.choose = func(m *Model, ch choice) tea.Cmd {
		if m.busy() {
			m.notice(render.Warning, "Cannot start a swarm task while streaming — press Esc or Ctrl-C first.")
			return nil
		}
		var mode tea.Cmd
		if md := ch.value.(event.PermissionMode); md != m.mode() {
			mode = m.setMode(md) // queued before the task: the calls run in order
		}
		return tea.Batch(mode, startSwarmTask(m, sw, args))
	}
	m.overlay = p
	return nil
}

// startSwarmTask shows task as the user's prompt and runs it in swarm
// mode.
func startSwarmTask(m *Model, sw swarmer, task string) tea.Cmd {
	args := task
	m.print(render.UserMessage(m.theme, args, m.width, false))
	m.prompts = append(m.prompts, args)
	m.content = true
	m.turn = &turnState{id: -1, started: m.now(), phase: phaseWaiting}
	return tea.Batch(m.call("prompt", func(ctx context.Context) error { return sw.StartSwarmTask(ctx, args) }), m.animate())
}

// maxSuspendedLines caps the rows of suspended children; the rest are
// counted on one more row.
const maxSuspendedLines = 3

// suspension is a child held back by a rate limit (subagent.suspended),
// why, and since when.
type suspension struct {
	id, reason string
	since      time.Time
}

// suspend shows child id as held back for reason, replacing what an
// earlier suspension of it said.
func (m *Model) suspend(id, reason string) {
	m.unsuspend(id)
	m.suspended = append(m.suspended, suspension{id: id, reason: reason, since: m.now()})
	m.touch()
}

// unsuspend drops child id's suspended line: it runs again or ended.
func (m *Model) unsuspend(id string) {
	for i, s := range m.suspended {
		if s.id == id {
			m.suspended = append(m.suspended[:i:i], m.suspended[i+1:]...)
			m.touch()
			return
		}
	}
}

// suspendedLines renders the suspended children below the activity
// line, "agent-3 suspended: <reason> · 4s", the first few and a count of
// the rest.
func (m *Model) suspendedLines() []string {
	var out []string
	for i, s := range m.suspended {
		if i == maxSuspendedLines && len(m.suspended) > maxSuspendedLines+1 {
			out = append(out, m.theme.Warning.Render(fmt.Sprintf("  … %d more suspended", len(m.suspended)-i)))
			break
		}
		line := "  " + s.id + " suspended"
		if r := strings.TrimSpace(s.reason); r != "" {
			line += ": " + r
		}
		line += " · " + elapsed(m.now().Sub(s.since))
		out = append(out, m.theme.Warning.Render(render.Truncate(line, m.width-1)))
	}
	return out
}
