package background

import (
	"context"
	"strings"

	"github.com/kimigo/kimigo/tools"
)

// AgentSpec is a subagent run as a task (spec 05 §6.1, kind agent): the
// Agent tool registers one per background (or detached) subagent.
type AgentSpec struct {
	Description    string
	AgentID        string
	SubagentType   string
	Model          string
	ThinkingEffort string
	// Run waits for the subagent and returns its final text; ctx ends when
	// the task is stopped.
	Run func(ctx context.Context) (string, error)
	// OnDetach, when set, is told the task left the foreground.
	OnDetach func()
}

type agentTask struct{ spec AgentSpec }

// NewAgentTask returns the task of a subagent run.
func NewAgentTask(spec AgentSpec) Task { return &agentTask{spec: spec} }

func (t *agentTask) Kind() tools.TaskKind { return tools.TaskKindAgent }
func (t *agentTask) Description() string  { return t.spec.Description }
func (t *agentTask) Info(b tools.TaskInfo) tools.TaskInfo {
	b.AgentID, b.SubagentType, b.Model, b.ThinkingEffort = t.spec.AgentID, t.spec.SubagentType, t.spec.Model, t.spec.ThinkingEffort
	return b
}

func (t *agentTask) OnDetach() {
	if t.spec.OnDetach != nil {
		t.spec.OnDetach()
	}
}

// Start appends the final text once; an abort is killed, an error failed.
func (t *agentTask) Start(ctx context.Context, sink Sink) {
	out, err := t.spec.Run(ctx)
	if out != "" {
		sink.AppendOutput([]byte(out))
	}
	switch {
	case ctx.Err() != nil:
		sink.Settle(Settlement{Status: tools.TaskKilled})
	case err != nil:
		sink.Settle(Settlement{Status: tools.TaskFailed, Reason: err.Error()})
	default:
		sink.Settle(Settlement{Status: tools.TaskCompleted})
	}
}

// questionTask runs an AskUserQuestion call in the background (spec 05
// §4.10 step 3, kind question).
type questionTask struct{ q tools.BackgroundQuestion }

// NewQuestionTask returns the task of a background question.
func NewQuestionTask(q tools.BackgroundQuestion) Task { return &questionTask{q: q} }

func (t *questionTask) Kind() tools.TaskKind { return tools.TaskKindQuestion }
func (t *questionTask) Description() string  { return t.q.Description }
func (t *questionTask) Info(b tools.TaskInfo) tools.TaskInfo {
	b.QuestionCount, b.ToolCallID = t.q.QuestionCount, t.q.ToolCallID
	return b
}

// Start appends the answer once: a tool error fails the task with its
// text as the reason, an abort kills it.
func (t *questionTask) Start(ctx context.Context, sink Sink) {
	res, err := t.q.Ask(ctx)
	text := res.Output.Text()
	if text != "" {
		sink.AppendOutput([]byte(text))
	}
	switch {
	case ctx.Err() != nil:
		sink.Settle(Settlement{Status: tools.TaskKilled})
	case err != nil:
		sink.Settle(Settlement{Status: tools.TaskFailed, Reason: err.Error()})
	case res.IsError:
		sink.Settle(Settlement{Status: tools.TaskFailed, Reason: strings.TrimSpace(text)})
	default:
		sink.Settle(Settlement{Status: tools.TaskCompleted})
	}
}
