package background

import (
	_ "embed"
	"fmt"
	"path"
	"strings"

	"github.com/kimigo/kimigo/agent/history"
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/tools"
)

// notificationPreview is how much buffered output a notification without
// a log shows (spec 05 §6.6).
const notificationPreview = 3000

var (
	//go:embed text/output_file.md
	outputFileText string
	//go:embed text/output_preview_cut.md
	outputPreviewCutText string
	//go:embed text/output_preview_whole.md
	outputPreviewWholeText string
	//go:embed text/agent_recovery.md
	agentRecoveryText string
)

// Notification tells the model that a background task ended (spec 05
// §6.6). It enters history as a user message with one text part (Text)
// and a background_task origin.
type Notification struct {
	ID         string
	Category   string
	Type       string
	SourceKind string
	SourceID   string
	AgentID    string
	Title      string
	Severity   string
	Body       string
	Children   []string
	Origin     *history.Origin
}

// Text renders the notification block (spec 02 §4.2).
func (n Notification) Text() string {
	return history.RenderNotificationXML(map[string]any{
		"id": n.ID, "category": n.Category, "type": n.Type, "source_kind": n.SourceKind,
		"source_id": n.SourceID, "agent_id": n.AgentID, "title": n.Title, "severity": n.Severity,
		"body": n.Body, "children": n.Children,
	})
}

// Parts is the notification as message content.
func (n Notification) Parts() []llm.ContentPart { return []llm.ContentPart{llm.TextPart(n.Text())} }

// Message is the notification as the history message a resume appends.
func (n Notification) Message() history.Message {
	return history.Message{Message: llm.Message{Role: llm.RoleUser, Content: n.Parts()}, Origin: n.Origin}
}

// notificationKey identifies one delivery (spec 05 §6.6).
func notificationKey(taskID, status, notificationID string) string {
	return taskID + "\x00" + status + "\x00" + notificationID
}

// output is what a notification says about a task's output.
type output struct {
	logPath   string
	logBytes  int64
	preview   []byte
	total     int64
	truncated bool
}

// buildNotification renders the notification of a finished task.
func buildNotification(info tools.TaskInfo, out output) Notification {
	status := string(info.Status)
	id := "task:" + info.TaskID + ":" + status
	n := Notification{ID: id, Category: "task", Type: "task." + status, SourceKind: "background_task",
		SourceID: info.TaskID, Title: fmt.Sprintf("Background %s %s", info.Kind, status), Severity: "warning",
		Origin: &history.Origin{Kind: history.OriginBackgroundTask, TaskID: info.TaskID, Status: status, NotificationID: id}}
	if info.Kind == tools.TaskKindAgent {
		n.AgentID = info.AgentID
	}
	if info.Status == tools.TaskCompleted {
		n.Severity = "info"
	}
	switch {
	case info.Status == tools.TaskTimedOut:
		n.Body = info.Description + " timed out."
	case info.Status == tools.TaskKilled && info.StopReason != "":
		n.Body = fmt.Sprintf("%s was killed: %s.", info.Description, strings.TrimSuffix(info.StopReason, "."))
	case info.StopReason != "":
		n.Body = fmt.Sprintf("%s %s: %s.", info.Description, status, strings.TrimSuffix(info.StopReason, "."))
	default:
		n.Body = fmt.Sprintf("%s %s.", info.Description, status)
	}
	if info.Kind == tools.TaskKindAgent && info.Status != tools.TaskCompleted && info.AgentID != "" && info.AgentID != info.TaskID {
		n.Body += "\n" + strings.TrimSpace(strings.ReplaceAll(agentRecoveryText, "{{.AgentID}}", info.AgentID))
	}
	switch {
	case out.logPath != "":
		n.Children = []string{fmt.Sprintf("<output-file path=\"%s\" bytes=\"%d\">\n%s\n</output-file>",
			history.EscapeXMLAttr(out.logPath), out.logBytes, strings.TrimSpace(outputFileText))}
	case len(out.preview) > 0:
		line := strings.TrimSpace(outputPreviewWholeText)
		if out.truncated {
			line = strings.TrimSpace(strings.ReplaceAll(outputPreviewCutText, "{{.Bytes}}", fmt.Sprint(len(out.preview))))
		}
		n.Children = []string{fmt.Sprintf("<output-preview bytes=\"%d\" total_bytes=\"%d\" truncated=\"%t\">\n%s\n%s\n</output-preview>",
			len(out.preview), out.total, out.truncated, line, history.EscapeXML(string(out.preview)))}
	}
	return n
}

// outputOf is what a live task printed, for its notification.
func (e *entry) outputOf() output {
	e.outMu.Lock()
	defer e.outMu.Unlock()
	if e.logPath != "" {
		return output{logPath: e.logPath, logBytes: e.total}
	}
	prev := runeAligned(e.ring.tail(notificationPreview))
	return output{preview: prev, total: e.total, truncated: e.total > int64(len(prev))}
}

// ghostOutput is what a task loaded from disk printed: its log, if any.
func (m *Manager) ghostOutput(id string) output {
	p := path.Join(m.tasksDir(), id, "output.log")
	st, err := m.fs.Stat(p)
	if err != nil || st.IsDir() {
		return output{}
	}
	return output{logPath: p, logBytes: st.Size()}
}

// notify delivers the notification of a background task that just ended,
// unless TaskStop suppressed it or it was delivered already: Steer puts it
// into the running turn at its next step, or starts a turn.
func (m *Manager) notify(e *entry, info tools.TaskInfo) {
	if info.TerminalNotificationSuppressed {
		return
	}
	n := buildNotification(info, e.outputOf())
	key := notificationKey(info.TaskID, string(info.Status), n.ID)
	m.mu.Lock()
	host := m.host
	if host == nil || m.closed || m.delivered[key] || m.scheduled[key] {
		m.mu.Unlock()
		return
	}
	m.scheduled[key] = true
	m.mu.Unlock()
	if err := host.Steer(m.base, n.Parts(), n.Origin); err != nil {
		// The notification is not in history: the next resume delivers it.
		m.log.Warn("deliver background task notification", "task_id", info.TaskID, "error", err)
		return
	}
	host.Notified(n)
}

// undelivered returns the notifications of the finished background tasks,
// live or loaded, that never reached history, oldest task first.
func (m *Manager) undelivered() []Notification {
	type pendingNote struct {
		info tools.TaskInfo
		e    *entry
	}
	m.mu.Lock()
	var todo []pendingNote
	for _, id := range m.order {
		var (
			info tools.TaskInfo
			e    *entry
		)
		if le, ok := m.entries[id]; ok {
			info, e = le.infoLocked(), le
		} else if g, ok := m.ghosts[id]; ok {
			info = g
		} else {
			continue
		}
		if !info.Status.Terminal() || !info.Detached || info.TerminalNotificationSuppressed {
			continue
		}
		n := "task:" + info.TaskID + ":" + string(info.Status)
		key := notificationKey(info.TaskID, string(info.Status), n)
		if m.delivered[key] || m.scheduled[key] {
			continue
		}
		todo = append(todo, pendingNote{info, e})
	}
	m.mu.Unlock()
	out := make([]Notification, 0, len(todo))
	for _, p := range todo {
		o := m.ghostOutput(p.info.TaskID)
		if p.e != nil {
			o = p.e.outputOf()
		}
		out = append(out, buildNotification(p.info, o))
	}
	return out
}
