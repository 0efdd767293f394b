package print

import (
	"bytes"
	"testing"

	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/loop"
)

// runText runs the text format over events and returns stdout and stderr.
func runText(t *testing.T, events ...event.Event) (stdout, stderr string, err error) {
	t.Helper()
	var out, errw bytes.Buffer
	err = Run(t.Context(), Options{Host: &replayHost{events: events}, Prompt: "hi", Format: FormatText,
		Version: "1.2.3", SessionID: "session_x", ResumeCommand: "kimigo -r session_x", Stdout: &out, Stderr: &errw})
	return out.String(), errw.String(), err
}

func TestTextFormatAnswerAndThinking(t *testing.T) {
	out, errw, err := runText(t,
		event.TurnStarted{Header: event.InTurn(1)},
		event.StepStarted{Header: event.InTurn(1), Step: 1},
		event.ThinkingDelta{Header: event.InTurn(1), Delta: "hmm"},
		event.AssistantDelta{Header: event.InTurn(1), Delta: "Hello\n"},
		event.AssistantDelta{Header: event.InTurn(1), Delta: "world"},
		event.StepCompleted{Header: event.InTurn(1), Step: 1},
		event.TurnEnded{Header: event.InTurn(1), Reason: event.EndCompleted},
	)
	if err != nil {
		t.Fatal(err)
	}
	if want := "• Hello\n  world\n\n"; out != want {
		t.Errorf("stdout = %q; want %q", out, want)
	}
	if want := "kimigo version 1.2.3\n• hmm\n\nTo resume this session: kimigo -r session_x\n"; errw != want {
		t.Errorf("stderr = %q; want %q", errw, want)
	}
}

func TestTextFormatHidesToolsAndOtherTurns(t *testing.T) {
	out, errw, err := runText(t,
		event.AssistantDelta{Header: event.InTurn(1), Delta: "before the turn started"},
		event.TurnStarted{Header: event.InTurn(1)},
		event.StepStarted{Header: event.InTurn(1), Step: 1},
		event.AssistantDelta{Header: event.InTurn(1), Delta: "Reading."},
		event.ToolCallDelta{Header: event.InTurn(1), ToolCallID: "c1", Name: "Read", ArgumentsPart: `{"path":"a"}`},
		event.ToolCallStarted{Header: event.InTurn(1), ToolCallID: "c1", Name: "Read", Args: []byte(`{"path":"a"}`)},
		event.ToolProgress{Header: event.InTurn(1), ToolCallID: "c1", Update: loop.ProgressUpdate{Text: "50%"}},
		event.ToolProgress{Header: event.InTurn(1), ToolCallID: "c1", Update: loop.ProgressUpdate{Percent: new(float64)}},
		event.AssistantDelta{Header: event.InTurn(7), Delta: "another turn"},
		event.ToolResult{Header: event.InTurn(1), ToolCallID: "c1", Output: loop.TextOutput("secret file content")},
		event.StepCompleted{Header: event.InTurn(1), Step: 1},
		event.StepRetrying{Header: event.InTurn(1), Step: 2, FailedAttempt: 1, NextAttempt: 2},
		event.StepStarted{Header: event.InTurn(1), Step: 2},
		event.AssistantDelta{Header: event.InTurn(1), Delta: "Done."},
		event.TurnEnded{Header: event.InTurn(1), Reason: event.EndCompleted},
	)
	if err != nil {
		t.Fatal(err)
	}
	if want := "• Reading.\n\n• Done.\n\n"; out != want {
		t.Errorf("stdout = %q; want %q", out, want)
	}
	if want := "kimigo version 1.2.3\n50%\nTo resume this session: kimigo -r session_x\n"; errw != want {
		t.Errorf("stderr = %q; want %q", errw, want)
	}
}

func TestTextFormatHookResult(t *testing.T) {
	out, _, err := runText(t,
		event.TurnStarted{Header: event.InTurn(1)},
		event.HookResult{Header: event.InTurn(1), HookEvent: "UserPromptSubmit", Content: "  no secrets\n", Blocked: true},
		event.TurnEnded{Header: event.InTurn(1), Reason: event.EndBlocked},
	)
	if want := "• UserPromptSubmit hook blocked\n\n  no secrets\n\n"; out != want {
		t.Errorf("stdout = %q; want %q", out, want)
	}
	if f, ok := err.(*Failure); !ok || f.Message != "Prompt hook blocked the request." {
		t.Errorf("err = %v; want the blocked failure", err)
	}
}
