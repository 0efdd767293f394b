package session_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kimigo/kimigo/agent/permission"
	"github.com/kimigo/kimigo/config"
	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/llm/llmtest"
	"github.com/kimigo/kimigo/llm/scripted"
	"github.com/kimigo/kimigo/osenv"
	"github.com/kimigo/kimigo/session"
	"github.com/kimigo/kimigo/tools"
)

// The subagent scenarios (spec 05 §12, 46–56) run a session against the
// loopback fake model. Parent and children share the fake, so it answers
// by who asks: route picks the reply from the request.

// call is one request as a route sees it.
type call struct {
	system    string   // the system prompt
	users     []string // the user messages' texts, in order
	tools     []string // the tool names offered
	toolTexts []string // the tool results' texts, in order
	model     string
	raw       *llmtest.Request
}

func (c call) firstUser() string {
	if len(c.users) == 0 {
		return ""
	}
	return c.users[0]
}

func (c call) lastUser() string {
	if len(c.users) == 0 {
		return ""
	}
	return c.users[len(c.users)-1]
}

func (c call) isChild(marker string) bool { return strings.Contains(c.firstUser(), marker) }

func decodeCall(t testing.TB, r *llmtest.Request) call {
	var body struct {
		Model    string `json:"model"`
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
		Tools []struct {
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(r.Body, &body); err != nil {
		t.Errorf("request body: %v", err)
		return call{}
	}
	c := call{model: body.Model, raw: r}
	for _, m := range body.Messages {
		text := contentText(m.Content)
		switch m.Role {
		case "system":
			c.system = text
		case "user":
			c.users = append(c.users, text)
		case "tool":
			c.toolTexts = append(c.toolTexts, text)
		}
	}
	for _, tl := range body.Tools {
		c.tools = append(c.tools, tl.Function.Name)
	}
	return c
}

func contentText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	_ = json.Unmarshal(raw, &parts)
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	return b.String()
}

// router answers the fake's requests with the first rule that matches;
// it records every call.
type router struct {
	t     *testing.T
	mu    sync.Mutex
	calls []call
	rules []func(call) (llmtest.Reply, bool)
}

func (r *rig) route(t *testing.T, rules ...func(call) (llmtest.Reply, bool)) *router {
	rt := &router{t: t, rules: rules}
	r.srv.Respond(func(req *llmtest.Request) llmtest.Reply {
		c := decodeCall(t, req)
		rt.mu.Lock()
		rt.calls = append(rt.calls, c)
		rt.mu.Unlock()
		for _, rule := range rt.rules {
			if rep, ok := rule(c); ok {
				return rep
			}
		}
		t.Errorf("no route for a request whose last user message is %q", c.lastUser())
		return llmtest.Text("unrouted")
	})
	return rt
}

// callsOf are the calls whose first user message contains marker.
func (rt *router) callsOf(marker string) []call {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	var out []call
	for _, c := range rt.calls {
		if c.isChild(marker) {
			out = append(out, c)
		}
	}
	return out
}

func agentArgs(t *testing.T, args map[string]any) string {
	t.Helper()
	b, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// parentRule answers the main agent (whose first user message is
// userPrompt): first the Agent call, then, once the tool result is back,
// a closing text.
func parentRule(userPrompt string, first llmtest.Reply, closing string) func(call) (llmtest.Reply, bool) {
	return func(c call) (llmtest.Reply, bool) {
		if c.firstUser() != userPrompt {
			return llmtest.Reply{}, false
		}
		if len(c.toolTexts) == 0 {
			return first, true
		}
		return llmtest.Text(closing), true
	}
}

// childRule answers a child whose first user message contains marker
// with the replies in order, the last one repeated.
func childRule(marker string, replies ...llmtest.Reply) func(call) (llmtest.Reply, bool) {
	var mu sync.Mutex
	n := 0
	return func(c call) (llmtest.Reply, bool) {
		if !c.isChild(marker) {
			return llmtest.Reply{}, false
		}
		mu.Lock()
		defer mu.Unlock()
		rep := replies[min(n, len(replies)-1)]
		n++
		return rep, true
	}
}

// subagentSession opens an auto-mode session answering requests.
func (r *rig) subagentSession(t *testing.T) (*session.Session, *event.Subscription) {
	t.Helper()
	o := r.opts("")
	o.Mode = event.ModeAuto
	o.Requests = session.Answered
	s, err := session.Open(t.Context(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { closeSession(t, s) })
	sub := s.Subscribe()
	t.Cleanup(sub.Close)
	return s, sub
}

// collect reads sub until the main agent's turn ended and returns every
// event it read.
func collect(t *testing.T, sub *event.Subscription) []event.Event {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute) // a deadlock guard, not a measurement
	defer cancel()
	var out []event.Event
	for {
		ev, err := sub.Next(ctx)
		if err != nil {
			t.Fatalf("waiting for the main turn's end: %v", err)
		}
		out = append(out, ev)
		if e, ok := ev.(event.TurnEnded); ok && e.AgentID == session.MainAgentID {
			return out
		}
	}
}

// toolResultOf is the text of the main agent's tool.result for call id.
func toolResultOf(t *testing.T, evs []event.Event, id string) (string, bool) {
	t.Helper()
	for _, ev := range evs {
		if e, ok := ev.(event.ToolResult); ok && e.AgentID == session.MainAgentID && e.ToolCallID == id {
			return e.Output.Text(), e.IsError
		}
	}
	t.Fatalf("no tool.result for %s", id)
	return "", false
}

func summary(n int) string { return strings.Repeat("s", n) }

func TestS46ForegroundSpawn(t *testing.T) {
	r := newRig(t)
	sum := "Findings: " + summary(290)
	rt := r.route(t,
		parentRule("look into X", llmtest.ToolCall("a1", "Agent", agentArgs(t, map[string]any{
			"prompt": "Investigate X", "description": "Investigate X"})), "All done."),
		childRule("Investigate X", llmtest.Text(sum)))
	s, sub := r.subagentSession(t)
	if err := s.Prompt(t.Context(), textParts("look into X")); err != nil {
		t.Fatal(err)
	}
	evs := collect(t, sub)
	out, isErr := toolResultOf(t, evs, "a1")
	want := "agent_id: agent-0\nactual_subagent_type: coder\nstatus: completed\n\n[summary]\n" + sum
	if isErr || out != want {
		t.Fatalf("Agent result (error %v):\n%s\nwant:\n%s", isErr, out, want)
	}
	var types []event.Type
	for _, ev := range evs {
		switch e := ev.(type) {
		case event.SubagentSpawned, event.SubagentStarted, event.SubagentCompleted, event.SubagentFailed:
			if ev.EventHeader().AgentID != session.MainAgentID {
				t.Errorf("%s published as %q, want the parent", ev.EventType(), ev.EventHeader().AgentID)
			}
			types = append(types, ev.EventType())
			if c, ok := e.(event.SubagentCompleted); ok && c.ResultSummary != sum {
				t.Errorf("completed summary %q", c.ResultSummary)
			}
		case event.TurnStarted:
			if e.AgentID == "agent-0" {
				types = append(types, "child turn")
			}
		case event.ToolCallStarted:
			if e.ToolCallID == "a1" {
				d, ok := e.Display.(*tools.AgentCallDisplay)
				if !ok || d.AgentName != "coder" || d.Prompt != "Investigate X" || d.Background ||
					e.Description != "Launching coder agent: Investigate X" {
					t.Errorf("the Agent call's description %q and display %#v", e.Description, e.Display)
				}
			}
		}
	}
	if want := []event.Type{event.TypeSubagentSpawned, event.TypeSubagentStarted, "child turn", event.TypeSubagentCompleted}; !slices.Equal(types, want) {
		t.Errorf("events %v, want %v", types, want)
	}
	child := rt.callsOf("Investigate X")
	if len(child) != 1 {
		t.Fatalf("child requests: %d, want 1 (no re-ask for a long handoff)", len(child))
	}
	c := child[0]
	if c.model != "fake-model" {
		t.Errorf("child model %q", c.model)
	}
	if slices.Contains(c.tools, "Agent") || !slices.Contains(c.tools, "Write") || !slices.Contains(c.tools, "Bash") {
		t.Errorf("child tools %v: want the coder set without Agent", c.tools)
	}
	if !strings.Contains(c.system, r.workDir) {
		t.Errorf("the child's system prompt does not name the work dir %s", r.workDir)
	}
	st := readState(t, s.Dir())
	agents := st["agents"].(map[string]any)
	e, ok := agents["agent-0"].(map[string]any)
	if !ok || e["type"] != "sub" || e["parentAgentId"] != "main" || e["homedir"] != filepath.Join(s.Dir(), "agents", "agent-0") {
		t.Errorf("state.json agents: %v", agents)
	}
	wire, err := os.ReadFile(filepath.Join(s.Dir(), "agents", "agent-0", "wire.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"cwd":"` + r.workDir + `"`, `"modelAlias":"fake"`, `"profileName":"coder"`} {
		if !strings.Contains(string(wire), want) {
			t.Errorf("child records lack %s", want)
		}
	}
}

func TestS47ShortHandoffReAsk(t *testing.T) {
	t.Run("a fuller answer after the continuation", func(t *testing.T) {
		r := newRig(t)
		long := "Summary: " + summary(391)
		rt := r.route(t,
			parentRule("go", llmtest.ToolCall("a1", "Agent", agentArgs(t, map[string]any{
				"prompt": "Check the build", "description": "Check the build"})), "ok"),
			childRule("Check the build", llmtest.Text("done"), llmtest.Text(long)))
		s, sub := r.subagentSession(t)
		if err := s.Prompt(t.Context(), textParts("go")); err != nil {
			t.Fatal(err)
		}
		out, _ := toolResultOf(t, collect(t, sub), "a1")
		if !strings.HasSuffix(out, "[summary]\n"+long) {
			t.Errorf("Agent result:\n%s", out)
		}
		calls := rt.callsOf("Check the build")
		if len(calls) != 2 {
			t.Fatalf("child requests: %d, want 2", len(calls))
		}
		if last := calls[1].lastUser(); !strings.Contains(last, "too brief") {
			t.Errorf("the second request's last user message is %q, want the continuation", last)
		}
	})
	t.Run("a short answer twice is taken", func(t *testing.T) {
		r := newRig(t)
		rt := r.route(t,
			parentRule("go", llmtest.ToolCall("a1", "Agent", agentArgs(t, map[string]any{
				"prompt": "Check the build", "description": "Check the build"})), "ok"),
			childRule("Check the build", llmtest.Text("ok")))
		s, sub := r.subagentSession(t)
		if err := s.Prompt(t.Context(), textParts("go")); err != nil {
			t.Fatal(err)
		}
		out, isErr := toolResultOf(t, collect(t, sub), "a1")
		if isErr || !strings.HasSuffix(out, "[summary]\nok") {
			t.Errorf("Agent result:\n%s", out)
		}
		if n := len(rt.callsOf("Check the build")); n != 2 {
			t.Errorf("child requests: %d, want 2 (no third prompt)", n)
		}
	})
}

func TestS48TruncatedChild(t *testing.T) {
	r := newRig(t)
	cut := llmtest.Reply{Response: scripted.Response{Parts: []llm.StreamPart{llm.ContentStreamPart(llm.TextPart("partial"))},
		Finish: llm.FinishTruncated}}
	rt := r.route(t,
		parentRule("go", llmtest.ToolCall("a1", "Agent", agentArgs(t, map[string]any{
			"prompt": "Summarize the repo", "description": "Summarize"})), "ok"),
		childRule("Summarize the repo", cut))
	s, sub := r.subagentSession(t)
	if err := s.Prompt(t.Context(), textParts("go")); err != nil {
		t.Fatal(err)
	}
	evs := collect(t, sub)
	out, isErr := toolResultOf(t, evs, "a1")
	if !isErr || !strings.Contains(out, "subagent error: Subagent turn failed before completing its final summary: reason=max_tokens.") {
		t.Errorf("Agent result (error %v):\n%s", isErr, out)
	}
	var failed, completed int
	for _, ev := range evs {
		switch ev.(type) {
		case event.SubagentFailed:
			failed++
		case event.SubagentCompleted:
			completed++
		}
	}
	if failed != 1 || completed != 0 {
		t.Errorf("subagent.failed %d, subagent.completed %d; want 1 and 0", failed, completed)
	}
	if n := len(rt.callsOf("Summarize the repo")); n != 1 {
		t.Errorf("child requests: %d, want 1 (no re-ask)", n)
	}
}

func TestS49BadInput(t *testing.T) {
	cases := []struct {
		name string
		args map[string]any
		want string
	}{
		{"profile not delegatable", map[string]any{"prompt": "p", "description": "d", "subagent_type": "writer"},
			`subagent error: Subagent profile "writer" was not found`},
		{"the main profile", map[string]any{"prompt": "p", "description": "d", "subagent_type": "agent"},
			`subagent error: Subagent profile "agent" was not found`},
		{"resume with a type", map[string]any{"prompt": "p", "description": "d", "resume": "agent-0", "subagent_type": "coder"},
			"Cannot set subagent_type when resuming an existing agent. Resume by agent id only."},
		{"resume a task id", map[string]any{"prompt": "p", "description": "d", "resume": "agent-9k2j1m0z"},
			`subagent error: Agent instance "agent-9k2j1m0z" is not a subagent`},
		{"resume the main agent", map[string]any{"prompt": "p", "description": "d", "resume": "main"},
			`subagent error: Agent instance "main" is not a subagent`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := newRig(t)
			r.route(t, parentRule("go", llmtest.ToolCall("a1", "Agent", agentArgs(t, c.args)), "ok"))
			s, sub := r.subagentSession(t)
			if err := s.Prompt(t.Context(), textParts("go")); err != nil {
				t.Fatal(err)
			}
			out, isErr := toolResultOf(t, collect(t, sub), "a1")
			if !isErr || out != c.want {
				t.Errorf("Agent result (error %v): %q, want %q", isErr, out, c.want)
			}
			agents := readState(t, s.Dir())["agents"].(map[string]any)
			if len(agents) != 1 {
				t.Errorf("state.json agents %v: a child was created", agents)
			}
			if _, err := os.Stat(filepath.Join(s.Dir(), "agents", "agent-0")); err == nil {
				t.Error("agents/agent-0 exists")
			}
		})
	}
}

func TestS51ResumeByAgentID(t *testing.T) {
	r := newRig(t)
	first := "First: " + summary(300)
	second := "Second: " + summary(300)
	rt := r.route(t,
		func(c call) (llmtest.Reply, bool) { // the main agent
			if c.firstUser() != "first" {
				return llmtest.Reply{}, false
			}
			switch {
			case len(c.toolTexts) == 0:
				return llmtest.ToolCall("a1", "Agent", agentArgs(t, map[string]any{
					"prompt": "Investigate X", "description": "Investigate X"})), true
			case slices.Contains(c.users, "second") && len(c.toolTexts) == 1:
				return llmtest.ToolCall("a2", "Agent", agentArgs(t, map[string]any{
					"resume": "agent-0", "prompt": "Also check Y", "description": "Check Y"})), true
			}
			return llmtest.Text("ok"), true
		},
		func(c call) (llmtest.Reply, bool) { // the child
			if !c.isChild("Investigate X") {
				return llmtest.Reply{}, false
			}
			if c.lastUser() == "Also check Y" {
				return llmtest.Text(second), true
			}
			return llmtest.Text(first), true
		})
	s, sub := r.subagentSession(t)
	if err := s.Prompt(t.Context(), textParts("first")); err != nil {
		t.Fatal(err)
	}
	collect(t, sub)
	if err := s.Prompt(t.Context(), textParts("second")); err != nil {
		t.Fatal(err)
	}
	out, isErr := toolResultOf(t, collect(t, sub), "a2")
	if isErr || !strings.HasSuffix(out, "[summary]\n"+second) || !strings.HasPrefix(out, "agent_id: agent-0\nactual_subagent_type: coder\n") {
		t.Fatalf("resumed Agent result (error %v):\n%s", isErr, out)
	}
	calls := rt.callsOf("Investigate X")
	last := calls[len(calls)-1]
	if last.firstUser() != "Investigate X" || last.lastUser() != "Also check Y" || !strings.Contains(string(last.raw.Body), first) {
		t.Errorf("the resumed child's request has user messages %q", last.users)
	}
	if agents := readState(t, s.Dir())["agents"].(map[string]any); len(agents) != 2 {
		t.Errorf("state.json agents %v, want main and agent-0", agents)
	}
}

// waitFor reads sub until an event satisfies ok and returns it.
func waitFor(t *testing.T, sub *event.Subscription, what string, ok func(event.Event) bool) event.Event {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute) // a deadlock guard, not a measurement
	defer cancel()
	for {
		ev, err := sub.Next(ctx)
		if err != nil {
			t.Fatalf("waiting for %s: %v", what, err)
		}
		if ok(ev) {
			return ev
		}
	}
}

func mainResult(id string) func(event.Event) bool {
	return func(ev event.Event) bool {
		e, ok := ev.(event.ToolResult)
		return ok && e.AgentID == session.MainAgentID && e.ToolCallID == id
	}
}

func TestS50BackgroundSubagent(t *testing.T) {
	r := newRig(t)
	result := "Background findings: " + summary(300)
	release := make(chan struct{})
	var taskID string
	var mu sync.Mutex
	r.route(t,
		func(c call) (llmtest.Reply, bool) { // the main agent
			if c.firstUser() != "go" {
				return llmtest.Reply{}, false
			}
			notified := false
			for _, u := range c.users {
				notified = notified || strings.Contains(u, "<notification")
			}
			switch {
			case len(c.toolTexts) == 0:
				return llmtest.ToolCall("a1", "Agent", agentArgs(t, map[string]any{
					"prompt": "Scan the logs", "description": "Scan logs", "run_in_background": true})), true
			case notified && len(c.toolTexts) == 1:
				mu.Lock()
				id := taskID
				mu.Unlock()
				return llmtest.ToolCall("o1", "TaskOutput", agentArgs(t, map[string]any{"task_id": id})), true
			}
			return llmtest.Text("ok"), true
		},
		func(c call) (llmtest.Reply, bool) {
			if !c.isChild("Scan the logs") {
				return llmtest.Reply{}, false
			}
			<-release
			return llmtest.Text(result), true
		})
	s, sub := r.subagentSession(t)
	if err := s.Prompt(t.Context(), textParts("go")); err != nil {
		t.Fatal(err)
	}
	out := waitFor(t, sub, "the Agent result", mainResult("a1")).(event.ToolResult)
	text := out.Output.Text()
	for _, want := range []string{"\nstatus: running\nagent_id: agent-0\nactual_subagent_type: coder\nautomatic_notification: true\n\ndescription: Scan logs\n\nnext_step: ",
		"\nresume_hint: ", `Agent(resume="agent-0"`} {
		if !strings.Contains(text, want) {
			t.Errorf("background answer lacks %q:\n%s", want, text)
		}
	}
	id, _, _ := strings.Cut(strings.TrimPrefix(text, "task_id: "), "\n")
	if out.IsError || !strings.HasPrefix(text, "task_id: agent-") || len(id) != len("agent-")+8 {
		t.Fatalf("background answer:\n%s", text)
	}
	mu.Lock()
	taskID = id
	mu.Unlock()
	close(release)
	var notice string
	waitFor(t, sub, "the notification turn", func(ev event.Event) bool {
		e, ok := ev.(event.ToolCallStarted)
		return ok && e.AgentID == session.MainAgentID && e.ToolCallID == "o1"
	})
	for _, m := range s.History() {
		if strings.Contains(textOf(m.Message), "<notification") {
			notice = textOf(m.Message)
		}
	}
	for _, want := range []string{`type="task.completed"`, `source_id="` + id + `"`, `agent_id="agent-0"`} {
		if !strings.Contains(notice, want) {
			t.Errorf("notification lacks %s:\n%s", want, notice)
		}
	}
	res := waitFor(t, sub, "the TaskOutput result", mainResult("o1")).(event.ToolResult)
	if got := res.Output.Text(); !strings.Contains(got, "kind: agent") || !strings.Contains(got, "agent_id: agent-0") || !strings.Contains(got, result) {
		t.Errorf("TaskOutput:\n%s", got)
	}
}

func TestS53CancellationPropagation(t *testing.T) {
	r := newRig(t)
	// A custom agent that may delegate, so the foreground child runs a
	// foreground grandchild.
	agents := filepath.Join(r.workDir, ".kimi-code", "agents")
	if err := os.MkdirAll(agents, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(agents, "lead.md"), []byte("---\ndescription: Leads a piece of work\n"+
		"tools: [Agent, Bash, Read, TaskList, TaskOutput, TaskStop]\n---\nYou lead the work and report in full.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	bgGate := llmtest.NewGate()
	bgResult := "Background result: " + summary(300)
	r.route(t,
		func(c call) (llmtest.Reply, bool) { // the main agent
			if c.firstUser() != "go" {
				return llmtest.Reply{}, false
			}
			if len(c.toolTexts) == 0 {
				return llmtest.ToolCalls(
					scripted.Call{ID: "fg", Name: "Agent", Arguments: agentArgs(t, map[string]any{
						"prompt": "Lead the slow check", "description": "Lead", "subagent_type": "lead"})},
					scripted.Call{ID: "bg", Name: "Agent", Arguments: agentArgs(t, map[string]any{
						"prompt": "Watch the queue", "description": "Watch queue", "run_in_background": true})}), true
			}
			return llmtest.Text("ok"), true
		},
		func(c call) (llmtest.Reply, bool) {
			if !c.isChild("Lead the slow check") {
				return llmtest.Reply{}, false
			}
			if len(c.toolTexts) == 0 {
				return llmtest.ToolCall("g1", "Agent", agentArgs(t, map[string]any{"prompt": "Run the slow check", "description": "Slow check"})), true
			}
			return llmtest.Text("lead ended: " + summary(300)), true
		},
		func(c call) (llmtest.Reply, bool) {
			if !c.isChild("Run the slow check") {
				return llmtest.Reply{}, false
			}
			if len(c.toolTexts) == 0 {
				return llmtest.ToolCall("b1", "Bash", agentArgs(t, map[string]any{"command": "echo started; sleep 30", "description": "wait"})), true
			}
			return llmtest.Text("slow check ended: " + summary(300)), true
		},
		func(c call) (llmtest.Reply, bool) {
			if !c.isChild("Watch the queue") {
				return llmtest.Reply{}, false
			}
			return llmtest.Text(bgResult).WithFault(llmtest.Fault{Hold: bgGate}), true
		})
	o := r.opts("")
	o.Mode = event.ModeAuto
	o.Requests = session.Answered
	o.Env = osenv.NewLocal(osenv.LocalOptions{Cwd: r.workDir, Environ: []string{"PATH=" + os.Getenv("PATH")}})
	s, err := session.Open(t.Context(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { closeSession(t, s) })
	sub := s.Subscribe()
	t.Cleanup(sub.Close)
	if err := s.Prompt(t.Context(), textParts("go")); err != nil {
		t.Fatal(err)
	}
	ids := map[string]string{} // description → agent id
	waitFor(t, sub, "the grandchild's Bash output", func(ev event.Event) bool {
		if e, ok := ev.(event.SubagentSpawned); ok {
			ids[e.Description] = e.SubagentID
		}
		e, ok := ev.(event.ToolProgress)
		return ok && e.ToolCallID == "b1" && strings.Contains(e.Update.Text, "started")
	})
	<-bgGate.Reached()
	child, grandchild, bg := ids["Lead"], ids["Slow check"], ids["Watch queue"]
	if child == "" || grandchild == "" || bg == "" {
		t.Fatalf("spawned: %v", ids)
	}
	if err := s.Cancel(t.Context(), nil); err != nil {
		t.Fatal(err)
	}
	var bash, fg string
	ended := map[string]event.EndReason{}
	for fg == "" || bash == "" || ended[child] == "" || ended[grandchild] == "" {
		ev := waitFor(t, sub, "the cancelled calls", func(event.Event) bool { return true })
		switch e := ev.(type) {
		case event.ToolResult:
			if e.AgentID == grandchild && e.ToolCallID == "b1" {
				bash = e.Output.Text()
			}
			if e.AgentID == session.MainAgentID && e.ToolCallID == "fg" {
				fg = e.Output.Text()
			}
		case event.TurnEnded:
			ended[e.AgentID] = e.Reason
		}
	}
	if ended[child] != event.EndCancelled || ended[grandchild] != event.EndCancelled {
		t.Errorf("turn ends %v: want the child's and the grandchild's cancelled", ended)
	}
	if _, ok := ended[bg]; ok {
		t.Errorf("the background child's turn ended with the parent's cancel: %v", ended)
	}
	if !strings.Contains(bash, "interrupt") {
		t.Errorf("the grandchild's Bash result does not report the user's interruption: %q", bash)
	}
	if !strings.Contains(fg, "The user interrupted this subagent") {
		t.Errorf("the foreground Agent result: %q", fg)
	}
	// The background child was not touched: released now, it notifies.
	bgGate.Release()
	waitFor(t, sub, "the background child's notification turn", func(ev event.Event) bool {
		e, ok := ev.(event.TurnStarted)
		return ok && e.AgentID == session.MainAgentID && e.Origin == "background_task"
	})
	waitFor(t, sub, "the end of the notification turn", func(ev event.Event) bool {
		e, ok := ev.(event.TurnEnded)
		return ok && e.AgentID == session.MainAgentID
	})
	var notice string
	for _, m := range s.History() {
		if strings.Contains(textOf(m.Message), "<notification") {
			notice = textOf(m.Message)
		}
	}
	if !strings.Contains(notice, `type="task.completed"`) || !strings.Contains(notice, `agent_id="`+bg+`"`) {
		t.Errorf("notification:\n%s", notice)
	}
}

func TestS55ExploreGitContext(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	spawn := func(t *testing.T, repo bool, profile string) string {
		r := newRig(t)
		if repo {
			for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "."},
				{"-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "--allow-empty", "-m", "first commit"}} {
				cmd := exec.Command("git", args...)
				cmd.Dir = r.workDir
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("git %v: %v\n%s", args, err, out)
				}
			}
			if err := os.WriteFile(filepath.Join(r.workDir, "dirty.txt"), []byte("x"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		rt := r.route(t,
			parentRule("go", llmtest.ToolCall("a1", "Agent", agentArgs(t, map[string]any{
				"prompt": "Where is main defined?", "description": "Find main", "subagent_type": profile})), "ok"),
			childRule("Where is main defined?", llmtest.Text("In main.go. "+summary(300))))
		o := r.opts("")
		o.Mode = event.ModeAuto
		o.Env = osenv.NewLocal(osenv.LocalOptions{Cwd: r.workDir, Environ: []string{"PATH=" + os.Getenv("PATH")}})
		s, err := session.Open(t.Context(), o)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { closeSession(t, s) })
		sub := s.Subscribe()
		t.Cleanup(sub.Close)
		if err := s.Prompt(t.Context(), textParts("go")); err != nil {
			t.Fatal(err)
		}
		if out, isErr := toolResultOf(t, collect(t, sub), "a1"); isErr {
			t.Fatalf("Agent failed: %s", out)
		}
		calls := rt.callsOf("Where is main defined?")
		if len(calls) == 0 {
			t.Fatal("the child sent nothing")
		}
		return calls[0].firstUser()
	}
	t.Run("explore in a repository", func(t *testing.T) {
		first := spawn(t, true, "explore")
		if !strings.HasPrefix(first, "<git-context>\n") || !strings.Contains(first, "Branch: main\n") ||
			!strings.Contains(first, "Dirty files (1):\n") || !strings.HasSuffix(first, "</git-context>\n\nWhere is main defined?") {
			t.Errorf("explore's first message:\n%s", first)
		}
	})
	t.Run("coder", func(t *testing.T) {
		if first := spawn(t, true, "coder"); first != "Where is main defined?" {
			t.Errorf("coder's first message:\n%s", first)
		}
	})
	t.Run("explore outside a repository", func(t *testing.T) {
		if first := spawn(t, false, "explore"); first != "<git-context status=\"unavailable\" reason=\"not-a-repo\"/>\n\nWhere is main defined?" {
			t.Errorf("explore's first message:\n%s", first)
		}
	})
}

func TestS54SubagentPermissions(t *testing.T) {
	r := newRig(t)
	write := func(id string) llmtest.Reply {
		return llmtest.ToolCall(id, "Write", agentArgs(t, map[string]any{"path": filepath.Join(r.workDir, "out.txt"), "content": "x"}))
	}
	npm := func(id string) llmtest.Reply {
		return llmtest.ToolCall(id, "Bash", agentArgs(t, map[string]any{"command": "npm test", "description": "run the tests"}))
	}
	r.route(t,
		func(c call) (llmtest.Reply, bool) { // the main agent
			if c.firstUser() != "go" {
				return llmtest.Reply{}, false
			}
			switch len(c.toolTexts) {
			case 0:
				return npm("m1"), true
			case 1:
				return write("m2"), true
			case 2:
				return llmtest.ToolCall("m3", "Agent", agentArgs(t, map[string]any{"prompt": "Write the file", "description": "Write it"})), true
			}
			return llmtest.Text("ok"), true
		},
		func(c call) (llmtest.Reply, bool) {
			if !c.isChild("Write the file") {
				return llmtest.Reply{}, false
			}
			switch len(c.toolTexts) {
			case 0:
				return write("c1"), true
			case 1:
				return npm("c2"), true
			case 2:
				return llmtest.ToolCall("c3", "Bash", agentArgs(t, map[string]any{"command": "echo from the child", "description": "say"})), true
			}
			return llmtest.Text("Could not write: " + summary(300)), true
		})
	o := r.opts("")
	o.Mode = event.ModeManual
	o.Requests = session.Answered
	o.RunRules = []config.PermissionRule{{Decision: config.DecisionDeny, Pattern: "Write", Origin: config.OriginUser, Source: "--disallowedTools"}}
	s, err := session.Open(t.Context(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { closeSession(t, s) })
	sub := s.Subscribe()
	t.Cleanup(sub.Close)
	if err := s.Prompt(t.Context(), textParts("go")); err != nil {
		t.Fatal(err)
	}
	results := map[string]string{}
	childAsked := false
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute) // a deadlock guard
	defer cancel()
	for {
		ev, err := sub.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if e, ok := ev.(event.ApprovalRequested); ok {
			switch {
			case e.AgentID == session.MainAgentID && e.ToolCallID == "m1":
				if err := s.AnswerApproval(e.RequestID, event.ApprovalAnswer{Choice: event.ApproveSession}); err != nil {
					t.Fatal(err)
				}
			case e.AgentID == session.MainAgentID && e.ToolName == "Agent":
				if err := s.AnswerApproval(e.RequestID, event.ApprovalAnswer{Choice: event.ApproveOnce}); err != nil {
					t.Fatal(err)
				}
			case e.AgentID == "agent-0" && e.ToolCallID == "c3":
				// The child's own request reaches the front end tagged with
				// its id.
				childAsked = true
				if err := s.AnswerApproval(e.RequestID, event.ApprovalAnswer{Choice: event.ApproveOnce}); err != nil {
					t.Fatal(err)
				}
			default:
				t.Errorf("unexpected approval request of %s for %s", e.AgentID, e.ToolName)
				_ = s.AnswerApproval(e.RequestID, event.ApprovalAnswer{Choice: event.Reject})
			}
		}
		if e, ok := ev.(event.ToolResult); ok {
			results[e.AgentID+"/"+e.ToolCallID] = e.Output.Text()
		}
		if e, ok := ev.(event.TurnEnded); ok && e.AgentID == session.MainAgentID {
			break
		}
	}
	// The wording is spec 04 §2.10's (ERRATA 14), not scenario 54's.
	const denied = `Tool "Write" was denied`
	if got := results["main/m2"]; !strings.HasPrefix(got, denied) || strings.Contains(got, "retry") {
		t.Errorf("the main agent's denial: %q", got)
	}
	if got := results["agent-0/c1"]; !strings.HasPrefix(got, denied) || !strings.Contains(got, "don't retry the same call") {
		t.Errorf("the child's denial: %q", got)
	}
	if _, ran := results["agent-0/c2"]; !ran {
		t.Error("the child's npm test did not run")
	}
	if got := results["agent-0/c3"]; !childAsked || !strings.Contains(got, "from the child") {
		t.Errorf("the child's approval was asked %v; its command printed %q", childAsked, got)
	}
	if _, err := os.Stat(filepath.Join(r.workDir, "out.txt")); err == nil {
		t.Error("a denied Write wrote the file")
	}
}

func TestS52SubagentTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRigOn(t, llmtest.FakeChatCompletionsWith(t, llmtest.ChatOptions{InMemory: true}))
		never := llmtest.NewGate()
		r.route(t,
			parentRule("go", llmtest.ToolCall("a1", "Agent", agentArgs(t, map[string]any{
				"prompt": "Never finishes", "description": "Endless work"})), "ok"),
			childRule("Never finishes", llmtest.Text("late").WithFault(llmtest.Fault{Hold: never})))
		ms := 60_000 // KIMI_SUBAGENT_TIMEOUT_MS=60000
		r.cfg.Subagent.TimeoutMs = &ms
		o := r.opts("")
		o.Mode = event.ModeAuto
		o.HTTPClient = r.srv.Client()
		s, err := session.Open(t.Context(), o)
		if err != nil {
			t.Fatal(err)
		}
		sub := s.Subscribe()
		start := time.Now()
		if err := s.Prompt(t.Context(), textParts("go")); err != nil {
			t.Fatal(err)
		}
		var out string
		for out == "" {
			ev, err := sub.Next(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			if e, ok := ev.(event.ToolResult); ok && e.AgentID == session.MainAgentID && e.ToolCallID == "a1" {
				out = e.Output.Text()
				if !e.IsError {
					t.Error("a timed-out subagent is not an error result")
				}
			}
		}
		if took := time.Since(start); took < time.Minute || took > time.Minute+time.Second {
			t.Errorf("the Agent call ended after %v, want a minute", took)
		}
		for _, want := range []string{"agent_id: agent-0\nactual_subagent_type: coder\nstatus: failed\n\nsubagent error: Agent timed out after 1 minute.",
			"\nresume_hint: ", `Agent(resume="agent-0", prompt="continue")`} {
			if !strings.Contains(out, want) {
				t.Errorf("timed-out result lacks %q:\n%s", want, out)
			}
		}
		never.Release()
		sub.Close()
		if err := s.Close(context.WithoutCancel(t.Context())); err != nil {
			t.Fatal(err)
		}
	})
}

// Issue 19 item 6: a session with a finished, a running (background) and
// an interrupted (foreground) child resumes exactly: the parent's open
// Agent call is closed as interrupted with its outcome unknown, and each
// child, resumed by its agent id, sends its own history with the new
// prompt.
func TestResumeWithFinishedRunningAndInterruptedChildren(t *testing.T) {
	r := newRig(t)
	hold := llmtest.NewGate()
	prompts := map[string]string{"agent-0": "Task A", "agent-1": "Task B", "agent-2": "Task C"}
	rt := r.route(t,
		func(c call) (llmtest.Reply, bool) { // the main agent
			if c.firstUser() != "one" {
				return llmtest.Reply{}, false
			}
			var last string
			for _, u := range c.users {
				if u == "one" || u == "two" || u == "three" {
					last = u
				}
			}
			switch {
			case last == "one" && len(c.toolTexts) == 0:
				return llmtest.ToolCall("a", "Agent", agentArgs(t, map[string]any{"prompt": "Task A", "description": "A"})), true
			case last == "two" && len(c.toolTexts) == 1:
				return llmtest.ToolCall("b", "Agent", agentArgs(t, map[string]any{"prompt": "Task B", "description": "B", "run_in_background": true})), true
			case last == "two" && len(c.toolTexts) == 2:
				return llmtest.ToolCall("c", "Agent", agentArgs(t, map[string]any{"prompt": "Task C", "description": "C"})), true
			case last == "three" && len(c.toolTexts) == 3:
				return llmtest.ToolCalls(
					scripted.Call{ID: "ra", Name: "Agent", Arguments: agentArgs(t, map[string]any{"resume": "agent-0", "prompt": "more A", "description": "A again"})},
					scripted.Call{ID: "rb", Name: "Agent", Arguments: agentArgs(t, map[string]any{"resume": "agent-1", "prompt": "continue B", "description": "B again"})},
					scripted.Call{ID: "rc", Name: "Agent", Arguments: agentArgs(t, map[string]any{"resume": "agent-2", "prompt": "continue C", "description": "C again"})}), true
			}
			return llmtest.Text("ok"), true
		},
		func(c call) (llmtest.Reply, bool) { // the children
			for _, p := range prompts {
				if c.firstUser() == p {
					if strings.HasPrefix(c.lastUser(), "more") || strings.HasPrefix(c.lastUser(), "continue") {
						return llmtest.Text("Resumed " + p + ": " + summary(300)), true
					}
					if p == "Task A" {
						return llmtest.Text("Done " + p + ": " + summary(300)), true
					}
					return llmtest.Text("never").WithFault(llmtest.Fault{Hold: hold}), true
				}
			}
			return llmtest.Reply{}, false
		})
	o := r.opts("")
	o.Mode = event.ModeAuto
	s, err := session.Open(t.Context(), o)
	if err != nil {
		t.Fatal(err)
	}
	sub := s.Subscribe()
	if err := s.Prompt(t.Context(), textParts("one")); err != nil {
		t.Fatal(err)
	}
	collect(t, sub)
	if err := s.Prompt(t.Context(), textParts("two")); err != nil {
		t.Fatal(err)
	}
	started := map[string]bool{}
	for len(started) < 2 {
		ev := waitFor(t, sub, "the held children's turns", func(event.Event) bool { return true })
		if e, ok := ev.(event.StepStarted); ok && (e.AgentID == "agent-1" || e.AgentID == "agent-2") {
			started[e.AgentID] = true
		}
	}
	sub.Close()
	closeSession(t, s) // the run ends with B running and C in the middle of its turn
	hold.Release()

	again, err := session.Open(t.Context(), r.resumeOpts(s.ID(), ""))
	if err != nil {
		t.Fatal(err)
	}
	defer closeSession(t, again)
	var closedC string
	for _, m := range again.History() {
		for _, p := range m.Content {
			if m.ToolCallID == "c" {
				closedC += p.Text
			}
		}
	}
	// Closing the session stopped C's run: the call says so (a crash
	// leaves the call open, and the resume closes it as interrupted with
	// its outcome unknown: TestE2EKilledMidSubagentThenContinue).
	if !strings.Contains(closedC, "status: failed\n\nsubagent error: The subagent was stopped before it finished.") {
		t.Errorf("the stopped Agent call's result after resume: %q", closedC)
	}
	agents := readState(t, again.Dir())["agents"].(map[string]any)
	for id := range prompts {
		if e, ok := agents[id].(map[string]any); !ok || e["type"] != "sub" || e["parentAgentId"] != "main" {
			t.Errorf("state.json entry of %s: %v", id, agents[id])
		}
	}
	sub = again.Subscribe()
	defer sub.Close()
	if err := again.Prompt(t.Context(), textParts("three")); err != nil {
		t.Fatal(err)
	}
	evs := collect(t, sub)
	for id, call := range map[string]string{"agent-0": "ra", "agent-1": "rb", "agent-2": "rc"} {
		out, isErr := toolResultOf(t, evs, call)
		if isErr || !strings.HasPrefix(out, "agent_id: "+id+"\nactual_subagent_type: coder\nstatus: completed") ||
			!strings.Contains(out, "Resumed "+prompts[id]) {
			t.Errorf("resuming %s (error %v):\n%s", id, isErr, out)
		}
	}
	// The routed calls, not the server's requests: a held child's request
	// cut off by its interruption reaches the server unfinished, and the
	// server rejects it.
	for id, p := range prompts {
		var last call
		for _, c := range rt.callsOf(p) {
			if c.firstUser() == p {
				last = c
			}
		}
		want := "continue"
		if id == "agent-0" {
			want = "more"
			if !strings.Contains(string(last.raw.Body), "Done Task A") {
				t.Errorf("%s's resumed request lacks its earlier answer", id)
			}
		}
		if !strings.HasPrefix(last.lastUser(), want) {
			t.Errorf("%s's resumed request ends with %q", id, last.lastUser())
		}
	}
}

// Spec 04 §10 scenario 56 through a real child: its mode follows the
// parent's live until it sets its own.
func TestSpec04Scenario56ChildModeFollowsTheParent(t *testing.T) {
	r := newRig(t)
	r.route(t, childRule("Look around", llmtest.Text("Looked: "+summary(300))))
	o := r.opts("")
	o.Mode = event.ModeManual
	s, err := session.Open(t.Context(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { closeSession(t, s) })
	h, err := session.SpawnSubagent(t.Context(), s, session.SpawnOptions{Profile: "explore", Prompt: "Look around", Description: "Look"})
	if err != nil {
		t.Fatal(err)
	}
	if c, err := h.Wait(t.Context()); err != nil || c.Err != nil || h.AgentID != "agent-0" {
		t.Fatalf("spawn: %v %v %+v", err, c.Err, h)
	}
	if m, err := session.SubagentMode(t.Context(), s, "agent-0"); m != "manual" {
		t.Errorf("child mode %s (%v), want manual", m, err)
	}
	if err := s.SetMode(t.Context(), event.ModeYolo); err != nil {
		t.Fatal(err)
	}
	if m, err := session.SubagentMode(t.Context(), s, "agent-0"); m != "yolo" {
		t.Errorf("after the parent's switch the child is %s (%v), want yolo", m, err)
	}
	if err := session.SetSubagentMode(t.Context(), s, "agent-0", permission.ModeManual); err != nil {
		t.Fatal(err)
	}
	if err := s.SetMode(t.Context(), event.ModeAuto); err != nil {
		t.Fatal(err)
	}
	if m, err := session.SubagentMode(t.Context(), s, "agent-0"); m != "manual" {
		t.Errorf("a child with its own mode is %s (%v) after the parent's switch, want manual", m, err)
	}
}

// Issue 19 "Bad input": a child cannot resume a sibling, which belongs
// to another parent.
func TestS49ResumeOfAnotherParentsChild(t *testing.T) {
	r := newRig(t)
	agents := filepath.Join(r.workDir, ".kimi-code", "agents")
	if err := os.MkdirAll(agents, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(agents, "lead.md"), []byte("---\ndescription: Leads\ntools: [Agent]\n---\nLead and report in full.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var leadSaw string
	var mu sync.Mutex
	r.route(t,
		func(c call) (llmtest.Reply, bool) { // the main agent
			if c.firstUser() != "go" {
				return llmtest.Reply{}, false
			}
			switch len(c.toolTexts) {
			case 0:
				return llmtest.ToolCall("a1", "Agent", agentArgs(t, map[string]any{"prompt": "Do the first part", "description": "First"})), true
			case 1:
				return llmtest.ToolCall("a2", "Agent", agentArgs(t, map[string]any{"prompt": "Lead the rest", "description": "Rest", "subagent_type": "lead"})), true
			}
			return llmtest.Text("ok"), true
		},
		childRule("Do the first part", llmtest.Text("First part done: "+summary(300))),
		func(c call) (llmtest.Reply, bool) {
			if !c.isChild("Lead the rest") {
				return llmtest.Reply{}, false
			}
			if len(c.toolTexts) == 0 {
				return llmtest.ToolCall("l1", "Agent", agentArgs(t, map[string]any{"resume": "agent-0", "prompt": "more", "description": "More"})), true
			}
			mu.Lock()
			leadSaw = c.toolTexts[0]
			mu.Unlock()
			return llmtest.Text("Could not resume: " + summary(300)), true
		})
	s, sub := r.subagentSession(t)
	if err := s.Prompt(t.Context(), textParts("go")); err != nil {
		t.Fatal(err)
	}
	collect(t, sub)
	mu.Lock()
	defer mu.Unlock()
	if want := `subagent error: Agent instance "agent-0" does not belong to this parent agent`; !strings.HasSuffix(leadSaw, "\n"+want) {
		t.Errorf("the lead's resume of its sibling: %q, want %q", leadSaw, want)
	}
}

// The batch scheduler's API (spec 05 §5.5, §5.9): a child that ends on the
// provider's rate limit fails with a *RateLimitError (and no
// subagent.failed when the caller asked for quiet), and Retry runs its
// last turn again without appending the prompt.
func TestSubagentRateLimitThenRetry(t *testing.T) {
	r := newRig(t)
	r.writeConfig(r.configText() + "\n[loop_control]\nmax_attempts_per_step = 1\n")
	var mu sync.Mutex
	n := 0
	r.route(t, func(c call) (llmtest.Reply, bool) {
		if !c.isChild("Survey the tree") {
			return llmtest.Reply{}, false
		}
		mu.Lock()
		defer mu.Unlock()
		n++
		if n == 1 {
			return llmtest.Status(429, `{"error":{"message":"Rate limit reached","type":"rate_limit_error"}}`), true
		}
		return llmtest.Text("Surveyed: " + summary(300)), true
	})
	s, sub := r.subagentSession(t)
	ready := make(chan struct{})
	h, err := session.SpawnSubagent(t.Context(), s, session.SpawnOptions{Profile: "explore", Prompt: "Survey the tree",
		Description: "Survey", SuppressRateLimitFailure: true})
	if err != nil {
		t.Fatal(err)
	}
	c, err := h.Wait(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	var rl *session.RateLimitError
	if !errors.As(c.Err, &rl) || rl.AgentID != h.AgentID {
		t.Fatalf("completion error %v (%T), want a *RateLimitError", c.Err, c.Err)
	}
	h2, err := session.RetrySubagent(t.Context(), s, h.AgentID, session.SpawnOptions{Description: "Survey",
		OnReady: func() { close(ready) }})
	if err != nil {
		t.Fatal(err)
	}
	c, err = h2.Wait(t.Context())
	if err != nil || c.Err != nil || !strings.HasPrefix(c.Result, "Surveyed: ") {
		t.Fatalf("retry: %v %v %q", err, c.Err, c.Result)
	}
	<-ready
	reqs := r.srv.Requests()
	last := decodeCall(t, reqs[len(reqs)-1])
	prompts := 0
	for _, u := range last.users {
		if strings.Contains(u, "Survey the tree") {
			prompts++
		}
	}
	if prompts != 1 {
		t.Errorf("the retried request's user messages %q: the prompt was appended again", last.users)
	}
	var spawned, failed, started int
	waitFor(t, sub, "the retry's completion", func(ev event.Event) bool {
		switch ev.(type) {
		case event.SubagentSpawned:
			spawned++
		case event.SubagentFailed:
			failed++
		case event.SubagentStarted:
			started++
		case event.SubagentCompleted:
			return true
		}
		return false
	})
	if spawned != 1 || failed != 0 || started != 2 {
		t.Errorf("events: spawned %d, failed %d, started %d; want 1, 0, 2", spawned, failed, started)
	}
}

// Scenario 51, second half: resuming a child while it still runs is
// refused, and the running child is not disturbed.
func TestS51ResumeWhileRunning(t *testing.T) {
	r := newRig(t)
	hold := llmtest.NewGate()
	r.route(t,
		func(c call) (llmtest.Reply, bool) { // the main agent
			if c.firstUser() != "go" {
				return llmtest.Reply{}, false
			}
			switch len(c.toolTexts) {
			case 0:
				return llmtest.ToolCall("a1", "Agent", agentArgs(t, map[string]any{"prompt": "Long job", "description": "Long", "run_in_background": true})), true
			case 1:
				return llmtest.ToolCall("a2", "Agent", agentArgs(t, map[string]any{"resume": "agent-0", "prompt": "Also this", "description": "More"})), true
			}
			return llmtest.Text("ok"), true
		},
		childRule("Long job", llmtest.Text("Long job done: "+summary(300)).WithFault(llmtest.Fault{Hold: hold})))
	s, sub := r.subagentSession(t)
	if err := s.Prompt(t.Context(), textParts("go")); err != nil {
		t.Fatal(err)
	}
	ev := waitFor(t, sub, "the resume's result", mainResult("a2")).(event.ToolResult)
	if want := `subagent error: Agent instance "agent-0" is already running and cannot run concurrently`; !ev.IsError || ev.Output.Text() != want {
		t.Errorf("resume of a running child: %q, want %q", ev.Output.Text(), want)
	}
	hold.Release()
	waitFor(t, sub, "the running child's completion", func(ev event.Event) bool {
		e, ok := ev.(event.SubagentCompleted)
		return ok && e.SubagentID == "agent-0" && strings.HasPrefix(e.ResultSummary, "Long job done")
	})
}
