package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/loop"
	"github.com/kimigo/kimigo/workspace"
)

// NameAgent is the Agent tool (spec 05 §5.6).
const NameAgent = "Agent"

var (
	//go:embed agent.md
	agentMD string
	//go:embed agent_next_step.md
	agentNextStepMD string
	//go:embed agent_resume_hint.md
	agentResumeHintMD string
	//go:embed agent_timeout_hint.md
	agentTimeoutHintMD string
	//go:embed agent_interrupted.md
	agentInterruptedMD string
)

const agentSchema = `{
  "type": "object",
  "properties": {
    "prompt": {"type": "string", "description": "The task for the subagent, with everything it needs to know."},
    "description": {"type": "string", "description": "A short (3-5 word) label of the task, for the user."},
    "subagent_type": {"type": "string", "description": "The agent type to spawn; coder when omitted."},
    "resume": {"type": "string", "description": "The agent id of an earlier subagent to continue."},
    "run_in_background": {"type": "boolean", "description": "Return at once and deliver the result later."}
  },
  "required": ["prompt", "description"],
  "additionalProperties": false
}`

// defaultSubagentType is the profile of an Agent call without
// subagent_type.
const defaultSubagentType = "coder"

// unknownSubagentType names the profile of a resumed child whose profile
// is not known.
const unknownSubagentType = "subagent"

// AgentOptions configure NewAgent.
type AgentOptions struct {
	Launcher SubagentLauncher
	// Tasks runs the subagents as agent tasks.
	Tasks BackgroundTasks
	// AllowBackground: the task tools are enabled, so background runs are
	// offered.
	AllowBackground bool
}

// Agent is the Agent tool: it delegates a task to a subagent in the
// foreground or the background, or resumes an earlier one (spec 05 §5.6).
type Agent struct {
	o AgentOptions

	mu  sync.Mutex
	key string   // guarded by mu: what def was rendered for
	def llm.Tool // guarded by mu
}

// NewAgent returns the Agent tool.
func NewAgent(o AgentOptions) *Agent { return &Agent{o: o} }

