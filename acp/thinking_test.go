package acp_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/kimigo/kimigo/llm/llmtest"
)

// thinkingModels configures "r", a model with efforts (low by default),
// "always", which cannot stop thinking, and "plain", which cannot think,
// all on the rig's server; extra ends the file.
func (r *rig) thinkingModels(extra string) {
	r.config(fmt.Sprintf(`default_model = "r"

[providers.fake]
type = "openai"
base_url = %q

[models.r]
provider = "fake"
model = "model-r"
max_context_size = 100000
capabilities = ["thinking"]
support_efforts = ["low", "high"]
default_effort = "low"

[models.always]
provider = "fake"
model = "model-always"
max_context_size = 100000
capabilities = ["always_thinking"]

[models.plain]
provider = "fake"
model = "model-plain"
max_context_size = 100000
`, llmtest.ChatBaseURL(r.srv)) + extra)
	r.srv.Respond(func(*llmtest.Request) llmtest.Reply { return llmtest.Text("ok") })
}

// optionsOf describes config options as "<id>=<current>[<values>]".
func optionsOf(opts []sdk.SessionConfigOption) string {
	var out []string
	for _, o := range opts {
		if o.Select == nil {
			out = append(out, "?")
			continue
		}
		var vs []string
		if o.Select.Options.Ungrouped != nil {
			for _, v := range *o.Select.Options.Ungrouped {
				vs = append(vs, string(v.Value)+":"+v.Name)
			}
		}
		s := fmt.Sprintf("%s=%s", o.Select.Id, o.Select.CurrentValue)
		if o.Select.Id == "thinking" {
			s += "[" + strings.Join(vs, ",") + "]"
			if o.Select.Category == nil || *o.Select.Category != sdk.SessionConfigOptionCategoryThoughtLevel {
				s += "(no thought_level category)"
			}
		}
		out = append(out, s)
	}
	return strings.Join(out, " ")
}

// lastOptions is the last config_option_update's snapshot, once n of
// them arrived.
func lastOptions(c *client, n int) string {
	c.t.Helper()
	c.waitFor(fmt.Sprintf("%d config option updates", n), func(log []string) bool {
		k := 0
		for _, l := range log {
			if l == "update:config_option_update" {
				k++
			}
		}
		return k >= n
	})
	c.waitFor("the updates to reach the handler", func([]string) bool {
		_, updates, _ := c.snapshot()
		k := 0
		for _, u := range updates {
			if u.Update.ConfigOptionUpdate != nil {
				k++
			}
		}
		return k >= n
	})
	_, updates, _ := c.snapshot()
	last := ""
	for _, u := range updates {
		if u.Update.ConfigOptionUpdate != nil {
			last = optionsOf(u.Update.ConfigOptionUpdate.ConfigOptions)
		}
	}
	return last
}

func (c *client) setOption(id sdk.SessionId, configID, value string) (sdk.SetSessionConfigOptionResponse, error) {
	return c.conn.SetSessionConfigOption(context.Background(), sdk.SetSessionConfigOptionRequest{ValueId: &sdk.SetSessionConfigOptionValueId{
		SessionId: id, ConfigId: sdk.SessionConfigId(configID), Value: sdk.SessionConfigValueId(value)}})
}

// efforts are the reasoning_effort of every request the model got ("-"
// when absent).
func efforts(r *rig) []string {
	var out []string
	for _, q := range r.srv.Requests() {
		v, ok := q.JSON(r.t)["reasoning_effort"]
		if !ok {
			v = "-"
		}
		out = append(out, fmt.Sprint(v))
	}
	return out
}

