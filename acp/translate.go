package acp

import (
	"encoding/json"
	"strconv"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/loop"
	"github.com/kimigo/kimigo/session"
)

// translator turns one session's main-agent events into session/update
// payloads (spec 06 §8.6). It remembers which tool calls the client has
// already been told about and the argument text streamed so far, so the
// first delta creates a call and later ones update it. It is used from
// the session's one pump goroutine.
type translator struct {
	created map[string]bool             // by ACP tool-call id
	args    map[string]*strings.Builder // by ACP tool-call id
	names   map[string]string           // by ACP tool-call id
}

func newTranslator() *translator {
	return &translator{created: map[string]bool{}, args: map[string]*strings.Builder{}, names: map[string]string{}}
}

// callID is the ACP id of a tool call: "<turn>:<toolCallId>", so ids a
// model reuses across turns stay distinct; the raw id outside a turn.
// Turns count from 1 on the wire (the agent's turn ids count from 0).
func callID(turnID int, id string) sdk.ToolCallId {
	if turnID == event.NoTurn {
		return sdk.ToolCallId(id)
	}
	return sdk.ToolCallId(strconv.Itoa(turnID+1) + ":" + id)
}

// toolKind is the ACP kind of a kimigo tool.
func toolKind(name string) sdk.ToolKind {
	switch name {
	case "Read", "Glob", "Grep":
		return sdk.ToolKindRead
	case "Write", "Edit":
		return sdk.ToolKindEdit
	case "Bash":
		return sdk.ToolKindExecute
	case "FetchURL", "WebSearch":
		return sdk.ToolKindFetch
	case "Think":
		return sdk.ToolKindThink
	}
	return sdk.ToolKindOther
}

func textContent(s string) sdk.ToolCallContent {
	return sdk.ToolContent(sdk.TextBlock(s))
}

// updates returns what ev becomes on the wire, in order; nil for events
// that are not forwarded. Only the main agent's events get here.
func (t *translator) updates(ev event.Event) []sdk.SessionUpdate {
	switch e := ev.(type) {
	case event.TurnStarted:
		clear(t.created)
		clear(t.args)
		clear(t.names)
	case event.AssistantDelta:
		if e.Delta != "" {
			return []sdk.SessionUpdate{sdk.UpdateAgentMessageText(e.Delta)}
		}
	case event.ThinkingDelta:
		if e.Delta != "" {
			return []sdk.SessionUpdate{sdk.UpdateAgentThoughtText(e.Delta)}
		}
	case event.ToolCallDelta:
		return t.delta(e)
	case event.ToolCallStarted:
		return t.started(e)
	case event.ToolProgress:
		if e.Update.Kind == loop.ProgressStatus && e.Update.Text != "" {
			return []sdk.SessionUpdate{sdk.UpdateToolCall(callID(e.TurnID, e.ToolCallID), sdk.WithUpdateTitle(e.Update.Text))}
		}
	case event.ToolResult:
		return []sdk.SessionUpdate{resultUpdate(callID(e.TurnID, e.ToolCallID), e.Output, e.IsError)}
	}
	return nil
}

func (t *translator) delta(e event.ToolCallDelta) []sdk.SessionUpdate {
	id := callID(e.TurnID, e.ToolCallID)
	b := t.args[string(id)]
	if b == nil {
		b = &strings.Builder{}
		t.args[string(id)] = b
	}
	b.WriteString(e.ArgumentsPart)
	if e.Name != "" {
		t.names[string(id)] = e.Name
	}
	content := []sdk.ToolCallContent{textContent(b.String())}
	if t.created[string(id)] {
		return []sdk.SessionUpdate{sdk.UpdateToolCall(id, sdk.WithUpdateStatus(sdk.ToolCallStatusInProgress),
			sdk.WithUpdateContent(content))}
	}
	t.created[string(id)] = true
	name := t.names[string(id)]
	title := name
	if title == "" {
		title = "tool"
	}
	return []sdk.SessionUpdate{sdk.StartToolCall(id, title, sdk.WithStartKind(toolKind(name)),
		sdk.WithStartStatus(sdk.ToolCallStatusPending), sdk.WithStartContent(content))}
}

