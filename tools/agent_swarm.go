package tools

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/loop"
)

// NameAgentSwarm is the AgentSwarm tool's name.
const NameAgentSwarm = "AgentSwarm"

// MaxSwarmSubagents is how many subagents one AgentSwarm call may run,
// items and resumes together (spec 05 §5.7).
const MaxSwarmSubagents = 128

// swarmPlaceholder is what each item replaces in the prompt template.
const swarmPlaceholder = "{{item}}"

// defaultSwarmProfile is the profile of item subagents without
// subagent_type.
const defaultSwarmProfile = "coder"

//go:embed agent_swarm.md
var agentSwarmMD string

// agentSwarmSchema is closed; a non-blank string is one with a character
// that is not white space, as the tool trims every value.
const agentSwarmSchema = `{
  "type": "object",
  "properties": {
    "description": {"type": "string", "pattern": "\\S", "description": "A few words for the whole swarm."},
    "subagent_type": {"type": "string", "pattern": "\\S", "description": "Profile of the item subagents (default coder)."},
    "prompt_template": {"type": "string", "pattern": "\\S", "description": "Prompt of each item subagent, with {{item}}."},
    "items": {"type": "array", "maxItems": 128, "items": {"type": "string", "pattern": "\\S"}, "description": "One per new subagent."},
    "resume_agent_ids": {"type": "object", "propertyNames": {"pattern": "\\S"}, "additionalProperties": {"type": "string", "pattern": "\\S"},
      "description": "Agent id to continue → its prompt; these start first."}
  },
  "required": ["description"],
  "additionalProperties": false
}`

// SwarmRunner runs the subagents of an AgentSwarm call: the session
// implements it over its subagent host and the batch scheduler (spec 05
// §5.7). Safe for concurrent use.
type SwarmRunner interface {
	// RunSwarm checks the request (the profile, the resumed ids, the
	// concurrency setting) and, when it is sound, runs every task and
	// returns one result per task in input order. An error means nothing
	// was started (its message names the bad value), or that the batch
	// was stopped by something other than the user; a user cancellation
	// is results marked aborted. ctx is the tool call's.
	RunSwarm(ctx context.Context, r SwarmRequest) ([]SwarmResult, error)
}

// SwarmMode is the calling agent's swarm mode as AgentSwarm sees it
// (agent/swarm implements it). Safe for concurrent use.
type SwarmMode interface {
	// EnterSwarmForTool turns swarm mode on for this call (trigger tool:
	// no reminder, and it ends with the turn); it does nothing while
	// swarm mode is on.
	EnterSwarmForTool(ctx context.Context) error
}

// SwarmRequest is one AgentSwarm call's work.
type SwarmRequest struct {
	// ToolCallID is the AgentSwarm call's id, the children's parent call;
	// TurnID is the parent's turn.
	ToolCallID string
	TurnID     string
	// Profile is the profile of the item subagents.
	Profile string
	// Tasks are the resumes first, then the items, numbered from 1.
	Tasks []SwarmTask
}

// SwarmTask is one subagent of a swarm.
type SwarmTask struct {
	// Index is the task's 1-based place in the swarm.
	Index int
	// ResumeAgentID is set for a resumed subagent.
	ResumeAgentID string
	// Item is the item a new subagent works on; for a resume, the runner
	// sets it in the result to the item the child was spawned for.
	Item string
	// Prompt is the expanded template, or the resume prompt.
	Prompt string
	// Description is "<swarm description> #<index> (<profile or resume>)".
	Description string
}

// SwarmResult is how one subagent of a swarm ended.
type SwarmResult struct {
	Task SwarmTask
	// AgentID is "" when no child was created.
	AgentID string
	// Status is completed, failed or aborted; State, for a task that did
	// not complete, is started or not_started.
	Status string
	State  string
	// Output is a completed child's report; Error why the task did not
	// complete.
	Output string
	Error  string
}

// The statuses of SwarmResult.
const (
	SwarmCompleted = "completed"
	SwarmFailed    = "failed"
	SwarmAborted   = "aborted"
)

// AgentSwarm is the AgentSwarm tool (spec 05 §5.7).
type AgentSwarm struct {
	runner SwarmRunner
	mode   SwarmMode
	def    llm.Tool
}

// NewAgentSwarm returns the AgentSwarm tool over runner; mode is the
// calling agent's swarm mode, nil for none.
func NewAgentSwarm(runner SwarmRunner, mode SwarmMode) *AgentSwarm {
	data := struct {
		Placeholder string
		Max         int
	}{swarmPlaceholder, MaxSwarmSubagents}
	return &AgentSwarm{runner: runner, mode: mode, def: definition(NameAgentSwarm, agentSwarmMD, data, agentSwarmSchema)}
}

