package history

import (
	"fmt"

	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/loop"
)

// InvalidRecordError is a record that decodes but would put into history
// what no request can carry: a tool call or a tool message without an id,
// a message whose role no provider knows. Apply refuses it before it
// changes anything; on resume the agent sets such a record aside like a
// corrupt line (issue 13), so one bad record never stops every request of
// the session.
type InvalidRecordError struct {
	Type   RecordType
	Reason string
}

// Error is the reason; the caller names the record (its type and line).
func (e *InvalidRecordError) Error() string { return e.Reason }

// validate returns an *InvalidRecordError for a record whose content
// cannot become a valid conversation, else nil.
func validate(p Payload) error {
	switch r := p.(type) {
	case AppendMessageRecord:
		if reason := invalidMessage(r.Message.Message); reason != "" {
			return &InvalidRecordError{Type: TypeAppendMessage, Reason: reason}
		}
	case AppendLoopEventRecord:
		var id string
		switch e := r.Event.(type) {
		case loop.ToolCallEvent:
			id = e.ToolCallID
		case *loop.ToolCallEvent:
			id = e.ToolCallID
		default:
			return nil
		}
		if id == "" {
			return &InvalidRecordError{Type: TypeAppendLoopEvent, Reason: "tool.call event has no toolCallId"}
		}
	}
	return nil
}

// invalidMessage says what makes m impossible to send, or "".
func invalidMessage(m llm.Message) string {
	switch m.Role {
	case llm.RoleUser, llm.RoleAssistant, llm.RoleSystem:
	case llm.RoleTool:
		if m.ToolCallID == "" {
			return "tool message has no toolCallId"
		}
	default:
		return fmt.Sprintf("message role %q is not user, assistant, system or tool", m.Role)
	}
	for i, tc := range m.ToolCalls {
		if tc.ID == "" {
			return fmt.Sprintf("tool call %d (%s) of the %s message has no id", i, tc.Name, m.Role)
		}
	}
	return ""
}
