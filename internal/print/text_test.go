package print

import (
	"bytes"
	"testing"

	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/loop"
)

// runText runs the text format over events and returns stdout and stderr.
func runText(t *testing.T, progress bool, events ...event.Event) (stdout, stderr string, err error) {
	t.Helper()
	var out, errw bytes.Buffer
	err = Run(t.Context(), Options{Host: &replayHost{events: events}, Prompt: "hi", Format: FormatText,
		Version: "1.2.3", SessionID: "session_x", ResumeCommand: "kimigo -r session_x", Stdout: &out, Stderr: &errw,
		Progress: progress})
	return out.String(), errw.String(), err
}

// Issue 15 item 3: stdout is the final answer as the model wrote it; no
// version line; reasoning only as progress.
func TestS15TextFormatAnswerOnly(t *testing.T) {
	events := []event.Event{
		event.TurnStarted{Header: event.InTurn(1)},
		event.StepStarted{Header: event.InTurn(1), Step: 1},
		event.ThinkingDelta{Header: event.InTurn(1), Delta: "hmm"},
		event.AssistantDelta{Header: event.InTurn(1), Delta: "Hello\n"},
		event.AssistantDelta{Header: event.InTurn(1), Delta: "  world"},
		event.StepCompleted{Header: event.InTurn(1), Step: 1},
		event.TurnEnded{Header: event.InTurn(1), Reason: event.EndCompleted},
	}
	for _, tt := range []struct {
		progress   bool
		wantStderr string
	}{
		{false, "To resume this session: kimigo -r session_x\n"},
		{true, "• hmm\n\nTo resume this session: kimigo -r session_x\n"},
	} {
		out, errw, err := runText(t, tt.progress, events...)
		if err != nil {
			t.Fatal(err)
		}
		if want := "Hello\n  world\n"; out != want {
			t.Errorf("progress %v: stdout = %q; want %q", tt.progress, out, want)
		}
		if errw != tt.wantStderr {
			t.Errorf("progress %v: stderr = %q; want %q", tt.progress, errw, tt.wantStderr)
		}
	}
}

// Progress: a header per call with its main argument, a one-line result,
// the commentary of a step that calls tools, retries with reason and wait;
// each on a line of its own. Without progress only the retry shows.
func TestS15TextFormatProgress(t *testing.T) {
	events := []event.Event{
		event.AssistantDelta{Header: event.InTurn(1), Delta: "before the turn started"},
		event.TurnStarted{Header: event.InTurn(1)},
		event.StepStarted{Header: event.InTurn(1), Step: 1},
		event.ThinkingDelta{Header: event.InTurn(1), Delta: "plan"},
		event.AssistantDelta{Header: event.InTurn(1), Delta: "Reading."},
		event.ToolCallDelta{Header: event.InTurn(1), ToolCallID: "c1", Name: "Bash", ArgumentsPart: `{"command":"ls`},
		event.ToolCallStarted{Header: event.InTurn(1), ToolCallID: "c1", Name: "Bash",
			Args: []byte(`{"command":"ls\n-la","timeout":5}`)},
		event.ToolProgress{Header: event.InTurn(1), ToolCallID: "c1", Update: loop.ProgressUpdate{Text: "50%"}},
		event.ToolProgress{Header: event.InTurn(1), ToolCallID: "c1", Update: loop.ProgressUpdate{Percent: new(float64)}},
		event.AssistantDelta{Header: event.InTurn(7), Delta: "another turn"},
		event.ToolResult{Header: event.InTurn(1), ToolCallID: "c1", Output: loop.TextOutput("a\nb\n")},
		event.ToolCallStarted{Header: event.InTurn(1), ToolCallID: "c2", Name: "Read", Args: []byte(`{"path":"x.go"}`)},
		event.ToolResult{Header: event.InTurn(1), ToolCallID: "c2", IsError: true, Brief: "Failed with exit code: 2",
			Output: loop.TextOutput("boom")},
		event.StepCompleted{Header: event.InTurn(1), Step: 1},
		event.StepStarted{Header: event.InTurn(1), Step: 2},
		event.AssistantDelta{Header: event.InTurn(1), Delta: "Do"},
		event.StepRetrying{Header: event.InTurn(1), Step: 2, FailedAttempt: 2, NextAttempt: 3, MaxAttempts: 10,
			DelayMs: 4000, ErrorMessage: "connection refused\ndial tcp"},
		event.AssistantDelta{Header: event.InTurn(1), Delta: "Done."},
		event.TurnEnded{Header: event.InTurn(1), Reason: event.EndCompleted},
	}
	out, errw, err := runText(t, true, events...)
	if err != nil {
		t.Fatal(err)
	}
	if want := "Done.\n"; out != want {
		t.Errorf("stdout = %q; want %q", out, want)
	}
	want := "• plan\n\nReading.\n→ Bash ls -la\n50%\n  ✓ 2 lines\n→ Read x.go\n  ✗ error: Failed with exit code: 2\n" +
		"connection refused; retry 3 of 10 in 4 s\nTo resume this session: kimigo -r session_x\n"
	if errw != want {
		t.Errorf("stderr =\n%s\nwant\n%s", errw, want)
	}
	_, errw, _ = runText(t, false, events...)
	if want := "connection refused; retry 3 of 10 in 4 s\nTo resume this session: kimigo -r session_x\n"; errw != want {
		t.Errorf("without progress, stderr = %q; want %q", errw, want)
	}
}

func TestWaitText(t *testing.T) {
	for ms, want := range map[int64]string{0: "0.0 s", 500: "0.5 s", 4000: "4 s", 59_600: "1 min", 125_000: "2 min 5 s"} {
		if got := waitText(ms); got != want {
			t.Errorf("waitText(%d) = %q; want %q", ms, got, want)
		}
	}
}

// A blocking hook is a failure: its output goes to stderr, stdout stays
// empty.
func TestTextFormatHookResult(t *testing.T) {
	out, errw, err := runText(t, false,
		event.TurnStarted{Header: event.InTurn(1)},
		event.HookResult{Header: event.InTurn(1), HookEvent: "UserPromptSubmit", Content: "  no secrets\n", Blocked: true},
		event.TurnEnded{Header: event.InTurn(1), Reason: event.EndBlocked},
	)
	if out != "" || errw != "UserPromptSubmit hook blocked\n\nno secrets\n" {
		t.Errorf("stdout = %q, stderr = %q", out, errw)
	}
	if f, ok := err.(*Failure); !ok || f.Message != "Prompt hook blocked the request." {
		t.Errorf("err = %v; want the blocked failure", err)
	}
}
