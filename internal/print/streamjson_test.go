package print

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/loop"
)

// runJSON runs the stream-json format over events and returns the stdout
// lines, checking that each is one JSON object.
func runJSON(t *testing.T, events ...event.Event) ([]string, string, error) {
	t.Helper()
	var out, errw bytes.Buffer
	err := Run(t.Context(), Options{Host: &replayHost{events: events}, Prompt: "hi", Format: FormatStreamJSON,
		Version: "0.1.0", SessionID: "session_x", ResumeCommand: "kimigo -r session_x", Stdout: &out, Stderr: &errw,
		Now: fixedClock})
	if !strings.HasSuffix(out.String(), "\n") {
		t.Fatalf("stdout does not end with a newline: %q", out.String())
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	for _, l := range lines {
		var v map[string]any
		if json.Unmarshal([]byte(l), &v) != nil {
			t.Fatalf("stdout line is not a JSON object: %q", l)
		}
	}
	return lines, errw.String(), err
}

// fixedClock is a clock that never moves: every result lasts 0 ms.
func fixedClock() time.Time { return time.Unix(0, 0) }

// successLine is the result line of a run with steps model steps.
func successLine(steps int, answer string) string {
	return fmt.Sprintf(`{"type":"result","subtype":"success","is_error":false,"duration_ms":0,"num_turns":%d,`+
		`"result":%q,"session_id":"session_x","usage":{"input_tokens":0,"output_tokens":0,`+
		`"cache_read_input_tokens":0,"cache_creation_input_tokens":0},"resume_command":"kimigo -r session_x"}`, steps, answer)
}

const (
	versionLine = `{"role":"meta","type":"system.version","version":"0.1.0"}`
	hintLine    = `{"role":"meta","type":"session.resume_hint","session_id":"session_x","command":"kimigo -r session_x",` +
		`"content":"To resume this session: kimigo -r session_x"}`
)

func TestStreamJSONToolTurn(t *testing.T) {
	lines, errw, err := runJSON(t,
		event.TurnStarted{Header: event.InTurn(1)},
		event.StepStarted{Header: event.InTurn(1), Step: 1},
		event.ThinkingDelta{Header: event.InTurn(1), Delta: "never shown"},
		event.AssistantDelta{Header: event.InTurn(1), Delta: "Let me "},
		event.AssistantDelta{Header: event.InTurn(1), Delta: "read it."},
		event.ToolCallDelta{Header: event.InTurn(1), ToolCallID: "call_1", Name: "Read", ArgumentsPart: `{"pa`},
		event.ToolCallDelta{Header: event.InTurn(1), ToolCallID: "call_1", ArgumentsPart: `th":"a.`},
		event.ToolCallDelta{Header: event.InTurn(1), ToolCallID: "call_1", ArgumentsPart: `txt"}`},
		event.ToolCallStarted{Header: event.InTurn(1), ToolCallID: "call_1", Name: "Read", Args: []byte(`{"path": "a.txt"}`)},
		event.ToolResult{Header: event.InTurn(1), ToolCallID: "call_1", Output: loop.TextOutput("1\thello <&>\n")},
		event.StepCompleted{Header: event.InTurn(1), Step: 1},
		event.StepStarted{Header: event.InTurn(1), Step: 2},
		event.AssistantDelta{Header: event.InTurn(1), Delta: "Done."},
		event.StepCompleted{Header: event.InTurn(1), Step: 2},
		event.TurnEnded{Header: event.InTurn(1), Reason: event.EndCompleted},
	)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		versionLine,
		`{"role":"assistant","content":"Let me read it.","tool_calls":[{"type":"function","id":"call_1",` +
			`"function":{"name":"Read","arguments":"{\"path\":\"a.txt\"}"}}]}`,
		`{"role":"tool","tool_call_id":"call_1","content":"1\thello <&>\n"}`,
		`{"role":"assistant","content":"Done."}`,
		hintLine,
		successLine(2, "Done."),
	}
	if d := cmp.Diff(want, lines); d != "" {
		t.Errorf("stdout lines (-want +got):\n%s", d)
	}
	if errw != "" {
		t.Errorf("stderr = %q; want nothing", errw)
	}
}

// Two calls in one step: one assistant line lists both in model order,
// then one tool line per result in the order the results arrive (spec 06
// §10 scenario 13, ERRATA 19). Arguments keep the model's key order.
func TestStreamJSONParallelCallsOneLine(t *testing.T) {
	lines, _, err := runJSON(t,
		event.TurnStarted{Header: event.InTurn(1)},
		event.StepStarted{Header: event.InTurn(1), Step: 1},
		event.ToolCallStarted{Header: event.InTurn(1), ToolCallID: "a", Name: "Bash", Args: []byte(`{"z":1,"a":[2, 3]}`)},
		event.ToolCallStarted{Header: event.InTurn(1), ToolCallID: "b", Name: "Glob", Args: []byte(`{"pattern":"*"}`)},
		event.ToolResult{Header: event.InTurn(1), ToolCallID: "b", Output: loop.TextOutput("x")},
		event.ToolResult{Header: event.InTurn(1), ToolCallID: "a", Output: loop.PartsOutput(llm.TextPart("y"))},
		event.StepCompleted{Header: event.InTurn(1), Step: 1},
		event.TurnEnded{Header: event.InTurn(1), Reason: event.EndCompleted},
	)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		versionLine,
		`{"role":"assistant","tool_calls":[` +
			`{"type":"function","id":"a","function":{"name":"Bash","arguments":"{\"z\":1,\"a\":[2,3]}"}},` +
			`{"type":"function","id":"b","function":{"name":"Glob","arguments":"{\"pattern\":\"*\"}"}}]}`,
		`{"role":"tool","tool_call_id":"b","content":"x"}`,
		`{"role":"tool","tool_call_id":"a","content":"[{\"type\":\"text\",\"text\":\"y\"}]"}`,
		hintLine,
		successLine(1, ""),
	}
	if d := cmp.Diff(want, lines); d != "" {
		t.Errorf("stdout lines (-want +got):\n%s", d)
	}
}

