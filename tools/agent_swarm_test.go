package tools_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kimigo/kimigo/loop"
	"github.com/kimigo/kimigo/tools"
)

// scriptedSwarm plays the session's side of AgentSwarm: it keeps the
// requests it got and answers each task with what outcome says (a
// completed report by default), or fails the whole call with err.
type scriptedSwarm struct {
	outcome func(tools.SwarmTask) tools.SwarmResult
	err     error

	mu       sync.Mutex
	requests []tools.SwarmRequest
	entered  int
}

func (s *scriptedSwarm) RunSwarm(_ context.Context, r tools.SwarmRequest) ([]tools.SwarmResult, error) {
	s.mu.Lock()
	s.requests = append(s.requests, r)
	s.mu.Unlock()
	if s.err != nil {
		return nil, s.err
	}
	var out []tools.SwarmResult
	for _, t := range r.Tasks {
		if s.outcome != nil {
			out = append(out, s.outcome(t))
			continue
		}
		out = append(out, tools.SwarmResult{Task: t, AgentID: fmt.Sprintf("agent-%d", t.Index-1), Status: tools.SwarmCompleted,
			Output: "report " + t.Item})
	}
	return out, nil
}

func (s *scriptedSwarm) EnterSwarmForTool(context.Context) error {
	s.mu.Lock()
	s.entered++
	s.mu.Unlock()
	return nil
}

func TestScenario58Validation(t *testing.T) {
	many := make([]string, 129)
	for i := range many {
		many[i] = fmt.Sprintf("f%d", i)
	}
	manyJSON, _ := json.Marshal(many)
	for _, tt := range []struct {
		name, args, want string
	}{
		{"one item without resumes", `{"description":"d","prompt_template":"do {{item}}","items":["a"]}`,
			"AgentSwarm requires at least 2 items unless resume_agent_ids is provided."},
		{"no items at all", `{"description":"d"}`,
			"AgentSwarm requires at least 2 items unless resume_agent_ids is provided."},
		{"template without placeholder", `{"description":"d","prompt_template":"do it","items":["a","b"]}`,
			"prompt_template must include the {{item}} placeholder."},
		{"items without template", `{"description":"d","items":["a","b"]}`,
			"prompt_template is required when items are provided."},
		{"duplicate prompts", `{"description":"d","prompt_template":"do {{item}}","items":["a","a"]}`,
			"Duplicate subagent prompts from items 1 and 2. AgentSwarm requires distinct subagents."},
		{"duplicate after trimming", `{"description":"d","prompt_template":"do {{item}}","items":["b","a"," b "]}`,
			"Duplicate subagent prompts from items 1 and 3. AgentSwarm requires distinct subagents."},
		{"more than 128 with resumes", `{"description":"d","prompt_template":"do {{item}}","items":` + string(manyJSON[:len(manyJSON)-len(`,"f128"]`)]) + `],"resume_agent_ids":{"agent-0":"go on"}}`,
			"AgentSwarm supports at most 128 subagents."},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := &scriptedSwarm{}
			got := call(t, tools.NewAgentSwarm(s, s), tt.args)
			wantError(t, got, tt.want)
			if len(s.requests) != 0 {
				t.Errorf("a rejected call reached the runner: %+v", s.requests)
			}
		})
	}
	t.Run("129 items is a schema error", func(t *testing.T) {
		s := &scriptedSwarm{}
		args := `{"description":"d","prompt_template":"do {{item}}","items":` + string(manyJSON) + `}`
		got := runTurn(t, []loop.ExecutableTool{tools.NewAgentSwarm(s, s)}, callOf("c1", tools.NameAgentSwarm, args))
		if len(got) != 1 || !got[0].IsError || !strings.Contains(text(got[0]), "items") || len(s.requests) != 0 {
			t.Errorf("129 items = %+v; want a schema error naming items, nothing run", got)
		}
	})
	t.Run("blank description and unknown field are schema errors", func(t *testing.T) {
		s := &scriptedSwarm{}
		for _, args := range []string{
			`{"description":"  ","prompt_template":"do {{item}}","items":["a","b"]}`,
			`{"description":"d","prompt_template":"do {{item}}","items":["a","b"],"run_in_background":true}`,
			`{"description":"d","prompt_template":"do {{item}}","items":["a"," "]}`,
			`{"description":"d","resume_agent_ids":{"agent-0":" "}}`,
		} {
			got := runTurn(t, []loop.ExecutableTool{tools.NewAgentSwarm(s, s)}, callOf("c1", tools.NameAgentSwarm, args))
			if len(got) != 1 || !got[0].IsError {
				t.Errorf("%s = %+v; want a schema error", args, got)
			}
		}
		if len(s.requests) != 0 {
			t.Errorf("schema errors reached the runner: %+v", s.requests)
		}
	})
}