// Definition implements loop.ExecutableTool.
func (t *AgentSwarm) Definition() llm.Tool { return t.def }

// swarmArgs are AgentSwarm's arguments; Resumes keeps the order the
// model wrote resume_agent_ids in.
type swarmArgs struct {
	Description    string          `json:"description"`
	SubagentType   string          `json:"subagent_type"`
	PromptTemplate string          `json:"prompt_template"`
	Items          []string        `json:"items"`
	ResumeAgentIDs json.RawMessage `json:"resume_agent_ids"`
	Resumes        []swarmResume   `json:"-"`
}

type swarmResume struct{ agentID, prompt string }

// SwarmCallDisplay shows an AgentSwarm call: the agent_call block with the
// swarm's size as the agent name (spec 05 §5.7).
type SwarmCallDisplay struct {
	AgentName string `json:"agent_name"`
	Prompt    string `json:"prompt"`
}

// DisplaySwarmCall is the kind of SwarmCallDisplay, the Agent tool's.
const DisplaySwarmCall loop.DisplayKind = "agent_call"

// DisplayKind implements loop.Display.
func (*SwarmCallDisplay) DisplayKind() loop.DisplayKind { return DisplaySwarmCall }

// MarshalJSON writes {"kind":"agent_call",…}.
func (d *SwarmCallDisplay) MarshalJSON() ([]byte, error) {
	type plain SwarmCallDisplay
	return loop.MarshalDisplay(DisplaySwarmCall, (*plain)(d))
}

// ResolveExecution implements loop.ExecutableTool. The call declares
// every access: nothing runs beside a swarm.
func (t *AgentSwarm) ResolveExecution(raw json.RawMessage) (loop.Execution, *loop.ToolResult, error) {
	var a swarmArgs
	if r := decodeArgs(NameAgentSwarm, raw, &a); r != nil {
		return loop.Execution{}, r, nil
	}
	resumes, err := orderedStrings(a.ResumeAgentIDs)
	if err != nil {
		return loop.Execution{}, errorResult("Invalid args for tool %q: /resume_agent_ids %v", NameAgentSwarm, err), nil
	}
	a.Resumes = resumes
	desc := strings.TrimSpace(a.Description)
	return loop.Execution{
		Accesses:     loop.All(),
		Description:  "Launching agent swarm: " + desc,
		Display:      &SwarmCallDisplay{AgentName: fmt.Sprintf("swarm (%d subagents)", len(a.Items)+len(resumes)), Prompt: desc},
		ApprovalRule: NameAgentSwarm,
		Execute: func(ctx context.Context, ec loop.ExecCtx) (loop.ToolResult, error) {
			return t.run(ctx, ec, a)
		},
	}, nil, nil
}

// run enters swarm mode, builds the tasks, runs them and renders the
// results. Only a bad request or a batch that failed as a whole is an
// error result: children that failed are part of a successful answer.
func (t *AgentSwarm) run(ctx context.Context, ec loop.ExecCtx, a swarmArgs) (loop.ToolResult, error) {
	if t.mode != nil {
		if err := t.mode.EnterSwarmForTool(ctx); err != nil {
			return loop.ErrorResult("Could not enter swarm mode: " + err.Error()), nil
		}
	}
	req, msg := swarmRequest(a)
	if msg != "" {
		return loop.ErrorResult(msg), nil
	}
	req.ToolCallID, req.TurnID = ec.ToolCallID, ec.TurnID
	results, err := t.runner.RunSwarm(ctx, req)
	if err != nil {
		return loop.ErrorResult(err.Error()), nil
	}
	return loop.ToolResult{Output: loop.TextOutput(renderSwarm(results)), Brief: swarmSummary(results)}, nil
}

