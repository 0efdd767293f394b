package acp_test

import (
	"context"
	"encoding/json"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/kimigo/kimigo/config"
	"github.com/kimigo/kimigo/llm/llmtest"
)

// planModel answers each prompt in plan mode with three steps: write
// plan to the plan file the latest reminder names, call ExitPlanMode, then say
// done.
func planModel(t *testing.T, srv *llmtest.Server, plans ...string) {
	planFile := regexp.MustCompile(`Plan file: ([^"\\\n]+)`)
	var (
		mu   sync.Mutex
		n    int
		path string
	)
	srv.Respond(func(r *llmtest.Request) llmtest.Reply {
		mu.Lock()
		defer mu.Unlock()
		step, prompt := n%3, n/3
		n++
		switch step {
		case 0:
			if m := planFile.FindAllSubmatch(r.Body, -1); m != nil {
				path = string(m[len(m)-1][1]) // the newest reminder's
			}
			if path == "" || prompt >= len(plans) {
				return llmtest.Text("no plan file in the request")
			}
			args, _ := json.Marshal(map[string]string{"path": path, "content": plans[prompt]})
			return llmtest.ToolCall("w"+string(rune('1'+prompt)), "Write", string(args))
		case 1:
			return llmtest.ToolCall("x"+string(rune('1'+prompt)), "ExitPlanMode", `{}`)
		}
		return llmtest.Text("done")
	})
}

// The plan review is offered without "always" (Approve, Revise, Reject)
// and shows the plan; a client that answers approve_always anyway
// approves that plan only: the next plan is reviewed again and
// config.toml is unchanged.
func TestPlanReviewOffersNoAlwaysAndIsNotRemembered(t *testing.T) {
	r := newRig(t)
	planModel(t, r.srv, "# Plan one\n1. a", "# Plan two\n1. b")
	before, err := os.ReadFile(config.ConfigFile(r.home))
	if err != nil {
		t.Fatal(err)
	}
	c := r.connect()
	c.answer = func(p sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
		return selected("approve_always"), nil
	}
	c.initialize()
	ns := c.newSession(r.work)
	for i, plan := range []string{"# Plan one\n1. a", "# Plan two\n1. b"} {
		if _, err := c.conn.SetSessionMode(context.Background(), sdk.SetSessionModeRequest{SessionId: ns.SessionId, ModeId: "plan"}); err != nil {
			t.Fatal(err)
		}
		if resp, err := c.prompt(ns.SessionId, "plan it"); err != nil || resp.StopReason != sdk.StopReasonEndTurn {
			t.Fatalf("prompt %d: %v %v", i+1, resp, err)
		}
		_, _, perms := c.snapshot()
		if len(perms) != i+1 {
			for k := range r.srv.Requests() {
				var body struct{ Messages []json.RawMessage }
				json.Unmarshal(r.srv.Request(k).Body, &body)
				for _, m := range body.Messages[max(0, len(body.Messages)-2):] {
					t.Logf("request %d: %.400s", k, m)
				}
			}
			t.Fatalf("after plan %d: %d permission requests, want %d (every plan reviewed)", i+1, len(perms), i+1)
		}
		p := perms[i]
		var ids []string
		for _, o := range p.Options {
			ids = append(ids, string(o.OptionId))
			if o.Kind == sdk.PermissionOptionKindAllowAlways {
				t.Errorf("plan review offers %q of kind allow_always", o.OptionId)
			}
		}
		if !slices.Equal(ids, []string{"approve_once", "revise", "reject"}) || p.ToolCall.Title == nil || *p.ToolCall.Title != "ExitPlanMode" {
			t.Errorf("plan review request %d: options %q, title %v", i+1, ids, p.ToolCall.Title)
		}
		var shown []string
		for _, ct := range p.ToolCall.Content {
			if ct.Content != nil {
				shown = append(shown, textOf(ct.Content.Content))
			}
		}
		if !slices.Contains(shown, plan) {
			t.Errorf("plan review %d shows %q, not the plan", i+1, shown)
		}
	}
	if body := string(r.srv.Request(4).Body); !strings.Contains(body, "## Approved Plan:") {
		t.Errorf("the model did not read the approved plan:\n%.1500s", body[max(0, len(body)-1500):])
	}
	if after, err := os.ReadFile(config.ConfigFile(r.home)); err != nil || string(after) != string(before) {
		t.Errorf("config.toml changed:\n%s", after)
	}
}

// A goal start is offered without "always" either; a client that
// answers approve_always anyway (ACP's session scope) starts that goal
// only: the next goal is asked about again and config.toml is unchanged.
func TestGoalStartOffersNoAlwaysAndIsNotRemembered(t *testing.T) {
	var replies []llmtest.Reply
	for _, id := range []string{"1", "2"} {
		replies = append(replies, llmtest.ToolCall("g"+id, "CreateGoal", `{"objective":"goal `+id+`"}`),
			llmtest.ToolCall("u"+id, "UpdateGoal", `{"status":"complete"}`), llmtest.Text("done"))
	}
	r := newRig(t, replies...)
	before, err := os.ReadFile(config.ConfigFile(r.home))
	if err != nil {
		t.Fatal(err)
	}
	c := r.connect()
	c.answer = func(p sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
		return selected("approve_always"), nil
	}
	c.initialize()
	ns := c.newSession(r.work)
	for i := range 2 {
		if resp, err := c.prompt(ns.SessionId, "start a goal"); err != nil || resp.StopReason != sdk.StopReasonEndTurn {
			t.Fatalf("prompt %d: %v %v", i+1, resp, err)
		}
		_, _, perms := c.snapshot()
		if len(perms) != i+1 {
			t.Fatalf("after goal %d: %d permission requests, want %d (every goal start asked)", i+1, len(perms), i+1)
		}
		var ids []string
		for _, o := range perms[i].Options {
			ids = append(ids, string(o.OptionId))
		}
		if !slices.Equal(ids, []string{"approve_once", "reject"}) || *perms[i].ToolCall.Title != "CreateGoal" {
			t.Errorf("goal start request %d: options %q, title %q", i+1, ids, *perms[i].ToolCall.Title)
		}
	}
	if after, err := os.ReadFile(config.ConfigFile(r.home)); err != nil || string(after) != string(before) {
		t.Errorf("config.toml changed:\n%s", after)
	}
}
