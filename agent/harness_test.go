package agent_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/kimigo/kimigo/agent"
	"github.com/kimigo/kimigo/agent/agenttest"
	"github.com/kimigo/kimigo/agent/history"
	"github.com/kimigo/kimigo/agent/records"
	"github.com/kimigo/kimigo/agent/replay"
	"github.com/kimigo/kimigo/agent/turn"
	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/llm/scripted"
	"github.com/kimigo/kimigo/loop"
	"github.com/kimigo/kimigo/loop/looptest"
	"github.com/kimigo/kimigo/tools"
)

// host adapts *agent.Agent to agenttest.Host.
type host struct{ *agent.Agent }

func (h host) Resume(ctx context.Context, cards bool) (string, []replay.Card, error) {
	r, err := h.Agent.Resume(ctx, agent.ResumeOptions{Cards: cards})
	return r.Warning, r.Cards, err
}

func (h host) NextRequest(ctx context.Context) ([]byte, error) {
	r, err := h.Agent.NextRequest(ctx)
	if err != nil {
		return nil, err
	}
	return json.Marshal(r)
}

func (h host) State(ctx context.Context) any { return h.Agent.State(ctx) }

// newAgent is the harness's factory: the Setup as agent.Options.
func newAgent(s agenttest.Setup) agenttest.Host {
	return host{agent.New(optionsFor(s))}
}

func optionsFor(s agenttest.Setup) agent.Options {
	lc := turn.LoopControl{}
	if s.LoopControl != nil {
		lc = s.LoopControl()
	}
	m := agent.ModelBinding{Provider: s.Provider, Budget: s.Budget, LoopControl: lc, Compaction: s.Compaction}
	if s.Capability != nil {
		m.Capability = *s.Capability
	}
	o := agent.Options{Model: m,
		Config: agent.Config{SystemPrompt: s.SystemPrompt}, Tools: s.Tools, Env: s.Env, HomeDir: s.HomeDir,
		Persistence: s.Persistence, Permission: s.Permission, Gate: s.Gate, Hooks: s.Hooks, Loop: s.Loop,
		OnEvent: s.OnEvent, Logger: s.Logger, Now: s.Now, NewUUID: s.NewUUID,
		Compaction: agent.CompactionOptions{SystemPrompt: s.RefreshSystemPrompt}}
	if s.ToolManager != nil {
		env := s.Env
		o.NewToolManager = func(c tools.StoreCommitter) *tools.Manager { return s.ToolManager(env, c) }
	}
	return o
}

func newHarness(t testing.TB, opts ...agenttest.Option) *agenttest.Harness {
	t.Helper()
	return agenttest.New(t, newAgent, opts...)
}

// agentOf returns the real agent behind a harness.
func agentOf(h *agenttest.Harness) *agent.Agent { return h.Agent().(host).Agent }

// withUsage returns r reporting usage {in, out}.
func withUsage(r scripted.Response, in, out int) scripted.Response {
	r.Usage = &llm.TokenUsage{InputOther: in, Output: out}
	return r
}

// call returns a response with one tool call.
func call(id, name, args string) scripted.Response {
	return scripted.ToolCalls(scripted.Call{ID: id, Name: name, Arguments: args})
}

// eventsOf returns the events of type T, in order.
func eventsOf[T event.Event](h *agenttest.Harness) []T {
	var out []T
	for _, ev := range h.Events() {
		if e, ok := ev.(T); ok {
			out = append(out, e)
		}
	}
	return out
}

// bashTool is a stand-in Bash that reports what it ran.
func bashTool() *looptest.Tool {
	return &looptest.Tool{Name: "Bash",
		Schema: `{"type":"object","properties":{"command":{"type":"string"}},"required":["command"]}`,
		Run: func(_ context.Context, args json.RawMessage, _ loop.ExecCtx) (loop.ToolResult, error) {
			var a struct {
				Command string `json:"command"`
			}
			if err := json.Unmarshal(args, &a); err != nil {
				return loop.ToolResult{}, err
			}
			return loop.TextResult("ran " + a.Command), nil
		}}
}

func text(s string) []llm.ContentPart { return []llm.ContentPart{llm.TextPart(s)} }

// summarize renders history as role:text lines, assistant calls as [ids]
// and tool results as tool:id:text.
func summarize(h []history.Message) []string {
	var out []string
	for _, m := range h {
		switch {
		case m.Role == llm.RoleTool:
			out = append(out, "tool:"+m.ToolCallID+":"+llm.ExtractText(m.Message, ""))
		case len(m.ToolCalls) > 0:
			var ids []string
			for _, c := range m.ToolCalls {
				ids = append(ids, c.ID)
			}
			out = append(out, string(m.Role)+":"+llm.ExtractText(m.Message, "")+"["+strings.Join(ids, ",")+"]")
		case m.Role == llm.RoleAssistant && len(m.Content) == 0:
			// an empty step (failed or cancelled) shows nothing
		default:
			out = append(out, string(m.Role)+":"+llm.ExtractText(m.Message, ""))
		}
	}
	return out
}

// promptTexts are the texts of the turn.prompt records.
func promptTexts(t *testing.T, h *agenttest.Harness) []string {
	t.Helper()
	var out []string
	for _, r := range h.Records() {
		if r.Type != turn.TypePrompt {
			continue
		}
		var p turn.InputRecord
		if err := records.Decode(r, &p); err != nil {
			t.Fatal(err)
		}
		out = append(out, llm.ExtractText(llm.Message{Content: p.Input}, ""))
	}
	return out
}

// recordStrings are the lines of the records of type typ.
func recordStrings(h *agenttest.Harness, typ records.Type) []string {
	var out []string
	for _, r := range h.Records() {
		if r.Type == typ {
			out = append(out, r.String())
		}
	}
	return out
}

// recordIndex is the position of the first record of type typ whose line
// contains s.
func recordIndex(t *testing.T, h *agenttest.Harness, s string, typ records.Type) int {
	t.Helper()
	for i, r := range h.Records() {
		if r.Type == typ && strings.Contains(r.String(), s) {
			return i
		}
	}
	t.Fatalf("no %s record contains %s", typ, s)
	return -1
}

func requestText(r llm.Request) string {
	var b strings.Builder
	for _, m := range r.Messages {
		b.WriteString(llm.ExtractText(m, "\n"))
	}
	return b.String()
}

func slicesContain(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}