// swarmRequest builds the tasks of a call: resumes first, then one per
// item (spec 05 §5.7 step 2); msg is the first rule the call breaks.
func swarmRequest(a swarmArgs) (req SwarmRequest, msg string) {
	desc := strings.TrimSpace(a.Description)
	profile := strings.TrimSpace(a.SubagentType)
	if profile == "" {
		profile = defaultSwarmProfile
	}
	items := make([]string, len(a.Items))
	for i, it := range a.Items {
		items[i] = strings.TrimSpace(it)
	}
	switch {
	case len(a.Resumes) == 0 && len(items) < 2:
		return req, "AgentSwarm requires at least 2 items unless resume_agent_ids is provided."
	case len(a.Resumes)+len(items) > MaxSwarmSubagents:
		return req, fmt.Sprintf("AgentSwarm supports at most %d subagents.", MaxSwarmSubagents)
	}
	tmpl := strings.TrimSpace(a.PromptTemplate)
	if len(items) > 0 && tmpl == "" {
		return req, "prompt_template is required when items are provided."
	}
	if tmpl != "" && !strings.Contains(tmpl, swarmPlaceholder) {
		return req, "prompt_template must include the " + swarmPlaceholder + " placeholder."
	}
	req.Profile = profile
	for _, r := range a.Resumes {
		n := len(req.Tasks) + 1
		req.Tasks = append(req.Tasks, SwarmTask{Index: n, ResumeAgentID: r.agentID, Prompt: r.prompt,
			Description: fmt.Sprintf("%s #%d (resume)", desc, n)})
	}
	seen := map[string]int{}
	for i, it := range items {
		prompt := strings.ReplaceAll(tmpl, swarmPlaceholder, it)
		if j, dup := seen[prompt]; dup {
			return SwarmRequest{}, fmt.Sprintf("Duplicate subagent prompts from items %d and %d. AgentSwarm requires distinct subagents.", j, i+1)
		}
		seen[prompt] = i + 1
		n := len(req.Tasks) + 1
		req.Tasks = append(req.Tasks, SwarmTask{Index: n, Item: it, Prompt: prompt,
			Description: fmt.Sprintf("%s #%d (%s)", desc, n, profile)})
	}
	return req, ""
}

// orderedStrings reads a JSON object of strings in the order it was
// written, values trimmed; a key given twice keeps its first place and its
// last value. Null or absent is empty.
func orderedStrings(raw json.RawMessage) ([]swarmResume, error) {
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, fmt.Errorf("must be an object")
	}
	var out []swarmResume
	at := map[string]int{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := tok.(string) // object keys are strings
		var v string
		if err := dec.Decode(&v); err != nil {
			return nil, fmt.Errorf("/%s must be string", key)
		}
		key, v = strings.TrimSpace(key), strings.TrimSpace(v)
		if i, ok := at[key]; ok {
			out[i].prompt = v
			continue
		}
		at[key] = len(out)
		out = append(out, swarmResume{agentID: key, prompt: v})
	}
	return out, nil
}

// swarmResumeHint tells the model how to continue what did not finish.
const swarmResumeHint = "To continue the subagents that did not complete, call AgentSwarm again with resume_agent_ids " +
	"mapping their agent_id values from this result to a prompt (\"continue\" when nothing changed)."

// renderSwarm is the <agent_swarm_result> block: a summary, a resume hint
// when something unfinished can be resumed, then one element per task in
// input order. Attribute values are escaped; bodies are the children's
// own text.
func renderSwarm(results []SwarmResult) string {
	var b strings.Builder
	b.WriteString("<agent_swarm_result>\n<summary>" + swarmSummary(results) + "</summary>\n")
	unfinished, resumable := false, false
	for _, r := range results {
		unfinished = unfinished || r.Status != SwarmCompleted
		resumable = resumable || r.AgentID != ""
	}
	if unfinished && resumable {
		b.WriteString("<resume_hint>" + swarmResumeHint + "</resume_hint>\n")
	}
	for _, r := range results {
		b.WriteString("<subagent")
		if r.Task.ResumeAgentID != "" {
			b.WriteString(` mode="resume"`)
		}
		if r.AgentID != "" {
			b.WriteString(` agent_id="` + xmlAttr(r.AgentID) + `"`)
		}
		if r.Task.Item != "" {
			b.WriteString(` item="` + xmlAttr(r.Task.Item) + `"`)
		}
		if r.State != "" {
			b.WriteString(` state="` + r.State + `"`)
		}
		body := r.Output
		if r.Status != SwarmCompleted {
			body = r.Error
			if body == "" {
				body = "unknown error"
			}
		}
		b.WriteString(` outcome="` + r.Status + `">` + body + "</subagent>\n")
	}
	b.WriteString("</agent_swarm_result>")
	return b.String()
}

// swarmSummary counts the outcomes, naming only those that occurred.
func swarmSummary(results []SwarmResult) string {
	n := map[string]int{}
	for _, r := range results {
		n[r.Status]++
	}
	var parts []string
	for _, s := range []string{SwarmCompleted, SwarmFailed, SwarmAborted} {
		if n[s] > 0 {
			parts = append(parts, fmt.Sprintf("%s: %d", s, n[s]))
		}
	}
	return strings.Join(parts, ", ")
}

// xmlAttr escapes & " < > for an attribute value.
var xmlAttrEscaper = strings.NewReplacer("&", "&amp;", `"`, "&quot;", "<", "&lt;", ">", "&gt;")

func xmlAttr(s string) string { return xmlAttrEscaper.Replace(s) }
