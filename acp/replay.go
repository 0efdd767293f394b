package acp

import (
	"context"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/loop"
	"github.com/kimigo/kimigo/session"
)

// replayUpdates is a conversation as session/update payloads (spec 06
// §8.12): a synthetic turn counter, starting at 0, grows with every
// assistant message, and a tool result updates the call it answers; a
// result without a known call and system messages are skipped.
func replayUpdates(history []session.HistoryMessage) []sdk.SessionUpdate {
	var out []sdk.SessionUpdate
	turn := 0
	calls := map[string]sdk.ToolCallId{} // model id → ACP id
	for _, m := range history {
		switch m.Role {
		case llm.RoleUser:
			for _, p := range m.Content {
				if p.Type == llm.PartText && p.Text != "" {
					out = append(out, sdk.UpdateUserMessageText(p.Text))
				}
			}
		case llm.RoleAssistant:
			turn++
			for _, p := range m.Content {
				switch {
				case p.Type == llm.PartText && p.Text != "":
					out = append(out, sdk.UpdateAgentMessageText(p.Text))
				case p.Type == llm.PartThink && p.Think != "":
					out = append(out, sdk.UpdateAgentThoughtText(p.Think))
				}
			}
			for _, c := range m.ToolCalls {
				id := callID(turn-1, c.ID) // callID counts from 1
				calls[c.ID] = id
				args := []byte(c.Arguments)
				var d loop.Display
				if m.Displays != nil {
					d = m.Displays[c.ID]
				}
				content := append(displayContent(d), textContent(string(args)))
				out = append(out, sdk.StartToolCall(id, c.Name, sdk.WithStartKind(toolKind(c.Name)),
					sdk.WithStartStatus(sdk.ToolCallStatusInProgress), sdk.WithStartRawInput(rawJSON(args)),
					sdk.WithStartContent(content), sdk.WithStartLocations(displayLocations(d))))
			}
		case llm.RoleTool:
			id, ok := calls[m.ToolCallID]
			if !ok {
				continue
			}
			out = append(out, resultUpdate(id, loop.PartsOutput(m.Content...), m.IsError))
		}
	}
	return out
}

// replay sends the session's history to the client, each update in
// order; a failed one is logged and the replay goes on.
func (l *live) replay(ctx context.Context) {
	for _, u := range replayUpdates(l.s.History()) {
		l.send(ctx, u)
	}
}
