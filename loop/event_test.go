package loop_test

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/loop"
)

func int64p(n int64) *int64 { return &n }

func TestRecordedEventJSON(t *testing.T) {
	u := usage(1, 2, 3, 4)
	for _, tt := range []struct {
		ev   loop.RecordedEvent
		want string
	}{
		{loop.StepBeginEvent{UUID: "s1", TurnID: "7", Step: 1},
			`{"type":"step.begin","uuid":"s1","turnId":"7","step":1}`},
		{loop.ContentPartEvent{UUID: "p1", TurnID: "7", Step: 1, StepUUID: "s1", Part: llm.ThinkPart("hm", "sig")},
			`{"type":"content.part","uuid":"p1","turnId":"7","step":1,"stepUuid":"s1","part":{"type":"think","think":"hm","encrypted":"sig"}}`},
		{loop.ToolCallEvent{UUID: "c1", TurnID: "7", Step: 1, StepUUID: "s1", ToolCallID: "c1", Name: "Bash",
			Args: json.RawMessage(`{"z":1,"a":"<b>"}`), Description: "Run ls",
			Display: &loop.CommandDisplay{Command: "ls", Language: "bash"}, Extras: json.RawMessage(`{"k":"v"}`), TraceID: "tr"},
			`{"type":"tool.call","uuid":"c1","turnId":"7","step":1,"stepUuid":"s1","toolCallId":"c1","name":"Bash",` +
				`"args":{"z":1,"a":"<b>"},"description":"Run ls","display":{"kind":"command","command":"ls","language":"bash"},` +
				`"extras":{"k":"v"},"traceId":"tr"}`},
		{loop.ToolCallEvent{UUID: "c2", TurnID: "7", Step: 1, StepUUID: "s1", ToolCallID: "c2", Name: "x",
			Args: json.RawMessage(`{}`), RawArgs: `{"a":`},
			`{"type":"tool.call","uuid":"c2","turnId":"7","step":1,"stepUuid":"s1","toolCallId":"c2","name":"x","args":{},"rawArgs":"{\"a\":"}`},
		{loop.ToolResultEvent{ParentUUID: "c1", ToolCallID: "c1", Result: loop.ToolResult{Output: loop.TextOutput("<system>ok"),
			Message: "ui only", Brief: "ui only"}},
			`{"type":"tool.result","parentUuid":"c1","toolCallId":"c1","result":{"output":"<system>ok"}}`},
		{loop.StepEndEvent{UUID: "s1", TurnID: "7", Step: 1, Usage: &u, FinishReason: loop.StopMaxTokens,
			LLMFirstTokenLatencyMs: int64p(0), LLMStreamDurationMs: int64p(12), ProviderFinishReason: llm.FinishTruncated,
			RawFinishReason: "length", MessageID: "m1", TraceID: "tr"},
			`{"type":"step.end","uuid":"s1","turnId":"7","step":1,"usage":{"inputOther":1,"output":2,"inputCacheRead":3,` +
				`"inputCacheCreation":4},"finishReason":"max_tokens","llmFirstTokenLatencyMs":0,"llmStreamDurationMs":12,` +
				`"providerFinishReason":"truncated","rawFinishReason":"length","messageId":"m1","traceId":"tr"}`},
	} {
		t.Run(string(tt.ev.EventType()), func(t *testing.T) {
			if got := mustJSON(t, tt.ev); got != tt.want {
				t.Errorf("JSON\n got %s\nwant %s", got, tt.want)
			}
			back, err := loop.DecodeRecordedEvent([]byte(tt.want))
			if err != nil {
				t.Fatalf("decode: %v", err)
			}
			if got := mustJSON(t, back); got != tt.want {
				t.Errorf("round trip\n got %s\nwant %s", got, tt.want)
			}
		})
	}
	if _, err := loop.DecodeRecordedEvent([]byte(`{"type":"turn.interrupted"}`)); err == nil {
		t.Error("a live-only event decoded as recorded")
	}
}