// Definition implements loop.ExecutableTool. The list of agent types is
// the launcher's now: a resumed agent's delegation set is known only
// after its records were read.
func (t *Agent) Definition() llm.Tool {
	type typeLine struct{ Name, About, Tools, Disabled string }
	var types []typeLine
	var key strings.Builder
	for _, st := range t.o.Launcher.Types() {
		about := strings.TrimSpace(strings.TrimSpace(st.Description) + " " + strings.TrimSpace(st.WhenToUse))
		l := typeLine{Name: st.Name, About: about, Tools: strings.Join(withoutDenied(st.Tools, st.DisallowedTools), ", "),
			Disabled: strings.Join(st.DisallowedTools, ", ")}
		types = append(types, l)
		fmt.Fprintf(&key, "%s\x00%s\x00%s\x00%s\x01", l.Name, l.About, l.Tools, l.Disabled)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.key == key.String() && t.def.Name != "" {
		return t.def
	}
	timeout := ""
	if d := t.o.Launcher.Timeout(); d > 0 {
		timeout = FormatDuration(d)
	}
	data := map[string]any{"Timeout": timeout, "Background": t.o.AllowBackground, "Types": types}
	// The types are a slice: the definition is kept under the key they
	// make instead.
	k := struct {
		Types, Timeout string
		Background     bool
	}{key.String(), timeout, t.o.AllowBackground}
	t.key, t.def = key.String(), definitionFor(k, NameAgent, agentMD, data, agentSchema)
	return t.def
}

func withoutDenied(names, denied []string) []string {
	var out []string
	for _, n := range names {
		if !containsString(denied, n) {
			out = append(out, n)
		}
	}
	return out
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// FormatDuration says a subagent timeout the way spec 05 §5.8 does: whole
// hours, else whole minutes, else whole seconds, else milliseconds.
func FormatDuration(d time.Duration) string {
	unit := func(n int64, one string) string {
		if n == 1 {
			return "1 " + one
		}
		return fmt.Sprintf("%d %ss", n, one)
	}
	switch {
	case d > 0 && d%time.Hour == 0:
		return unit(int64(d/time.Hour), "hour")
	case d > 0 && d%time.Minute == 0:
		return unit(int64(d/time.Minute), "minute")
	case d > 0 && d%time.Second == 0:
		return unit(int64(d/time.Second), "second")
	}
	return fmt.Sprintf("%d ms", d.Milliseconds())
}

type agentArgs struct {
	Prompt          string `json:"prompt"`
	Description     string `json:"description"`
	SubagentType    string `json:"subagent_type"`
	Resume          string `json:"resume"`
	RunInBackground bool   `json:"run_in_background"`
}

// ResolveExecution implements loop.ExecutableTool.
func (t *Agent) ResolveExecution(raw json.RawMessage) (loop.Execution, *loop.ToolResult, error) {
	var a agentArgs
	if r := decodeArgs(NameAgent, raw, &a); r != nil {
		return loop.Execution{}, r, nil
	}
	resume := strings.TrimSpace(a.Resume)
	profile := strings.TrimSpace(a.SubagentType)
	if resume != "" {
		profile = t.o.Launcher.ProfileOf(resume)
		if profile == "" {
			profile = unknownSubagentType
		}
	} else if profile == "" {
		profile = defaultSubagentType
	}
	desc := "Launching " + profile + " agent: " + a.Description
	if a.RunInBackground {
		desc = "Launching background " + profile + " agent: " + a.Description
	}
	return loop.Execution{
		Accesses:     loop.None(), // many Agent calls run at once
		Description:  desc,
		Display:      &AgentCallDisplay{AgentName: profile, Prompt: a.Prompt, Background: a.RunInBackground},
		ApprovalRule: NameAgent,
		MatchesRule:  workspace.StringRuleMatcher(profile),
		Execute: func(ctx context.Context, ec loop.ExecCtx) (loop.ToolResult, error) {
			return t.execute(ctx, ec, a), nil
		},
	}, nil, nil
}

// execute runs one Agent call (spec 05 §5.6 steps 1–7).
func (t *Agent) execute(ctx context.Context, ec loop.ExecCtx, a agentArgs) loop.ToolResult {
	if ctx.Err() != nil {
		return loop.ErrorResult("subagent error: " + stoppedMessage(ctx))
	}
	resume := strings.TrimSpace(a.Resume)
	if resume != "" && strings.TrimSpace(a.SubagentType) != "" {
		return loop.ErrorResult("Cannot set subagent_type when resuming an existing agent. Resume by agent id only.")
	}
	if a.RunInBackground && !t.o.AllowBackground {
		return loop.ErrorResult("Background agent execution is not available for this agent because TaskList, TaskOutput, and TaskStop are not enabled.")
	}
	req := SubagentRequest{Resume: resume, Prompt: a.Prompt, Description: a.Description, ToolCallID: ec.ToolCallID,
		TurnID: ec.TurnID, Background: a.RunInBackground}
	if resume == "" {
		req.Profile = strings.TrimSpace(a.SubagentType)
		if req.Profile == "" {
			req.Profile = defaultSubagentType
		}
	}
	run, err := t.o.Launcher.Prepare(ctx, req)
	if err != nil {
		if ctx.Err() != nil {
			return loop.ErrorResult("subagent error: " + stoppedMessage(ctx))
		}
		return loop.ErrorResult("subagent error: " + err.Error())
	}
	var (
		mu     sync.Mutex
		result string
	)
	task, err := t.o.Tasks.RunAgent(ctx, AgentTask{Description: a.Description, AgentID: run.AgentID(),
		SubagentType: run.Profile(), Model: run.Model(), ThinkingEffort: run.ThinkingEffort(),
		Background: a.RunInBackground, Timeout: t.o.Launcher.Timeout(),
		Run: func(ctx context.Context) (string, error) {
			out, err := run.Run(ctx)
			mu.Lock()
			result = out
			mu.Unlock()
			return out, err
		},
		OnDetach: run.Detached})
	if err != nil {
		run.Abandon()
		return loop.ErrorResult("subagent error: " + err.Error())
	}
	if a.RunInBackground {
		run.Detached()
		return loop.TextResult(backgroundAnswer(task.ID(), run, a.Description))
	}
	<-task.Released()
	rel := task.Release()
	if rel.Kind != ReleaseTerminal {
		return loop.TextResult(backgroundAnswer(task.ID(), run, a.Description))
	}
	head := "agent_id: " + run.AgentID() + "\nactual_subagent_type: " + run.Profile() + "\n"
	info := rel.Info
	if info.Status == TaskCompleted {
		mu.Lock()
		out := result
		mu.Unlock()
		return loop.TextResult(head + "status: completed\n\n[summary]\n" + out)
	}
	var msg string
	switch {
	case info.Status == TaskTimedOut:
		msg = "Agent timed out after " + FormatDuration(t.o.Launcher.Timeout()) + ".\nresume_hint: " +
			fill(agentTimeoutHintMD, run.AgentID())
	case info.StopReason == interruptedByUser:
		// The call ended while the task was attached: the user's cancel,
		// or the agent closing.
		msg = stoppedMessage(ctx)
	case info.StopReason != "":
		msg = info.StopReason
	default:
		msg = stoppedBeforeFinish
	}
	return loop.ErrorResult(head + "status: failed\n\nsubagent error: " + msg)
}

// DisplayAgentCall is the display kind of an Agent call.
const DisplayAgentCall loop.DisplayKind = "agent_call"

// AgentCallDisplay shows an Agent call (spec 05 §5.6): the profile that
// runs it, the prompt, and whether it runs in the background.
type AgentCallDisplay struct {
	AgentName  string `json:"agent_name"`
	Prompt     string `json:"prompt"`
	Background bool   `json:"background"`
}

// DisplayKind implements loop.Display.
func (*AgentCallDisplay) DisplayKind() loop.DisplayKind { return DisplayAgentCall }

// MarshalJSON writes {"kind":"agent_call",…}.
func (d *AgentCallDisplay) MarshalJSON() ([]byte, error) {
	type plain AgentCallDisplay
	return loop.MarshalDisplay(DisplayAgentCall, (*plain)(d))
}

// interruptedByUser is the stop reason of a foreground task whose call
// was cancelled (spec 05 §6.3).
const interruptedByUser = "Interrupted by user"

const stoppedBeforeFinish = "The subagent was stopped before it finished."

// stoppedMessage says why a call ended before its subagent ran: the
// user's interruption, or a neutral stop.
func stoppedMessage(ctx context.Context) string {
	if errors.Is(context.Cause(ctx), loop.ErrUserCancelled) {
		return strings.TrimSpace(agentInterruptedMD)
	}
	return stoppedBeforeFinish
}

func fill(tmpl, agentID string) string {
	return strings.TrimSpace(strings.ReplaceAll(tmpl, "{{.AgentID}}", agentID))
}

// backgroundAnswer is the output of a run in the background (spec 05
// §5.6 step 5).
func backgroundAnswer(taskID string, run SubagentRun, description string) string {
	return "task_id: " + taskID + "\nstatus: running\nagent_id: " + run.AgentID() + "\nactual_subagent_type: " +
		run.Profile() + "\nautomatic_notification: true\n\ndescription: " + description + "\n\nnext_step: " +
		strings.TrimSpace(agentNextStepMD) + "\nresume_hint: " + fill(agentResumeHintMD, run.AgentID())
}
