package tui

import (
	"encoding/json"
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/loop"
	"github.com/kimigo/kimigo/mcp"
	"github.com/kimigo/kimigo/ui/render"
)

// mainAgent is the main agent's id in event headers.
const mainAgent = "main"

// maxLiveOutput caps what a running command's output keeps: its tail.
const maxLiveOutput = 64 << 10

func isMain(h event.Header) bool { return h.AgentID == "" || h.AgentID == mainAgent }

// handleEvent folds one event of the session into the model.
func (m *Model) handleEvent(ev event.Event) tea.Cmd {
	h := ev.EventHeader()
	switch e := ev.(type) {
	case event.ApprovalRequested:
		return m.openApproval(e)
	case event.QuestionRequested:
		return m.openQuestion(e)
	case event.RequestClosed:
		m.closeRequest(e.RequestID)
		return nil
	case event.ShellOutput:
		m.shellOutput(e)
		return nil
	case event.Notice:
		l := render.Info
		if e.Level == event.NoticeWarning {
			l = render.Warning
		}
		m.notice(l, e.Text)
		return nil
	case event.MCPServer:
		if e.Status == string(mcp.StatusFailed) {
			m.mcpFailure(e.Name, e.Error)
		} else {
			delete(m.mcpFailed, e.Name) // a later failure shows again
		}
		return nil
	case event.GoalUpdated:
		if isMain(h) {
			m.goalUpdated(e)
		}
		return nil
	case event.Status:
		if isMain(h) {
			m.status = e
			m.touch()
		}
		return nil
	case event.SubagentSuspended:
		m.suspend(e.SubagentID, e.Reason)
		return nil
	case event.SubagentStarted:
		m.unsuspend(e.SubagentID) // a suspended child's retry starts again
		return nil
	case event.SubagentCompleted:
		m.unsuspend(e.SubagentID)
		return nil
	case event.SubagentFailed:
		m.unsuspend(e.SubagentID)
		return nil
	}
	if !isMain(h) {
		if m.side != nil && m.side.id != "" && h.AgentID == m.side.id {
			return m.sideEvent(ev)
		}
		m.childEvent(ev)
		return nil // a subagent's stream: its approvals and notices are shown above
	}
	switch e := ev.(type) {
	case event.TurnStarted:
		m.turnSeq++
		if m.turn == nil {
			m.turn = &turnState{started: m.now()}
		}
		m.turn.id, m.turn.phase = e.TurnID, phaseWaiting
		m.pickTip(1)
		m.content = true
		m.touch()
	case event.StepStarted:
		m.ensureTurn(h)
		m.turn.phase, m.turn.retry, m.turn.detail = phaseWaiting, "", ""
		m.touch()
	case event.ThinkingDelta:
		m.ensureTurn(h)
		it := m.tail(itemThinking)
		if it == nil {
			if strings.TrimSpace(e.Delta) == "" {
				return nil
			}
			it = m.push(&item{kind: itemThinking, started: m.now()})
		}
		it.buf.WriteString(e.Delta)
		m.turn.phase = phaseThinking
		m.streamDirty = true
	case event.AssistantDelta:
		m.ensureTurn(h)
		m.closeThinking()
		it := m.tail(itemText)
		if it == nil {
			it = m.push(&item{kind: itemText})
		}
		it.buf.WriteString(e.Delta)
		m.lastAnswer = it.buf.String()
		if m.turn.phase != phaseComposing {
			m.turn.phase = phaseComposing
			m.pickTip(2)
		}
		m.streamDirty = true
	case event.ToolCallDelta:
		m.ensureTurn(h)
		it := m.toolItem(e.ToolCallID, e.Name)
		it.tool.Partial += e.ArgumentsPart
		if m.turn.phase != phaseComposing {
			m.turn.phase = phaseComposing
			m.pickTip(2)
		}
		m.streamDirty = true
	case event.ToolCallStarted:
		m.ensureTurn(h)
		it := m.toolItem(e.ToolCallID, e.Name)
		it.tool.Args, it.tool.State = e.Args, render.ToolRunning
		it.started = m.now()
		m.change(it.tool, e.Display)
		m.turn.phase = phaseTool
		m.turn.tool = render.ToolHeader(render.Plain(), it.tool, 200)[len(render.Bullet):]
		m.pickTip(1)
		m.touch()
	case event.ToolProgress:
		if it := m.byID[e.ToolCallID]; it != nil {
			switch e.Update.Kind {
			case loop.ProgressStdout, loop.ProgressStderr:
				out := it.tool.Output + e.Update.Text
				if len(out) > maxLiveOutput {
					out = out[len(out)-maxLiveOutput:]
				}
				it.tool.Output = out
			default:
				if t := progressText(e.Update); t != "" {
					it.tool.Progress = append(it.tool.Progress[max(0, len(it.tool.Progress)-2):], t)
				}
			}
			m.streamDirty = true
		}
	case event.ToolResult:
		if it := m.byID[e.ToolCallID]; it != nil {
			it.tool.Output = e.Output.Text()
			if e.Brief != "" && it.tool.Output == "" {
				it.tool.Output = e.Brief
			}
			it.tool.State = render.ToolDone
			if e.IsError {
				it.tool.State = render.ToolFailed
				if m.turn != nil && m.turn.cancelling {
					// what the model reads about the interruption is not for the user
					it.tool.Output = "Interrupted"
				}
			}
			it.done = true
			delete(m.byID, e.ToolCallID)
			if it.tool.Name == "TodoList" && !e.IsError {
				m.todosFrom(it.tool.Args)
			}
			m.flushLive()
			m.touch()
		}
	case event.StepRetrying:
		m.ensureTurn(h)
		m.dropUnprinted()
		m.turn.phase = phaseWaiting
		m.turn.retry = fmt.Sprintf("Retrying (attempt %d of %d)", e.NextAttempt, e.MaxAttempts)
		m.turn.detail = cut(strings.TrimSpace(e.ErrorMessage), 160)
		m.touch()
	case event.TurnEnded:
		m.suspended = nil // the batch ended with the turn: no child waits any more
		return m.turnEnded(e)
	case event.Error:
		m.print(render.ErrorLine(m.theme, e.Code, e.Message, m.width))
	case event.HookResult:
		title := e.HookEvent + " hook"
		l := render.Info
		if e.Blocked {
			title += " blocked"
			l = render.Warning
		}
		m.print(render.Notice(m.theme, l, title, e.Content, m.width))
	case event.CompactionStarted:
		if m.compact == nil {
			m.compact = &compaction{started: m.now(), auto: e.Trigger != "manual"}
		}
		m.touch()
	case event.CompactionCompleted:
		r := e.Result
		m.print(render.Compaction(m.theme, r.TokensBefore, r.TokensAfter, r.Summary, m.width, false))
		m.expand = append(m.expand, expandable{turn: m.turnSeq, text: r.Summary, kind: itemCompaction})
		m.endCompaction()
		return m.drainQueue()
	case event.CompactionCancelled:
		if m.compact != nil {
			m.notice(render.Warning, "Compaction cancelled.")
		}
		m.endCompaction()
		return m.drainQueue()
	case event.CompactionBlocked:
		m.ensureTurn(h)
		m.turn.retry = "Waiting for the compaction to finish"
		m.touch()
	}
	return nil
}

