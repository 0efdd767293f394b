package print

import (
	"errors"
	"io"
	"strings"
	"time"

	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/llm/plainjson"
)

// Result is how a print run ended, as the json format's one object and
// stream-json's last line (issue 15 item 4). The field names are Claude
// Code's result object's, so scripts written for it work; Error and
// ResumeCommand are kimigo's.
type Result struct {
	Type       string      `json:"type"` // always "result"
	Subtype    string      `json:"subtype"`
	IsError    bool        `json:"is_error"`
	DurationMs int64       `json:"duration_ms"`
	NumTurns   int         `json:"num_turns"`
	Result     string      `json:"result"`
	SessionID  string      `json:"session_id"`
	Usage      ResultUsage `json:"usage"`
	// Error is the failure's code and message; nil on success.
	Error *ResultError `json:"error,omitempty"`
	// ResumeCommand runs the session again; "" when there is none.
	ResumeCommand string `json:"resume_command,omitempty"`
	// ended says the run ended as the model or its goal left it (success,
	// or a goal that stopped short): the answer and the resume hint are
	// written.
	ended bool
}

// ResultUsage is the tokens of the run, summed over its model steps.
type ResultUsage struct {
	InputTokens              int `json:"input_tokens"`
	OutputTokens             int `json:"output_tokens"`
	CacheReadInputTokens     int `json:"cache_read_input_tokens"`
	CacheCreationInputTokens int `json:"cache_creation_input_tokens"`
}

// ResultError names what failed.
type ResultError struct {
	Code    string `json:"code,omitempty"`
	Message string `json:"message"`
}

// Result subtypes.
const (
	SubtypeSuccess         = "success"
	SubtypeMaxSteps        = "error_max_steps"
	SubtypeDuringExecution = "error_during_execution"
)

// codeMaxSteps is the loop's error code of a turn stopped by its step
// limit.
const codeMaxSteps = "loop.max_steps_exceeded"

// FailedResult is the result of a run that failed before its prompt was
// sent (configuration, session, model): no turns, no tokens.
func FailedResult(err error, sessionID, resumeCommand string, d time.Duration) Result {
	return Result{Type: "result", Subtype: SubtypeDuringExecution, IsError: true, DurationMs: d.Milliseconds(),
		SessionID: sessionID, ResumeCommand: resumeCommand, Error: &ResultError{Message: err.Error()}}
}

// WriteResult writes res as one JSON line with one write.
func WriteResult(w io.Writer, res Result) error {
	b, err := plainjson.Marshal(res)
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// tally counts what a result reports while the run's events pass: the
// model steps, their tokens, and the answer, the text of the last step
// that wrote any (a retried attempt's text does not count).
type tally struct {
	steps  int
	usage  ResultUsage
	step   strings.Builder
	answer string
}

func (t *tally) add(ev event.Event) {
	switch e := ev.(type) {
	case event.StepStarted:
		t.steps++
		t.endStep()
	case event.AssistantDelta:
		t.step.WriteString(e.Delta)
	case event.StepRetrying:
		t.step.Reset()
	case event.StepCompleted:
		if e.Usage != nil {
			t.addUsage(*e.Usage)
		}
		t.endStep()
	case event.TurnEnded, event.StepInterrupted:
		t.endStep()
	}
}

func (t *tally) endStep() {
	if s := t.step.String(); strings.TrimSpace(s) != "" {
		t.answer = s
	}
	t.step.Reset()
}

func (t *tally) addUsage(u llm.TokenUsage) {
	t.usage.InputTokens += u.InputOther
	t.usage.OutputTokens += u.Output
	t.usage.CacheReadInputTokens += u.InputCacheRead
	t.usage.CacheCreationInputTokens += u.InputCacheCreation
}

// result is the Result of a run that ended with err (nil: success).
func (t *tally) result(err error, o Options, d time.Duration) Result {
	t.endStep()
	res := Result{Type: "result", Subtype: SubtypeSuccess, DurationMs: d.Milliseconds(), NumTurns: t.steps,
		Result: t.answer, SessionID: o.SessionID, Usage: t.usage, ResumeCommand: o.ResumeCommand}
	if err == nil {
		res.ended = true
		return res
	}
	res.IsError, res.Subtype, res.Result = true, SubtypeDuringExecution, ""
	res.Error = &ResultError{Message: err.Error()}
	var f *Failure
	var stopped *GoalStopped
	switch {
	case errors.As(err, &f):
		res.Error.Code = f.Code
		if f.Code == codeMaxSteps {
			res.Subtype = SubtypeMaxSteps
		}
	case errors.Is(err, ErrInterrupted):
		res.Error.Code = "interrupted"
	case errors.As(err, &stopped):
		// A goal that stopped short (blocked, paused) is not a success, but
		// the run ended as the goal left it: its answer and resume hint
		// stand.
		res.Subtype, res.Result, res.Error.Code = "error_goal_"+stopped.Goal.Status, t.answer, "goal."+stopped.Goal.Status
		res.ended = true
	}
	return res
}
