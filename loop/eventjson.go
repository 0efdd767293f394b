package loop

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/kimigo/kimigo/llm/plainjson"
)

// marshalTagged encodes v (which must encode as a JSON object) with a
// leading "key":"tag" member: {"type":"step.begin",…}.
func marshalTagged(key, tag string, v any) ([]byte, error) {
	body, err := plainjson.Marshal(v)
	if err != nil {
		return nil, err
	}
	if len(body) < 2 || body[0] != '{' {
		return nil, fmt.Errorf("marshal %s %q: not an object", key, tag)
	}
	head, err := plainjson.Marshal(tag)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, len(body)+len(key)+len(head)+4)
	out = append(out, '{', '"')
	out = append(out, key...)
	out = append(out, '"', ':')
	out = append(out, head...)
	if len(bytes.TrimSpace(body[1:len(body)-1])) > 0 {
		out = append(out, ',')
		return append(out, body[1:]...), nil
	}
	return append(out, '}'), nil
}

// MarshalJSON writes the recorded shape with its "type".
func (e StepBeginEvent) MarshalJSON() ([]byte, error) {
	type plain StepBeginEvent
	return marshalTagged("type", string(TypeStepBegin), plain(e))
}

// MarshalJSON writes the recorded shape with its "type".
func (e ContentPartEvent) MarshalJSON() ([]byte, error) {
	type plain ContentPartEvent
	return marshalTagged("type", string(TypeContentPart), plain(e))
}

// MarshalJSON writes the recorded shape with its "type".
func (e ToolCallEvent) MarshalJSON() ([]byte, error) {
	type plain ToolCallEvent
	return marshalTagged("type", string(TypeToolCall), plain(e))
}

// UnmarshalJSON reads the recorded shape, including the display block.
func (e *ToolCallEvent) UnmarshalJSON(data []byte) error {
	type plain ToolCallEvent
	var aux struct {
		plain
		Display json.RawMessage `json:"display"`
	}
	if err := json.Unmarshal(data, &aux); err != nil {
		return err
	}
	*e = ToolCallEvent(aux.plain)
	e.Display = nil
	if len(aux.Display) > 0 && !bytes.Equal(aux.Display, []byte("null")) {
		d, err := DecodeDisplay(aux.Display)
		if err != nil {
			return err
		}
		e.Display = d
	}
	return nil
}

// MarshalJSON writes the recorded shape with its "type".
func (e ToolResultEvent) MarshalJSON() ([]byte, error) {
	type plain ToolResultEvent
	return marshalTagged("type", string(TypeToolResult), plain(e))
}

// MarshalJSON writes the recorded shape with its "type".
func (e StepEndEvent) MarshalJSON() ([]byte, error) {
	type plain StepEndEvent
	return marshalTagged("type", string(TypeStepEnd), plain(e))
}

// MarshalJSON writes the live shape with its "type".
func (e TextDeltaEvent) MarshalJSON() ([]byte, error) {
	type plain TextDeltaEvent
	return marshalTagged("type", string(TypeTextDelta), plain(e))
}

// MarshalJSON writes the live shape with its "type".
func (e ThinkingDeltaEvent) MarshalJSON() ([]byte, error) {
	type plain ThinkingDeltaEvent
	return marshalTagged("type", string(TypeThinkingDelta), plain(e))
}

// MarshalJSON writes the live shape with its "type".
func (e ToolCallDeltaEvent) MarshalJSON() ([]byte, error) {
	type plain ToolCallDeltaEvent
	return marshalTagged("type", string(TypeToolCallDelta), plain(e))
}

// MarshalJSON writes the live shape with its "type".
func (e ToolProgressEvent) MarshalJSON() ([]byte, error) {
	type plain ToolProgressEvent
	return marshalTagged("type", string(TypeToolProgress), plain(e))
}

// MarshalJSON writes the live shape with its "type".
func (e StepRetryingEvent) MarshalJSON() ([]byte, error) {
	type plain StepRetryingEvent
	return marshalTagged("type", string(TypeStepRetrying), plain(e))
}

// MarshalJSON writes the live shape with its "type".
func (e TurnInterruptedEvent) MarshalJSON() ([]byte, error) {
	type plain TurnInterruptedEvent
	return marshalTagged("type", string(TypeTurnInterrupted), plain(e))
}

// DecodeRecordedEvent reads a recorded event written by its MarshalJSON.
// Unknown types are an error that names the type; unknown fields are
// ignored.
func DecodeRecordedEvent(data []byte) (RecordedEvent, error) {
	var head struct {
		Type EventType `json:"type"`
	}
	if t, ok := leadingType(data); ok {
		head.Type = t
	} else if err := json.Unmarshal(data, &head); err != nil {
		return nil, fmt.Errorf("decode loop event: %w", err)
	}
	var (
		ev  RecordedEvent
		err error
	)
	switch head.Type {
	case TypeStepBegin:
		ev, err = decodeAs[StepBeginEvent](data)
	case TypeContentPart:
		ev, err = decodeAs[ContentPartEvent](data)
	case TypeToolCall:
		ev, err = decodeAs[ToolCallEvent](data)
	case TypeToolResult:
		ev, err = decodeToolResultEvent(data)
	case TypeStepEnd:
		ev, err = decodeAs[StepEndEvent](data)
	default:
		return nil, fmt.Errorf("decode loop event: unknown type %q", head.Type)
	}
	if err != nil {
		return nil, fmt.Errorf("decode loop event %s: %w", head.Type, err)
	}
	return ev, nil
}

func decodeAs[T any](data []byte) (T, error) {
	var v T
	err := json.Unmarshal(data, &v)
	return v, err
}

// leadingType reads the type of an event in the shape MarshalJSON writes,
// {"type":"<recorded type>",…}, without scanning the rest, which can be a
// large tool output: resuming a long session decodes thousands of them.
// Anything else reports false and is decoded in full. (A record with a
// second top-level "type" key, which no writer produces, is read by its
// first.)
func leadingType(data []byte) (EventType, bool) {
	const prefix = `{"type":"`
	rest, ok := bytes.CutPrefix(data, []byte(prefix))
	if !ok {
		return "", false
	}
	end := bytes.IndexByte(rest, '"')
	if end < 0 {
		return "", false
	}
	switch t := EventType(rest[:end]); t {
	case TypeStepBegin, TypeContentPart, TypeToolCall, TypeToolResult, TypeStepEnd:
		return t, true
	}
	return "", false
}

// decodeToolResultEvent reads the recorded shape of a tool result; the
// result is decoded in the same pass, not handed to ToolResult's
// UnmarshalJSON, for which encoding/json would scan it twice more.
func decodeToolResultEvent(data []byte) (ToolResultEvent, error) {
	var aux struct {
		ParentUUID string         `json:"parentUuid"`
		ToolCallID string         `json:"toolCallId"`
		Result     toolResultJSON `json:"result"`
		TraceID    string         `json:"traceId,omitempty"`
	}
	if err := json.Unmarshal(data, &aux); err != nil {
		return ToolResultEvent{}, err
	}
	r := aux.Result
	return ToolResultEvent{ParentUUID: aux.ParentUUID, ToolCallID: aux.ToolCallID, TraceID: aux.TraceID,
		Result: ToolResult{Output: r.Output, IsError: r.IsError, Note: r.Note, Truncated: r.Truncated}}, nil
}