// ensureTurn makes sure a turn is shown as running (an event of a turn
// that started before the subscription, or a steer that started one).
func (m *Model) ensureTurn(h event.Header) {
	if m.turn == nil {
		m.turn = &turnState{id: h.TurnID, started: m.now()}
		m.pickTip(1)
	}
}

// tail returns the last live item when it is of kind and still open.
func (m *Model) tail(kind itemKind) *item {
	if n := len(m.live); n > 0 && m.live[n-1].kind == kind && !m.live[n-1].done {
		return m.live[n-1]
	}
	return nil
}

func (m *Model) push(it *item) *item {
	// What streams after a text item closes it.
	if n := len(m.live); n > 0 && m.live[n-1].kind == itemText && it.kind != itemText {
		m.live[n-1].done = true
	}
	m.live = append(m.live, it)
	m.touch()
	return it
}

// closeThinking ends the thinking block that is streaming.
func (m *Model) closeThinking() {
	if it := m.tail(itemThinking); it != nil {
		it.done = true
		m.flushLive()
	}
}

// toolItem returns the item of call id, creating it.
func (m *Model) toolItem(id, name string) *item {
	if it := m.byID[id]; it != nil {
		if it.tool.Name == "" {
			it.tool.Name = name
		}
		return it
	}
	m.closeThinking()
	it := m.push(&item{kind: itemTool, id: id, started: m.now(),
		tool: &render.Tool{Name: name, WorkDir: m.o.WorkDir, State: render.ToolStreaming}})
	m.byID[id] = it
	m.flushLive()
	return it
}

// change reads a Write's or Edit's change from its display.
func (m *Model) change(t *render.Tool, d loop.Display) {
	switch d := d.(type) {
	case *loop.FileIODisplay:
		switch d.Operation {
		case "write":
			t.Before, t.After, t.HasChange = d.Before, d.Content, true
		case "edit":
			t.Before, t.After, t.HasChange = d.Before, d.After, true
		}
	case *loop.DiffDisplay:
		t.Before, t.After, t.HasChange = d.Before, d.After, true
	case *loop.TodoListDisplay:
		m.todos = m.todos[:0]
		for _, it := range d.Items {
			m.todos = append(m.todos, render.Todo{Title: it.Title, Status: it.Status})
		}
	}
}

// todosFrom sets the todo panel from a TodoList call's arguments.
func (m *Model) todosFrom(args json.RawMessage) {
	var a struct {
		Todos *[]render.Todo `json:"todos"`
	}
	if json.Unmarshal(args, &a) != nil || a.Todos == nil {
		return
	}
	m.todos = *a.Todos
	m.touch()
}

func progressText(u loop.ProgressUpdate) string {
	switch {
	case u.Text != "":
		return u.Text
	case u.Percent != nil:
		return fmt.Sprintf("%.0f%%", *u.Percent)
	}
	return ""
}

// dropUnprinted forgets the text and thinking a failed attempt streamed
// that is not printed yet.
func (m *Model) dropUnprinted() {
	keep := m.live[:0]
	for _, it := range m.live {
		if (it.kind == itemText || it.kind == itemThinking) && !it.done {
			continue
		}
		keep = append(keep, it)
	}
	m.live = keep
	m.touch()
}

// turnEnded prints what the turn left, reports how it ended, and sends
// the next queued message.
func (m *Model) turnEnded(e event.TurnEnded) tea.Cmd {
	m.finishAll(e.Reason == event.EndCancelled)
	switch e.Reason {
	case event.EndCancelled:
		m.notice(render.Warning, "Interrupted.")
	case event.EndFailed, event.EndBlocked:
		if e.Error != nil {
			m.print(render.ErrorLine(m.theme, e.Error.Code, e.Error.Message, m.width))
		}
	}
	m.turn = nil
	m.byID = map[string]*item{}
	m.touch()
	m.urgent = true
	return tea.Batch(m.drainQueue(), readGit(m.o.WorkDir))
}

func (m *Model) endCompaction() {
	m.compact = nil
	m.touch()
	m.urgent = true
}

func cut(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