func (t *translator) started(e event.ToolCallStarted) []sdk.SessionUpdate {
	id := callID(e.TurnID, e.ToolCallID)
	title := e.Description
	if title == "" {
		title = e.Name
	}
	content := displayContent(e.Display)
	content = append(content, textContent(string(e.Args)))
	locations := displayLocations(e.Display)
	raw := rawJSON(e.Args)
	var out []sdk.SessionUpdate
	if t.created[string(id)] {
		out = append(out, sdk.UpdateToolCall(id, sdk.WithUpdateTitle(title), sdk.WithUpdateKind(toolKind(e.Name)),
			sdk.WithUpdateStatus(sdk.ToolCallStatusInProgress), sdk.WithUpdateRawInput(raw),
			sdk.WithUpdateContent(content), sdk.WithUpdateLocations(locations)))
	} else {
		t.created[string(id)] = true
		out = append(out, sdk.StartToolCall(id, title, sdk.WithStartKind(toolKind(e.Name)),
			sdk.WithStartStatus(sdk.ToolCallStatusInProgress), sdk.WithStartRawInput(raw),
			sdk.WithStartContent(content), sdk.WithStartLocations(locations)))
	}
	if todo, ok := e.Display.(*loop.TodoListDisplay); ok {
		out = append(out, planUpdate(todo))
	}
	return out
}

// rawJSON is args as a JSON value for rawInput; arguments that do not
// parse are sent as the string they are.
func rawJSON(args json.RawMessage) any {
	if len(args) == 0 {
		return nil
	}
	if json.Valid(args) {
		return args
	}
	return string(args)
}

// displayContent is the diff entry of an edit's display (before and after
// known), the plan of a plan review, or nothing.
func displayContent(d loop.Display) []sdk.ToolCallContent {
	switch x := d.(type) {
	case *session.PlanReviewDisplay:
		out := []sdk.ToolCallContent{textContent(x.Plan)}
		for _, o := range x.Options {
			line := "Approach: " + o.Label
			if o.Description != "" {
				line += " — " + o.Description
			}
			out = append(out, textContent(line))
		}
		return out
	case *loop.DiffDisplay:
		return []sdk.ToolCallContent{sdk.ToolDiffContent(x.Path, x.After, x.Before)}
	case *loop.FileIODisplay:
		if x.Before != "" || x.After != "" {
			return []sdk.ToolCallContent{sdk.ToolDiffContent(x.Path, x.After, x.Before)}
		}
	}
	return nil
}

// displayLocations are the files a call touches, from its display.
func displayLocations(d loop.Display) []sdk.ToolCallLocation {
	switch x := d.(type) {
	case *loop.DiffDisplay:
		if x.Path != "" {
			return []sdk.ToolCallLocation{{Path: x.Path}}
		}
	case *loop.FileIODisplay:
		if x.Path != "" {
			return []sdk.ToolCallLocation{{Path: x.Path}}
		}
	}
	return nil
}

// planUpdate is a todo list as an ACP plan; an empty list clears it.
func planUpdate(todo *loop.TodoListDisplay) sdk.SessionUpdate {
	entries := make([]sdk.PlanEntry, 0, len(todo.Items))
	for _, it := range todo.Items {
		status := sdk.PlanEntryStatusPending
		switch it.Status {
		case "in_progress":
			status = sdk.PlanEntryStatusInProgress
		case "done", "completed":
			status = sdk.PlanEntryStatusCompleted
		}
		entries = append(entries, sdk.PlanEntry{Content: it.Title, Priority: sdk.PlanEntryPriorityMedium, Status: status})
	}
	return sdk.SessionUpdate{Plan: &sdk.SessionUpdatePlan{Entries: entries}}
}

// resultUpdate closes a tool call with its output: text as is, other
// outputs as JSON, nothing for an empty one.
func resultUpdate(id sdk.ToolCallId, out loop.Output, isError bool) sdk.SessionUpdate {
	status := sdk.ToolCallStatusCompleted
	if isError {
		status = sdk.ToolCallStatusFailed
	}
	text := outputText(out)
	content := []sdk.ToolCallContent{}
	if text != "" {
		content = append(content, textContent(text))
	}
	u := sdk.UpdateToolCall(id, sdk.WithUpdateStatus(status), sdk.WithUpdateContent(content), sdk.WithUpdateRawOutput(text))
	return u
}

// outputText is a tool output as the client shows it.
func outputText(out loop.Output) string {
	if !out.IsParts() {
		return out.Text()
	}
	var b strings.Builder
	for _, p := range out.Parts() {
		if p.Text != "" {
			if b.Len() > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(p.Text)
		}
	}
	if b.Len() > 0 {
		return b.String()
	}
	raw, err := json.Marshal(out)
	if err != nil || string(raw) == "[]" {
		return ""
	}
	return string(raw)
}
