package loop_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/loop"
)

// Recorded events decode the same whether or not "type" comes first, the
// shape the fast path reads; a tool result keeps every persisted field.
func TestDecodeRecordedEventShapes(t *testing.T) {
	parts := loop.ToolResultEvent{ParentUUID: "c1", ToolCallID: "c1", TraceID: "tr", Result: loop.ToolResult{
		Output:  loop.PartsOutput(llm.TextPart("shot"), llm.ImagePart("data:image/png;base64,AAAA")),
		IsError: true, Note: "<system>n</system>", Truncated: true}}
	for _, tt := range []struct {
		name, data string
		want       loop.RecordedEvent
	}{
		{"canonical", `{"type":"step.begin","uuid":"s1","turnId":"7","step":1}`,
			loop.StepBeginEvent{UUID: "s1", TurnID: "7", Step: 1}},
		{"type last", `{"uuid":"s1","turnId":"7","step":1,"type":"step.begin"}`,
			loop.StepBeginEvent{UUID: "s1", TurnID: "7", Step: 1}},
		{"spaced", `{ "type" : "step.begin", "uuid":"s1","turnId":"7","step":1}`,
			loop.StepBeginEvent{UUID: "s1", TurnID: "7", Step: 1}},
		{"text result", `{"type":"tool.result","parentUuid":"c1","toolCallId":"c1","result":{"output":"a\nb"}}`,
			loop.ToolResultEvent{ParentUUID: "c1", ToolCallID: "c1", Result: loop.ToolResult{Output: loop.TextOutput("a\nb")}}},
		{"parts result", `{"type":"tool.result","parentUuid":"c1","toolCallId":"c1","result":{"output":[{"type":"text","text":"shot"},` +
			`{"type":"image_url","imageUrl":{"url":"data:image/png;base64,AAAA"}}],"isError":true,"note":"<system>n</system>",` +
			`"truncated":true},"traceId":"tr","unknown":1}`, parts},
		{"result, type last", `{"parentUuid":"c1","toolCallId":"c1","result":{"output":"x"},"type":"tool.result"}`,
			loop.ToolResultEvent{ParentUUID: "c1", ToolCallID: "c1", Result: loop.ToolResult{Output: loop.TextOutput("x")}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := loop.DecodeRecordedEvent([]byte(tt.data))
			if err != nil {
				t.Fatal(err)
			}
			if mustJSON(t, got) != mustJSON(t, tt.want) {
				t.Errorf("decoded %s\nwant    %s", mustJSON(t, got), mustJSON(t, tt.want))
			}
			if d := cmp.Diff(tt.want.EventType(), got.EventType()); d != "" {
				t.Error(d)
			}
		})
	}
	for _, bad := range []string{
		`{"type":"tool.result","parentUuid":"c1","result":{"output":"x"`,
		`{"type":"tool.result","parentUuid":1}`,
		`{"type":"step.begin","step":"one"}`,
		`{"type":"tool.resul`,
		`{"type":"turn.interrupted"}`,
	} {
		if ev, err := loop.DecodeRecordedEvent([]byte(bad)); err == nil {
			t.Errorf("DecodeRecordedEvent(%s) = %#v; want an error", bad, ev)
		}
	}
}
