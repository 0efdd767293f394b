package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/loop"
)

// AskUserQuestion limits (spec 05 §4.10).
const (
	askMaxQuestions = 4
	askMinOptions   = 2
	askMaxOptions   = 4
)

//go:embed ask_user_question.md
var askUserQuestionMD string

const askUserQuestionSchema = `{
  "type": "object",
  "properties": {
    "questions": {
      "type": "array", "minItems": 1, "maxItems": %d,
      "items": {
        "type": "object",
        "properties": {
          "question": {"type": "string", "minLength": 1},
          "header": {"type": "string", "default": "", "description": "Very short topic tag."},
          "options": {
            "type": "array", "minItems": %d, "maxItems": %d,
            "items": {
              "type": "object",
              "properties": {
                "label": {"type": "string", "minLength": 1},
                "description": {"type": "string", "default": ""}
              },
              "required": ["label"],
              "additionalProperties": false
            }
          },
          "multi_select": {"type": "boolean", "default": false}
        },
        "required": ["question", "options"],
        "additionalProperties": false
      }
    },
    "background": {"type": "boolean", "default": false}
  },
  "required": ["questions"],
  "additionalProperties": false
}`

// AskUserQuestionOptions configure NewAskUserQuestion.
type AskUserQuestionOptions struct {
	// Asker puts the questions to the user. Required: the manager
	// registers the tool only when the client can ask.
	Asker QuestionAsker
	// Background runs background questions; with nil, or AllowBackground
	// false (the task tools are not enabled), they are refused.
	Background      BackgroundTasks
	AllowBackground bool
}

// AskUserQuestion is the AskUserQuestion tool.
type AskUserQuestion struct {
	opts AskUserQuestionOptions
	def  llm.Tool
}

// NewAskUserQuestion returns the AskUserQuestion tool.
func NewAskUserQuestion(opts AskUserQuestionOptions) *AskUserQuestion {
	data := struct {
		MaxQuestions, MinOptions, MaxOptions int
		Background                           bool
	}{askMaxQuestions, askMinOptions, askMaxOptions, opts.Background != nil && opts.AllowBackground}
	schema := fmt.Sprintf(askUserQuestionSchema, askMaxQuestions, askMinOptions, askMaxOptions)
	return &AskUserQuestion{opts: opts, def: definition(NameAskUserQuestion, askUserQuestionMD, data, schema)}
}

// Definition implements loop.ExecutableTool.
func (t *AskUserQuestion) Definition() llm.Tool { return t.def }

type askArgs struct {
	Questions  []Question `json:"questions"`
	Background bool       `json:"background"`
}

const uniquenessRule = "Each question text must be unique within the call, and each option label unique within its question. Rephrase the duplicates and call the tool again."

// ResolveExecution implements loop.ExecutableTool.
func (t *AskUserQuestion) ResolveExecution(raw json.RawMessage) (loop.Execution, *loop.ToolResult, error) {
	var a askArgs
	if r := decodeArgs(NameAskUserQuestion, raw, &a); r != nil {
		return loop.Execution{}, r, nil
	}
	if len(a.Questions) == 0 {
		return loop.Execution{}, errorResult("questions must contain at least one question."), nil
	}
	seen := map[string]bool{}
	for _, q := range a.Questions {
		if seen[q.Question] {
			return loop.Execution{}, errorResult("Invalid questions: duplicate question text %q. %s", q.Question, uniquenessRule), nil
		}
		seen[q.Question] = true
		labels := map[string]bool{}
		for _, o := range q.Options {
			if labels[o.Label] {
				return loop.Execution{}, errorResult("Invalid questions: duplicate option label %q in question %q. %s", o.Label, q.Question, uniquenessRule), nil
			}
			labels[o.Label] = true
		}
	}
	desc := "Asking user questions"
	if a.Background {
		desc = "Starting background question: " + a.Questions[0].Question
		if n := len(a.Questions) - 1; n > 0 {
			desc += fmt.Sprintf(" (+%d more)", n)
		}
	}
	return loop.Execution{
		Description:  desc,
		ApprovalRule: NameAskUserQuestion,
		Execute: func(ctx context.Context, ec loop.ExecCtx) (loop.ToolResult, error) {
			if a.Background {
				return t.askInBackground(ctx, ec, desc, a.Questions)
			}
			return t.ask(ctx, ec, a.Questions)
		},
	}, nil, nil
}

func (t *AskUserQuestion) ask(ctx context.Context, ec loop.ExecCtx, qs []Question) (loop.ToolResult, error) {
	if t.opts.Asker == nil {
		return unsupportedQuestions(), nil
	}
	answers, err := t.opts.Asker.AskQuestions(ctx, QuestionRequest{TurnID: ec.TurnID, ToolCallID: ec.ToolCallID, Questions: qs})
	switch {
	case ctx.Err() != nil:
		return loop.ToolResult{}, context.Cause(ctx)
	case errors.Is(err, ErrQuestionsUnsupported):
		return unsupportedQuestions(), nil
	case err != nil || len(answers) == 0:
		// Any other failure of the client counts as a dismissal.
		return loop.TextResult(`{"answers":{},"note":"User dismissed the question without answering."}`), nil
	}
	out, err := marshalNoEscape(struct {
		Answers map[string]string `json:"answers"`
	}{answers})
	if err != nil {
		return loop.ToolResult{}, fmt.Errorf("encode answers: %w", err)
	}
	return loop.TextResult(out), nil
}

// askInBackground registers the question as a task (spec 05 §4.10 step
// 3): the answer arrives later as the task's notification.
func (t *AskUserQuestion) askInBackground(ctx context.Context, ec loop.ExecCtx, desc string, qs []Question) (loop.ToolResult, error) {
	if t.opts.Background == nil || !t.opts.AllowBackground {
		return loop.ErrorResult("Background questions are not available for this agent. Call AskUserQuestion again without background."), nil
	}
	task, err := t.opts.Background.StartQuestion(ctx, BackgroundQuestion{Description: desc, QuestionCount: len(qs),
		ToolCallID: ec.ToolCallID, Ask: func(ctx context.Context) (loop.ToolResult, error) {
			return t.ask(ctx, ec, qs)
		}})
	if err != nil {
		return loop.ErrorResult(err.Error()), nil
	}
	out := strings.Join([]string{
		"task_id: " + task.ID, "description: " + desc, "status: running", "automatic_notification: true",
		"next_step: Go on with other work; the answers arrive as a notification when the user replies.",
		"next_step: TaskOutput shows whether an answer arrived, without waiting.",
		"next_step: TaskStop withdraws the question.",
		"human_shell_hint: The user sees the question with /tasks.",
	}, "\n")
	return loop.ToolResult{Output: loop.TextOutput(out), Message: "Started " + task.ID, Brief: "Started " + task.ID}, nil
}

func unsupportedQuestions() loop.ToolResult {
	return loop.ErrorResult("This client cannot show interactive questions. Do not call AskUserQuestion again; ask the user in plain text instead.")
}