func TestAgentSwarmBuildsTasks(t *testing.T) {
	s := &scriptedSwarm{}
	args := `{"description":"Audit","subagent_type":"explore","prompt_template":"Look at {{item}}; report on {{item}} only.",` +
		`"items":[" a.go ","b.go"],"resume_agent_ids":{"agent-7":" continue ","agent-2":"finish"}}`
	r := call(t, tools.NewAgentSwarm(s, s), args)
	if r.IsError {
		t.Fatalf("result = %q", text(r))
	}
	want := tools.SwarmRequest{ToolCallID: "call-1", TurnID: "1", Profile: "explore", Tasks: []tools.SwarmTask{
		{Index: 1, ResumeAgentID: "agent-7", Prompt: "continue", Description: "Audit #1 (resume)"},
		{Index: 2, ResumeAgentID: "agent-2", Prompt: "finish", Description: "Audit #2 (resume)"},
		{Index: 3, Item: "a.go", Prompt: "Look at a.go; report on a.go only.", Description: "Audit #3 (explore)"},
		{Index: 4, Item: "b.go", Prompt: "Look at b.go; report on b.go only.", Description: "Audit #4 (explore)"},
	}}
	if d := cmp.Diff([]tools.SwarmRequest{want}, s.requests); d != "" {
		t.Errorf("request (-want +got):\n%s", d)
	}
	if s.entered != 1 {
		t.Errorf("swarm mode entered %d times, want once", s.entered)
	}
}

func TestAgentSwarmResolve(t *testing.T) {
	s := &scriptedSwarm{}
	exec, res, err := tools.NewAgentSwarm(s, s).ResolveExecution(json.RawMessage(
		`{"description":"Audit","prompt_template":"x {{item}}","items":["a","b"],"resume_agent_ids":{"agent-1":"go"}}`))
	if err != nil || res != nil {
		t.Fatalf("resolve = %v, %v", res, err)
	}
	if exec.Description != "Launching agent swarm: Audit" || exec.ApprovalRule != "AgentSwarm" || exec.MatchesRule != nil {
		t.Errorf("execution = %+v", exec)
	}
	if d := cmp.Diff(loop.All(), exec.Accesses); d != "" {
		t.Errorf("accesses (-want +got):\n%s", d)
	}
	if got := mustJSON(t, exec.Display); got != `{"kind":"agent_call","agent_name":"swarm (3 subagents)","prompt":"Audit"}` {
		t.Errorf("display = %s", got)
	}
}

func TestScenario61Results(t *testing.T) {
	s := &scriptedSwarm{outcome: func(task tools.SwarmTask) tools.SwarmResult {
		if task.Item == "b" {
			return tools.SwarmResult{Task: task, AgentID: "agent-1", Status: tools.SwarmFailed, State: "started", Error: "[provider.error] boom"}
		}
		return tools.SwarmResult{Task: task, AgentID: "agent-0", Status: tools.SwarmCompleted, Output: "a looks fine <ok> & done"}
	}}
	r := call(t, tools.NewAgentSwarm(s, s), `{"description":"d","prompt_template":"check {{item}}","items":["a","b"]}`)
	want := "<agent_swarm_result>\n" +
		"<summary>completed: 1, failed: 1</summary>\n" +
		"<resume_hint>To continue the subagents that did not complete, call AgentSwarm again with resume_agent_ids mapping " +
		"their agent_id values from this result to a prompt (\"continue\" when nothing changed).</resume_hint>\n" +
		`<subagent agent_id="agent-0" item="a" outcome="completed">a looks fine <ok> & done</subagent>` + "\n" +
		`<subagent agent_id="agent-1" item="b" state="started" outcome="failed">[provider.error] boom</subagent>` + "\n" +
		"</agent_swarm_result>"
	wantOK(t, r, want)
	if r.Brief != "completed: 1, failed: 1" {
		t.Errorf("brief = %q", r.Brief)
	}
}