func TestLiveEventJSON(t *testing.T) {
	for _, tt := range []struct {
		ev   loop.LiveEvent
		want string
	}{
		{loop.TextDeltaEvent{Delta: "a"}, `{"type":"text.delta","delta":"a"}`},
		{loop.ToolProgressEvent{ToolCallID: "c1", Update: loop.ProgressUpdate{Kind: loop.ProgressStdout, Text: "x"}},
			`{"type":"tool.progress","toolCallId":"c1","update":{"kind":"stdout","text":"x"}}`},
		{loop.TurnInterruptedEvent{Reason: loop.InterruptAborted, AttemptedSteps: 0, InterruptReason: loop.InterruptUserCancelled},
			`{"type":"turn.interrupted","reason":"aborted","attemptedSteps":0,"interruptReason":"user_cancelled"}`},
		{loop.StepRetryingEvent{TurnID: "7", Step: 1, StepUUID: "s", FailedAttempt: 1, NextAttempt: 2, MaxAttempts: 10,
			DelayMs: 500, ErrorName: "APITimeoutError", ErrorMessage: "timeout"},
			`{"type":"step.retrying","turnId":"7","step":1,"stepUuid":"s","failedAttempt":1,"nextAttempt":2,"maxAttempts":10,` +
				`"delayMs":500,"errorName":"APITimeoutError","errorMessage":"timeout"}`},
	} {
		if got := mustJSON(t, tt.ev); got != tt.want {
			t.Errorf("JSON\n got %s\nwant %s", got, tt.want)
		}
	}
}

func TestDisplayJSON(t *testing.T) {
	for _, tt := range []struct {
		d    loop.Display
		want string
	}{
		{&loop.FileIODisplay{Operation: "edit", Path: "a.go", Before: "x", After: "y"},
			`{"kind":"file_io","operation":"edit","path":"a.go","before":"x","after":"y"}`},
		{&loop.TodoListDisplay{Items: []loop.TodoItem{{Title: "t", Status: "done"}}},
			`{"kind":"todo_list","items":[{"title":"t","status":"done"}]}`},
		{&loop.RawDisplay{Kind: "goal_start", JSON: json.RawMessage(`{"kind":"goal_start","objective":"o","mode":"yolo"}`)},
			`{"kind":"goal_start","objective":"o","mode":"yolo"}`},
		{&loop.GenericDisplay{Summary: "Approve X", Detail: map[string]any{"a": 1}},
			`{"kind":"generic","summary":"Approve X","detail":{"a":1}}`},
		{&loop.SearchDisplay{}, `{"kind":"search","query":""}`},
	} {
		got := mustJSON(t, tt.d)
		if got != tt.want {
			t.Errorf("JSON\n got %s\nwant %s", got, tt.want)
		}
		back, err := loop.DecodeDisplay([]byte(got))
		if err != nil {
			t.Fatalf("decode %s: %v", got, err)
		}
		if again := mustJSON(t, back); again != got {
			t.Errorf("round trip %s → %s", got, again)
		}
	}
	// A kind the loop has no type for (a feature's own display, or a newer
	// kimigo's) keeps its bytes.
	d, err := loop.DecodeDisplay([]byte(`{"kind":"agent_call","agent_name":"coder"}`))
	if raw, ok := d.(*loop.RawDisplay); err != nil || !ok || raw.Kind != "agent_call" ||
		mustJSON(t, d) != `{"kind":"agent_call","agent_name":"coder"}` {
		t.Errorf("unknown kind decoded as %#v, %v; want a RawDisplay with the bytes", d, err)
	}
	for _, bad := range []string{`{}`, `{"kind":""}`, `[]`} {
		if _, err := loop.DecodeDisplay([]byte(bad)); err == nil {
			t.Errorf("DecodeDisplay(%s) succeeded; want an error", bad)
		}
	}
}

func TestOutputKeepsItsForm(t *testing.T) {
	for _, tt := range []struct {
		out  loop.Output
		want string
	}{
		{loop.TextOutput(""), `""`},
		{loop.TextOutput("a"), `"a"`},
		{loop.PartsOutput(), `[]`},
		{loop.PartsOutput(llm.TextPart("a")), `[{"type":"text","text":"a"}]`},
	} {
		got := mustJSON(t, tt.out)
		if got != tt.want {
			t.Errorf("JSON = %s, want %s", got, tt.want)
		}
		var back loop.Output
		if err := json.Unmarshal([]byte(got), &back); err != nil {
			t.Fatal(err)
		}
		if !back.Equal(tt.out) || back.IsParts() != tt.out.IsParts() {
			t.Errorf("round trip of %s lost its form: %v", got, back)
		}
	}
	var r loop.ToolResult
	if err := json.Unmarshal([]byte(`{"output":[{"type":"text","text":"x"}],"isError":true,"note":"n","truncated":true}`), &r); err != nil {
		t.Fatal(err)
	}
	want := loop.ToolResult{Output: loop.PartsOutput(llm.TextPart("x")), IsError: true, Note: "n", Truncated: true}
	if d := cmp.Diff(want, r); d != "" {
		t.Errorf("ToolResult (-want +got):\n%s", d)
	}
}
