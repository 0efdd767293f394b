package print

import (
	"bytes"
	"testing"

	"github.com/kimigo/kimigo/agent/turn"
	"github.com/kimigo/kimigo/loop"
)

// runText runs the text format over events and returns stdout and stderr.
func runText(t *testing.T, events ...turn.Event) (stdout, stderr string, err error) {
	t.Helper()
	var out, errw bytes.Buffer
	err = Run(t.Context(), Options{Host: &replayHost{events: events}, Prompt: "hi", Format: FormatText,
		Version: "1.2.3", SessionID: "session_x", ResumeCommand: "kimigo -r session_x", Stdout: &out, Stderr: &errw})
	return out.String(), errw.String(), err
}

func TestTextFormatAnswerAndThinking(t *testing.T) {
	out, errw, err := runText(t,
		turn.TurnStartedEvent{TurnID: 1},
		turn.StepStartedEvent{TurnID: 1, Step: 1},
		turn.ThinkingDeltaEvent{TurnID: 1, Delta: "hmm"},
		turn.AssistantDeltaEvent{TurnID: 1, Delta: "Hello\n"},
		turn.AssistantDeltaEvent{TurnID: 1, Delta: "world"},
		turn.StepCompletedEvent{TurnID: 1, Step: 1},
		turn.TurnEndedEvent{TurnID: 1, Reason: turn.EndCompleted},
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
		turn.AssistantDeltaEvent{TurnID: 1, Delta: "before the turn started"},
		turn.TurnStartedEvent{TurnID: 1},
		turn.StepStartedEvent{TurnID: 1, Step: 1},
		turn.AssistantDeltaEvent{TurnID: 1, Delta: "Reading."},
		turn.ToolCallDeltaEvent{TurnID: 1, ToolCallID: "c1", Name: "Read", ArgumentsPart: `{"path":"a"}`},
		turn.ToolCallStartedEvent{TurnID: 1, ToolCallID: "c1", Name: "Read", Args: []byte(`{"path":"a"}`)},
		turn.ToolProgressEvent{TurnID: 1, ToolCallID: "c1", Update: loop.ProgressUpdate{Text: "50%"}},
		turn.ToolProgressEvent{TurnID: 1, ToolCallID: "c1", Update: loop.ProgressUpdate{Percent: new(float64)}},
		turn.AssistantDeltaEvent{TurnID: 7, Delta: "another turn"},
		turn.ToolResultEvent{TurnID: 1, ToolCallID: "c1", Output: loop.TextOutput("secret file content")},
		turn.StepCompletedEvent{TurnID: 1, Step: 1},
		turn.StepRetryingEvent{TurnID: 1, Step: 2, FailedAttempt: 1, NextAttempt: 2},
		turn.StepStartedEvent{TurnID: 1, Step: 2},
		turn.AssistantDeltaEvent{TurnID: 1, Delta: "Done."},
		turn.TurnEndedEvent{TurnID: 1, Reason: turn.EndCompleted},
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
		turn.TurnStartedEvent{TurnID: 1},
		turn.HookResultEvent{TurnID: 1, HookEvent: turn.HookUserPromptSubmit, Content: "  no secrets\n", Blocked: true},
		turn.TurnEndedEvent{TurnID: 1, Reason: turn.EndBlocked},
	)
	if want := "• UserPromptSubmit hook blocked\n\n  no secrets\n\n"; out != want {
		t.Errorf("stdout = %q; want %q", out, want)
	}
	if f, ok := err.(*Failure); !ok || f.Message != "Prompt hook blocked the request." {
		t.Errorf("err = %v; want the blocked failure", err)
	}
}
