package turn_test

import (
	"context"
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/kimigo/kimigo/agent/turn"
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/loop"
	"github.com/kimigo/kimigo/loop/looptest"
)

// dedupRig runs one turn through the real loop with a Deduplicator (and,
// when budget is set, a ResultBudget) wired into the hooks in the order of
// spec 03 §1.7. The hooks run on the turn goroutine and the test reads the
// rig only after RunTurn returned, so the fields need no lock.
type dedupRig struct {
	dedup  *turn.Deduplicator
	budget *turn.ResultBudget
	tools  []loop.ExecutableTool
	// prepare runs in PrepareToolExecution for calls the deduplicator lets
	// through, standing in for the hooks that may rewrite arguments.
	prepare func(h loop.ToolCtx) loop.Preparation

	fake *looptest.FakeLLM
	rec  looptest.Recorder
	// approvals lists the call ids AuthorizeToolExecution was asked about:
	// the permission prompts of manual mode.
	approvals []string
	// posted is the output text each PostToolUse would get, in order.
	posted []string
	// finals are the results FinalizeToolResult returned, in order; unlike
	// the transcript they keep StopTurn.
	finals []loop.ToolResult
}

func newDedupRig(tools ...loop.ExecutableTool) *dedupRig {
	return &dedupRig{dedup: turn.NewDeduplicator(), tools: tools}
}

// run plays script through the loop and returns how the turn ended.
func (r *dedupRig) run(t *testing.T, script ...looptest.Response) loop.TurnResult {
	t.Helper()
	r.fake = looptest.New(script...)
	sleeper := &looptest.Sleeper{}
	res, err := loop.RunTurn(t.Context(), loop.RunTurnInput{
		TurnID:         "turn-0",
		LLM:            r.fake,
		BuildMessages:  func(context.Context) ([]llm.Message, error) { return []llm.Message{llm.UserMessage("go")}, nil },
		Dispatch:       r.rec.Dispatcher(),
		Tools:          r.tools,
		Hooks:          r.hooks(),
		OnRequestTrace: func(*loop.RequestTrace) { r.dedup.BeginStep() },
		Options:        loop.Options{Sleep: sleeper.Sleep, NewUUID: looptest.SeqUUIDs()},
	})
	if err != nil {
		t.Fatalf("RunTurn: %v", err)
	}
	return res
}

func (r *dedupRig) hooks() loop.Hooks {
	return loop.Hooks{
		PrepareToolExecution: func(_ context.Context, h loop.ToolCtx) (loop.Preparation, error) {
			c := h.ToolCall
			if cached := r.dedup.CheckSameStep(c.ID, c.Name, h.Args, c.Arguments); cached != nil {
				return loop.Preparation{SyntheticResult: cached}, nil
			}
			if r.prepare != nil {
				return r.prepare(h), nil
			}
			return loop.Preparation{}, nil
		},
		AuthorizeToolExecution: func(_ context.Context, h loop.ToolCtx) (loop.Authorization, error) {
			r.approvals = append(r.approvals, h.ToolCall.ID)
			return loop.Authorization{}, nil
		},
		FinalizeToolResult: func(_ context.Context, h loop.ResultCtx) (*loop.ToolResult, error) {
			c := h.ToolCall
			r.dedup.RegisterSkipped(c.ID, c.Name, h.Args, c.Arguments)
			final := r.dedup.FinalizeResult(c.ID, h.Result)
			r.posted = append(r.posted, final.Output.Text())
			model := final
			if r.budget != nil {
				model = r.budget.Apply(c.Name, c.ID, final)
			}
			r.finals = append(r.finals, model)
			return &model, nil
		},
		AfterStep: func(context.Context, loop.StepEndCtx) (loop.AfterStepResult, error) {
			r.dedup.EndStep()
			return loop.AfterStepResult{}, nil
		},
	}
}

// results returns the output text of every recorded tool.result, in order.
func (r *dedupRig) results() []string {
	var out []string
	for _, ev := range looptest.RecordedOfType[loop.ToolResultEvent](&r.rec) {
		out = append(out, ev.Result.Output.Text())
	}
	return out
}

// callIDs returns the call id of every recorded tool.call, in order.
func (r *dedupRig) callIDs() []string {
	var out []string
	for _, ev := range looptest.RecordedOfType[loop.ToolCallEvent](&r.rec) {
		out = append(out, ev.ToolCallID)
	}
	return out
}

// repeatReminder is the wrapped reminder of rung 1, 2 or 3 for streak n,
// read from the reminder text files.
func repeatReminder(t *testing.T, rung, n int) string {
	t.Helper()
	b, err := os.ReadFile("text/dedup_repeat_" + strconv.Itoa(rung) + ".md")
	if err != nil {
		t.Fatal(err)
	}
	body := strings.ReplaceAll(strings.TrimSpace(string(b)), "{count}", strconv.Itoa(n))
	return "\n\n<system-reminder>\n" + body + "\n</system-reminder>"
}

// textTool returns a tool that answers every call with out.
func textTool(name, schema string, out loop.ToolResult) *looptest.Tool {
	return &looptest.Tool{Name: name, Schema: schema, Accesses: loop.None(),
		Run: func(context.Context, json.RawMessage, loop.ExecCtx) (loop.ToolResult, error) { return out, nil }}
}

// repeatSteps returns n steps that each issue one call made by call(i),
// then a text answer.
func repeatSteps(n int, call func(i int) llm.ToolCall) []looptest.Response {
	var script []looptest.Response
	for i := 1; i <= n; i++ {
		script = append(script, looptest.Calls(call(i)))
	}
	return append(script, looptest.Text("done"))
}