// A retried attempt's text is dropped and a meta line says so (spec 06
// §10 scenario 14).
func TestStreamJSONRetryDropsTheFailedAttempt(t *testing.T) {
	lines, _, err := runJSON(t,
		event.TurnStarted{Header: event.InTurn(1)},
		event.StepStarted{Header: event.InTurn(1), Step: 1},
		event.AssistantDelta{Header: event.InTurn(1), Delta: "partial"},
		event.StepRetrying{Header: event.InTurn(1), Step: 1, FailedAttempt: 1, NextAttempt: 2, MaxAttempts: 10, DelayMs: 300,
			ErrorName: "APIStatusError", ErrorMessage: "overloaded", StatusCode: 503},
		event.AssistantDelta{Header: event.InTurn(1), Delta: "whole"},
		event.StepCompleted{Header: event.InTurn(1), Step: 1},
		event.StepRetrying{Header: event.InTurn(1), Step: 2, FailedAttempt: 1, NextAttempt: 2, MaxAttempts: 10, ErrorName: "Error",
			ErrorMessage: "reset"},
		event.TurnEnded{Header: event.InTurn(1), Reason: event.EndCompleted},
	)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		versionLine,
		`{"role":"meta","type":"turn.step.retrying","failed_attempt":1,"next_attempt":2,"max_attempts":10,` +
			`"delay_ms":300,"error_name":"APIStatusError","error_message":"overloaded","status_code":503}`,
		`{"role":"assistant","content":"whole"}`,
		`{"role":"meta","type":"turn.step.retrying","failed_attempt":1,"next_attempt":2,"max_attempts":10,` +
			`"delay_ms":0,"error_name":"Error","error_message":"reset"}`,
		hintLine,
		successLine(1, "whole"),
	}
	if d := cmp.Diff(want, lines); d != "" {
		t.Errorf("stdout lines (-want +got):\n%s", d)
	}
}

func TestStreamJSONHookAndFailure(t *testing.T) {
	lines, _, err := runJSON(t,
		event.TurnStarted{Header: event.InTurn(1)},
		event.HookResult{Header: event.InTurn(1), HookEvent: "UserPromptSubmit", Content: ""},
		event.StepStarted{Header: event.InTurn(1), Step: 1},
		event.AssistantDelta{Header: event.InTurn(1), Delta: "half"},
		event.TurnEnded{Header: event.InTurn(1), Reason: event.EndFailed,
			Error: &event.ErrorPayload{Code: "provider.auth_error", Message: "invalid key"}},
	)
	// The run's end flushes what the failed step streamed, then says how
	// it ended.
	want := []string{versionLine, `{"role":"assistant","content":"UserPromptSubmit hook\n\n(empty)"}`,
		`{"role":"assistant","content":"half"}`,
		`{"type":"result","subtype":"error_during_execution","is_error":true,"duration_ms":0,"num_turns":1,` +
			`"result":"","session_id":"session_x","usage":{"input_tokens":0,"output_tokens":0,` +
			`"cache_read_input_tokens":0,"cache_creation_input_tokens":0},` +
			`"error":{"code":"provider.auth_error","message":"provider.auth_error: invalid key"},` +
			`"resume_command":"kimigo -r session_x"}`}
	if d := cmp.Diff(want, lines); d != "" {
		t.Errorf("stdout lines (-want +got):\n%s", d)
	}
	if f, ok := err.(*Failure); !ok || f.Message != "provider.auth_error: invalid key" {
		t.Errorf("err = %v; want the turn's error", err)
	}
}

func TestStreamJSONArgumentsThatAreNotJSON(t *testing.T) {
	lines, _, _ := runJSON(t,
		event.TurnStarted{Header: event.InTurn(1)},
		event.ToolCallStarted{Header: event.InTurn(1), ToolCallID: "c", Name: "Bash", Args: []byte(`{"command": "ls"`)},
		event.StepCompleted{Header: event.InTurn(1)},
		event.TurnEnded{Header: event.InTurn(1), Reason: event.EndCompleted},
	)
	want := `{"role":"assistant","tool_calls":[{"type":"function","id":"c","function":{"name":"Bash","arguments":"{\"command\": \"ls\""}}]}`
	if len(lines) < 2 || lines[1] != want {
		t.Errorf("lines = %q; want the arguments as given in line 2: %s", lines, want)
	}
}
