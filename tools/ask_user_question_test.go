package tools_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/kimigo/kimigo/loop"
	"github.com/kimigo/kimigo/loop/looptest"
	"github.com/kimigo/kimigo/tools"
)

const oneQuestion = `{"questions":[{"question":"Which?","options":[{"label":"A"},{"label":"B"}]}]}`

func TestS88AskUserQuestion(t *testing.T) {
	var got tools.QuestionRequest
	answer := map[string]string{"Which?": "A"}
	ask := tools.NewAskUserQuestion(tools.AskUserQuestionOptions{Asker: askerFunc(func(_ context.Context, r tools.QuestionRequest) (map[string]string, error) {
		got = r
		return answer, nil
	})})
	wantOK(t, call(t, ask, oneQuestion), `{"answers":{"Which?":"A"}}`)
	if got.ToolCallID != "call-1" || len(got.Questions) != 1 || got.Questions[0].Options[1].Label != "B" {
		t.Errorf("request = %+v", got)
	}

	r := call(t, ask, `{"questions":[{"question":"Which?","options":[{"label":"A"},{"label":"B"}]},{"question":"Which?","options":[{"label":"C"},{"label":"D"}]}]}`)
	if !r.IsError || !strings.HasPrefix(text(r), `Invalid questions: duplicate question text "Which?". `) {
		t.Errorf("duplicate question = %q", text(r))
	}
	r = call(t, ask, `{"questions":[{"question":"Q","options":[{"label":"A"},{"label":"A"}]}]}`)
	if !r.IsError || !strings.HasPrefix(text(r), `Invalid questions: duplicate option label "A" in question "Q". `) {
		t.Errorf("duplicate label = %q", text(r))
	}
	res := runTurn(t, []loop.ExecutableTool{ask}, looptest.Call("c1", "AskUserQuestion", `{"questions":[{"question":"Q","options":[{"label":"A"}]}]}`))
	if !res[0].IsError || !strings.HasPrefix(text(res[0]), `Invalid args for tool "AskUserQuestion": `) {
		t.Errorf("one option = %q; want a schema error", text(res[0]))
	}

	answer = nil
	wantOK(t, call(t, ask, oneQuestion), `{"answers":{},"note":"User dismissed the question without answering."}`)

	bg := call(t, ask, `{"questions":[{"question":"Q","options":[{"label":"A"},{"label":"B"}]}],"background":true}`)
	if !bg.IsError {
		t.Errorf("background question without a task manager = %q; want an error", text(bg))
	}
}

func TestAskUserQuestionClientFailures(t *testing.T) {
	unsupported := tools.NewAskUserQuestion(tools.AskUserQuestionOptions{Asker: askerFunc(func(context.Context, tools.QuestionRequest) (map[string]string, error) {
		return nil, tools.ErrQuestionsUnsupported
	})})
	r := call(t, unsupported, oneQuestion)
	if !r.IsError || !strings.Contains(text(r), "Do not call AskUserQuestion again") {
		t.Errorf("unsupported = %q", text(r))
	}
	broken := tools.NewAskUserQuestion(tools.AskUserQuestionOptions{Asker: askerFunc(func(context.Context, tools.QuestionRequest) (map[string]string, error) {
		return nil, errors.New("rpc broke")
	})})
	wantOK(t, call(t, broken, oneQuestion), `{"answers":{},"note":"User dismissed the question without answering."}`)

	ctx, cancel := context.WithCancelCause(t.Context())
	waiting := tools.NewAskUserQuestion(tools.AskUserQuestionOptions{Asker: askerFunc(func(ctx context.Context, _ tools.QuestionRequest) (map[string]string, error) {
		cancel(loop.ErrUserCancelled)
		<-ctx.Done()
		return nil, ctx.Err()
	})})
	exec, _, _ := waiting.ResolveExecution([]byte(oneQuestion))
	if _, err := exec.Execute(ctx, execCtx()); !errors.Is(err, loop.ErrUserCancelled) {
		t.Errorf("cancelled question error = %v; want the cancel cause", err)
	}
}