// Spec 06 §8.10: the thinking option sits between model and mode while
// the model can think, lists what the model takes, applies to the next
// request, is pushed in config_option_update, and survives a resume; a
// value the model does not list changes nothing.
func TestThinkingConfigOption(t *testing.T) {
	r := newRig(t)
	r.thinkingModels("")
	c := r.connect()
	c.initialize()
	ns := c.newSession(r.work)
	const models = "model=r thinking="
	if got, want := optionsOf(ns.ConfigOptions), models+"low[off:Off,low:Low,high:High] mode=default"; got != want {
		t.Errorf("session/new options = %q, want %q", got, want)
	}
	if _, err := c.prompt(ns.SessionId, "one"); err != nil {
		t.Fatal(err)
	}
	resp, err := c.setOption(ns.SessionId, "thinking", "high")
	if got, want := optionsOf(resp.ConfigOptions), models+"high[off:Off,low:Low,high:High] mode=default"; err != nil || got != want {
		t.Errorf("set thinking high = %q, %v; want %q", got, err, want)
	}
	if got := lastOptions(c, 1); !strings.Contains(got, "thinking=high[") {
		t.Errorf("config_option_update after thinking high: %q", got)
	}
	if _, err := c.prompt(ns.SessionId, "two"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.setOption(ns.SessionId, "thinking", "off"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.prompt(ns.SessionId, "three"); err != nil {
		t.Fatal(err)
	}
	if got, want := efforts(r), []string{"low", "high", "-"}; !slices.Equal(got, want) {
		t.Errorf("reasoning_effort of each request = %q, want %q", got, want)
	}
	_, err = c.setOption(ns.SessionId, "thinking", "max")
	if code, msg := requestError(err); code != -32602 || msg != `Unknown thinking effort for model "r": max` {
		t.Errorf("thinking max: %d %q", code, msg)
	}
	if got := lastOptions(c, 2); !strings.Contains(got, "thinking=off[") {
		t.Errorf("after a refused value the last update says %q, want thinking off", got)
	}
	if _, err := c.setOption(ns.SessionId, "thinking", "high"); err != nil {
		t.Fatal(err)
	}

	// An always-thinking model offers "on" alone; a model that cannot
	// think has no thinking option and refuses a value.
	resp, err = c.setOption(ns.SessionId, "model", "always")
	if got, want := optionsOf(resp.ConfigOptions), "model=always thinking=on[on:On] mode=default"; err != nil || got != want {
		t.Errorf("switch to always = %q, %v; want %q", got, err, want)
	}
	_, err = c.setOption(ns.SessionId, "thinking", "off")
	if code, msg := requestError(err); code != -32602 || msg != `Unknown thinking effort for model "always": off` {
		t.Errorf("thinking off on an always-thinking model: %d %q", code, msg)
	}
	resp, err = c.setOption(ns.SessionId, "model", "plain")
	if got, want := optionsOf(resp.ConfigOptions), "model=plain mode=default"; err != nil || got != want {
		t.Errorf("switch to plain = %q, %v; want %q", got, err, want)
	}
	_, err = c.setOption(ns.SessionId, "thinking", "on")
	if code, msg := requestError(err); code != -32602 || msg != `Unknown thinking effort for model "plain": on` {
		t.Errorf("thinking on for a model that cannot think: %d %q", code, msg)
	}

	if _, err := c.setOption(ns.SessionId, "model", "r"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.setOption(ns.SessionId, "thinking", "high"); err != nil {
		t.Fatal(err)
	}
	c.stop()

	// A new process resumes the session with its thinking setting, and
	// load reports it too.
	c2 := r.connect()
	c2.initialize()
	res, err := c2.conn.ResumeSession(context.Background(), sdk.ResumeSessionRequest{SessionId: ns.SessionId, Cwd: r.work, McpServers: []sdk.McpServer{}})
	if got, want := optionsOf(res.ConfigOptions), models+"high[off:Off,low:Low,high:High] mode=default"; err != nil || got != want {
		t.Errorf("session/resume options = %q, %v; want %q", got, err, want)
	}
	c2.stop()
	c3 := r.connect()
	c3.initialize()
	ld, err := c3.conn.LoadSession(context.Background(), sdk.LoadSessionRequest{SessionId: ns.SessionId, Cwd: r.work, McpServers: []sdk.McpServer{}})
	if got, want := optionsOf(ld.ConfigOptions), models+"high[off:Off,low:Low,high:High] mode=default"; err != nil || got != want {
		t.Errorf("session/load options = %q, %v; want %q", got, err, want)
	}
	if _, err := c3.prompt(ns.SessionId, "four"); err != nil {
		t.Fatal(err)
	}
	if got := efforts(r); got[len(got)-1] != "high" {
		t.Errorf("the loaded session's request carried %q, want high", got[len(got)-1])
	}
}

// session/resume (spec 06 §8.4) is session/load without the replay: the
// response carries the options, the available commands follow it, no
// history is sent, and the next prompt continues the conversation; an
// unknown id is -32602.
func TestResumeWithoutReplay(t *testing.T) {
	r := newRig(t, writeCall("call_1", "b.txt", "hi"), llmtest.Text("Created b.txt."), llmtest.Text("Still here."))
	first := r.connect()
	id, _ := promptWrite(t, r, first, "approve_once")
	first.stop()

	c := r.connect()
	c.initialize()
	resp, err := c.conn.ResumeSession(context.Background(), sdk.ResumeSessionRequest{SessionId: id, Cwd: r.work, McpServers: []sdk.McpServer{}})
	if got, want := optionsOf(resp.ConfigOptions), "model=fake mode=default"; err != nil || got != want {
		t.Fatalf("session/resume = %q, %v; want %q", got, err, want)
	}
	c.waitFor("available commands", func(log []string) bool { return slices.Contains(log, "update:available_commands_update") })
	if log, _, _ := c.snapshot(); !slices.Equal(log, []string{"update:available_commands_update"}) {
		t.Errorf("session/resume sent %q; want the available commands only, no replay", log)
	}
	if p, err := c.prompt(id, "are you there?"); err != nil || p.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("prompt after resume: %v %v", p, err)
	}
	if body := string(r.srv.Request(2).Body); !strings.Contains(body, "create b.txt") || !strings.Contains(body, "Created b.txt.") {
		t.Errorf("the prompt after resume lacks the earlier conversation:\n%.2000s", body)
	}
	// Resuming a session this process has open answers from it.
	again, err := c.conn.ResumeSession(context.Background(), sdk.ResumeSessionRequest{SessionId: id, Cwd: r.work, McpServers: []sdk.McpServer{}})
	if got := optionsOf(again.ConfigOptions); err != nil || got != "model=fake mode=default" {
		t.Errorf("second session/resume = %q, %v", got, err)
	}
	_, err = c.conn.ResumeSession(context.Background(), sdk.ResumeSessionRequest{SessionId: "session_nope", Cwd: r.work, McpServers: []sdk.McpServer{}})
	if code, msg := requestError(err); code != -32602 || msg != "Unknown sessionId: session_nope" {
		t.Errorf("resume of an unknown id: %d %q", code, msg)
	}
}

// Legacy session/set_model "<alias>,thinking" switches the model and
// turns its thinking on at the default effort, where the configuration
// starts it off; the plain alias leaves it off.
func TestSetModelWithThinkingSuffix(t *testing.T) {
	r := newRig(t)
	r.thinkingModels("\n[thinking]\nenabled = false\n")
	c := r.connect()
	c.initialize()
	ns := c.newSession(r.work)
	if got := optionsOf(ns.ConfigOptions); !strings.HasPrefix(got, "model=r thinking=off[") {
		t.Fatalf("session/new with thinking disabled: %q", got)
	}
	setModel := func(id string) {
		t.Helper()
		if _, err := c.conn.UnstableSetSessionModel(context.Background(), sdk.UnstableSetSessionModelRequest{SessionId: ns.SessionId, ModelId: sdk.UnstableModelId(id)}); err != nil {
			t.Fatalf("session/set_model %s: %v", id, err)
		}
	}
	setModel("r")
	if got := lastOptions(c, 1); !strings.HasPrefix(got, "model=r thinking=off[") {
		t.Errorf("after session/set_model r: %q, want thinking still off", got)
	}
	setModel("r,thinking")
	if got := lastOptions(c, 2); !strings.HasPrefix(got, "model=r thinking=low[") {
		t.Errorf("after session/set_model r,thinking: %q, want thinking at the default effort low", got)
	}
	if _, err := c.prompt(ns.SessionId, "hi"); err != nil {
		t.Fatal(err)
	}
	if got := efforts(r); !slices.Equal(got, []string{"low"}) {
		t.Errorf("reasoning_effort after session/set_model r,thinking = %q, want low", got)
	}
}
