package agent_test

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/kimigo/kimigo/agent"
	"github.com/kimigo/kimigo/agent/goal"
	"github.com/kimigo/kimigo/agent/injection"
	"github.com/kimigo/kimigo/agent/plan"
	"github.com/kimigo/kimigo/agent/records"
	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/llm/llmtest"
	"github.com/kimigo/kimigo/llm/openai"
	"github.com/kimigo/kimigo/llm/scripted"
	"github.com/kimigo/kimigo/osenv"
	"github.com/kimigo/kimigo/tools"
)

// killChildDir names the session directory of TestGoalKillChild, the
// process TestGoalSurvivesKill9 kills.
const killChildDir = "KIMIGO_GOAL_KILL_DIR"

// goalFileAgent is a main agent with plan and goal mode whose records are the
// file log in dir and whose model is the fake server srv.
func goalFileAgent(t *testing.T, dir string, srv *llmtest.Server) *agent.Agent {
	t.Helper()
	p, err := records.OpenFile(records.FileOptions{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	env := osenv.NewLocal(osenv.LocalOptions{Cwd: dir, Home: dir})
	pm := plan.New(plan.Options{Env: env, HomeDir: dir})
	gs := goal.New(goal.Options{})
	return agent.New(agent.Options{
		Model: agent.ModelBinding{Provider: openai.New(openai.Options{Flavour: openai.OpenAI, BaseURL: llmtest.ChatBaseURL(srv),
			APIKey: "test-key", Model: "fake-model"}), Capability: llm.Capability{ToolUse: true, MaxContextTokens: 256_000}},
		Config:      agent.Config{SystemPrompt: "You are kimigo."},
		Env:         env,
		HomeDir:     dir,
		Persistence: p,
		Plan:        pm,
		Goals:       gs,
		Injection: injection.New(injection.Options{PerStep: injection.PerStepWith(pm.Reminder()),
			Boundary: []injection.Injector{gs.Reminder()}}),
		NewToolManager: func(c tools.StoreCommitter) *tools.Manager {
			return tools.New(tools.Options{Base: tools.Base{Env: env}, Committer: c, Plan: pm, Goals: gs})
		},
	})
}

// sliceReply is a goal turn's answer costing output tokens.
func sliceReply(text string, output int) llmtest.Reply {
	r := scripted.Text(text)
	r.Usage = &llm.TokenUsage{InputOther: 100, Output: output}
	return llmtest.Reply{Response: r}
}

// TestGoalKillChild is the process TestGoalSurvivesKill9 kills: it drives
// a goal through two turns on a file log, prints the goal when the third
// turn's request is held, and waits to be killed. Run on its own it does
// nothing.
func TestGoalKillChild(t *testing.T) {
	dir := os.Getenv(killChildDir)
	if dir == "" {
		return
	}
	gate := llmtest.NewGate()
	srv := llmtest.FakeChatCompletions(t, sliceReply("slice one", 7), sliceReply("slice two", 7),
		llmtest.Reply{Response: scripted.Text("never sent"), Fault: llmtest.Fault{Hold: gate}})
	a := goalFileAgent(t, dir, srv)
	if _, _, err := a.StartGoal(context.Background(), tools.GoalInput{Objective: "ship it"}); err != nil {
		t.Fatal(err)
	}
	<-gate.Reached()
	b, err := json.Marshal(a.Goals().Get())
	if err != nil {
		t.Fatal(err)
	}
	os.Stdout.WriteString("HELD " + string(b) + "\n")
	select {} // until SIGKILL
}

// TestGoalSurvivesKill9 kills a real process in the middle of a goal turn
// and resumes its session: the goal comes back paused with every turn and
// token it was charged, and resuming it carries on from those counts.
func TestGoalSurvivesKill9(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns a process")
	}
	dir := t.TempDir()
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestGoalKillChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), killChildDir+"="+dir)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var held tools.GoalSnapshot
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if line, ok := strings.CutPrefix(sc.Text(), "HELD "); ok {
			if err := json.Unmarshal([]byte(line), &held); err != nil {
				t.Fatal(err)
			}
			break
		}
	}
	if held.Objective == "" {
		_ = cmd.Process.Kill()
		t.Fatalf("the child never reached its third turn: %v", cmd.Wait())
	}
	if err := cmd.Process.Kill(); err != nil { // SIGKILL: no cleanup runs
		t.Fatal(err)
	}
	_ = cmd.Wait() // killed
	if held.Status != tools.GoalActive || held.TurnsUsed != 3 || held.TokensUsed != 14 {
		t.Fatalf("goal when killed %+v; want active, 3 turns, 14 tokens", held)
	}

	ctx := context.WithoutCancel(t.Context())
	srv := llmtest.FakeChatCompletions(t,
		llmtest.Reply{Response: withUsage(call("u1", "UpdateGoal", `{"status":"complete"}`), 100, 3)},
		sliceReply("Shipped.", 2))
	a := goalFileAgent(t, dir, srv)
	defer a.Close(ctx)
	if _, err := a.Resume(ctx, agent.ResumeOptions{}); err != nil {
		t.Fatal(err)
	}
	g := a.Goals().Get()
	if g == nil || g.Status != tools.GoalPaused || g.TerminalReason != goal.ReasonResumed || g.TurnsUsed != held.TurnsUsed ||
		g.TokensUsed != held.TokensUsed || g.WallClockMs > held.WallClockMs {
		t.Fatalf("resumed goal %+v; killed with %+v", g, held)
	}
	sub := a.Events().Subscribe()
	defer sub.Close()
	if _, err := a.ResumeGoal(ctx); err != nil {
		t.Fatal(err)
	}
	waitCtx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if _, err := a.WaitForCurrentTurn(waitCtx); err != nil {
		t.Fatal(err)
	}
	var final *event.GoalStats
	drained, stop := context.WithCancel(ctx)
	stop() // Next returns what is queued, then stops
	for {
		ev, err := sub.Next(drained)
		if err != nil {
			break
		}
		if g, ok := ev.(event.GoalUpdated); ok && g.Change != nil && g.Change.Stats != nil {
			final = g.Change.Stats
		}
	}
	if final == nil || final.TurnsUsed != 4 || final.TokensUsed != 14+3 {
		t.Errorf("completion stats %+v; want 4 turns and 17 tokens, counted on from the kill", final)
	}
}