func TestAgentSwarmRendering(t *testing.T) {
	for _, tt := range []struct {
		name    string
		results []tools.SwarmResult
		want    string
	}{
		{"all completed: no hint", []tools.SwarmResult{
			{Task: tools.SwarmTask{Index: 1, Item: `a"&<b>`}, AgentID: "agent-0", Status: "completed", Output: "ok"},
			{Task: tools.SwarmTask{Index: 2, Item: "c"}, AgentID: "agent-1", Status: "completed", Output: ""},
		}, "<agent_swarm_result>\n<summary>completed: 2</summary>\n" +
			`<subagent agent_id="agent-0" item="a&quot;&amp;&lt;b&gt;" outcome="completed">ok</subagent>` + "\n" +
			`<subagent agent_id="agent-1" item="c" outcome="completed"></subagent>` + "\n</agent_swarm_result>"},
		{"unfinished but no agent id: no hint", []tools.SwarmResult{
			{Task: tools.SwarmTask{Index: 1, Item: "a"}, Status: "aborted", State: "not_started", Error: "stopped"},
			{Task: tools.SwarmTask{Index: 2, Item: "b"}, Status: "failed", State: "not_started"},
		}, "<agent_swarm_result>\n<summary>failed: 1, aborted: 1</summary>\n" +
			`<subagent item="a" state="not_started" outcome="aborted">stopped</subagent>` + "\n" +
			`<subagent item="b" state="not_started" outcome="failed">unknown error</subagent>` + "\n</agent_swarm_result>"},
		{"resumed child with its stored item", []tools.SwarmResult{
			{Task: tools.SwarmTask{Index: 1, ResumeAgentID: "agent-2", Item: "x.go"}, AgentID: "agent-2", Status: "aborted", State: "started", Error: "interrupted"},
		}, "<agent_swarm_result>\n<summary>aborted: 1</summary>\n<resume_hint>" + "To continue the subagents that did not complete, " +
			"call AgentSwarm again with resume_agent_ids mapping their agent_id values from this result to a prompt (\"continue\" when nothing changed)." +
			"</resume_hint>\n" +
			`<subagent mode="resume" agent_id="agent-2" item="x.go" state="started" outcome="aborted">interrupted</subagent>` + "\n</agent_swarm_result>"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := &scriptedSwarm{outcome: func(task tools.SwarmTask) tools.SwarmResult { return tt.results[task.Index-1] }}
			args := `{"description":"d","prompt_template":"do {{item}}","items":["1","2"]}`
			if len(tt.results) == 1 {
				args = `{"description":"d","resume_agent_ids":{"agent-2":"continue"}}`
			}
			wantOK(t, call(t, tools.NewAgentSwarm(s, s), args), tt.want)
		})
	}
}

func TestAgentSwarmRunnerError(t *testing.T) {
	s := &scriptedSwarm{err: errors.New(`Subagent profile "writer" was not found`)}
	r := call(t, tools.NewAgentSwarm(s, s), `{"description":"d","subagent_type":"writer","prompt_template":"do {{item}}","items":["a","b"]}`)
	wantError(t, r, `Subagent profile "writer" was not found`)
}

func TestAgentSwarmDescription(t *testing.T) {
	d := tools.NewAgentSwarm(&scriptedSwarm{}, nil).Definition()
	for _, want := range []string{"{{item}}", "resume_agent_ids", "128", "only tool call"} {
		if !strings.Contains(d.Description, want) {
			t.Errorf("description lacks %q:\n%s", want, d.Description)
		}
	}
	var schema struct {
		AdditionalProperties bool `json:"additionalProperties"`
		Properties           struct {
			Items struct {
				MaxItems int `json:"maxItems"`
			} `json:"items"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(d.Parameters, &schema); err != nil || schema.AdditionalProperties || schema.Properties.Items.MaxItems != 128 {
		t.Errorf("schema = %s (%v)", d.Parameters, err)
	}
}
