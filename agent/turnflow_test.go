package agent_test

import (
	"time"

	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kimigo/kimigo/agent/agenttest"
	"github.com/kimigo/kimigo/agent/history"
	"github.com/kimigo/kimigo/agent/permission"
	"github.com/kimigo/kimigo/agent/records"
	"github.com/kimigo/kimigo/agent/turn"
	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/llm/scripted"
	"github.com/kimigo/kimigo/loop"
	"github.com/kimigo/kimigo/loop/looptest"
)

// Spec 03 §8 scenarios 1–16: TurnFlow through a real agent. Every scenario
// ends by proving that a resumed agent matches.

func TestTurnS1BasicTurnAndIDs(t *testing.T) {
	h := newHarness(t)
	a := agentOf(h)
	var activeAtEnd []bool
	h.Observe(func(ev event.Event) {
		if ev.EventType() == event.TypeTurnEnded {
			activeAtEnd = append(activeAtEnd, a.HasActiveTurn())
		}
	})
	// Held, so the turn cannot end before HasActiveTurn is asked.
	held := h.Held(withUsage(scripted.Text("hello"), 5, 2), 0)
	l := h.Start("hi")
	if l.TurnID != 0 || !l.Launched {
		t.Fatalf("Prompt = %+v, want turn 0 launched", l)
	}
	if !a.HasActiveTurn() {
		t.Error("HasActiveTurn() = false right after Prompt")
	}
	held.Release()
	res := h.Wait()
	if res.Event.Reason != event.EndCompleted || res.Event.TurnID != 0 {
		t.Errorf("turn ended %+v", res.Event)
	}
	want := []event.Type{event.TypeTurnStarted, event.TypeStepStarted, event.TypeAssistantDelta,
		event.TypeStepCompleted, event.TypeStatus, event.TypeTurnEnded}
	if d := cmp.Diff(want, h.EventTypes()); d != "" {
		t.Errorf("events (-want +got):\n%s", d)
	}
	started := eventsOf[event.TurnStarted](h)[0]
	if started.TurnID != 0 || started.Origin != string(history.OriginUser) {
		t.Errorf("turn.started = %+v", started)
	}
	if s := eventsOf[event.StepStarted](h)[0]; s.Step != 1 {
		t.Errorf("turn.step.started = %+v", s)
	}
	if d := eventsOf[event.AssistantDelta](h)[0]; d.Delta != "hello" {
		t.Errorf("assistant.delta = %+v", d)
	}
	if c := eventsOf[event.StepCompleted](h)[0]; c.Usage == nil || c.Usage.InputOther != 5 || c.Usage.Output != 2 {
		t.Errorf("turn.step.completed = %+v", c)
	}
	if s := eventsOf[event.Status](h)[0]; s.ContextTokens != 7 {
		t.Errorf("status contextTokens = %d, want 7", s.ContextTokens)
	}
	if d := cmp.Diff([]bool{false}, activeAtEnd); d != "" {
		t.Errorf("HasActiveTurn at turn.ended (-want +got):\n%s", d)
	}
	h.Model(scripted.Text("again"))
	if l := h.Start("second"); l.TurnID != 1 {
		t.Errorf("second prompt got turn %d, want 1", l.TurnID)
	}
	h.Wait()
	h.ExpectResumeMatches()
}

func TestTurnS2Busy(t *testing.T) {
	approver := agenttest.NewApprover()
	h := newHarness(t, agenttest.Permission(permission.Options{Approver: approver}), agenttest.Tools(bashTool()))
	h.Model(call("c1", "Bash", `{"command":"ls"}`), scripted.Text("listed"))
	h.Start("list files")
	ap := approver.Next(t)

	l, err := h.Agent().Prompt(t.Context(), text("x"), nil)
	if err != nil || l.Launched || l.TurnID != 0 {
		t.Fatalf("busy Prompt = %+v, %v; want turn 0, not launched", l, err)
	}
	if got := promptTexts(t, h); !slicesContain(got, "x") {
		t.Errorf("turn.prompt records %q lack the refused prompt", got)
	}
	errs := eventsOf[event.Error](h)
	if len(errs) != 1 || errs[0].Code != event.CodeAgentBusy ||
		errs[0].Message != "Cannot launch a new turn while another turn (ID 0) is active" {
		t.Errorf("error events = %+v", errs)
	}
	ap.Answer(event.ApproveOnce)
	h.Wait()
	if n := len(eventsOf[event.TurnStarted](h)); n != 1 {
		t.Errorf("%d turn.started events, want 1", n)
	}
	h.ExpectResumeMatches()
}

func TestTurnS3SteerAtNextStepBoundary(t *testing.T) {
	approver := agenttest.NewApprover()
	h := newHarness(t, agenttest.Permission(permission.Options{Approver: approver}), agenttest.Tools(bashTool()))
	h.Model(call("c1", "Bash", `{"command":"ls"}`), scripted.Text("Done, and the steer is mentioned."))
	h.Start("run ls")
	ap := approver.Next(t)
	if l := h.Steer("Also mention the steer", nil); !l.Buffered || l.Launched {
		t.Errorf("Steer = %+v, want buffered", l)
	}
	ap.Answer(event.ApproveOnce)
	h.Wait()

	want := []string{"user:run ls", "assistant:[c1]", "tool:c1:ran ls", "user:Also mention the steer",
		"assistant:Done, and the steer is mentioned."}
	if d := cmp.Diff(want, summarize(agentOf(h).History())); d != "" {
		t.Errorf("history (-want +got):\n%s", d)
	}
	steer := recordIndex(t, h, `"text":"Also mention the steer"`, "context.append_message")
	end1 := recordIndex(t, h, `"type":"step.end","uuid":"uuid-1"`, "context.append_loop_event")
	begin2 := recordIndex(t, h, `"type":"step.begin","uuid":"uuid-2"`, "context.append_loop_event")
	if !(end1 < steer && steer < begin2) {
		t.Errorf("steer record at %d, want between step 1's end (%d) and step 2's begin (%d)", steer, end1, begin2)
	}
	reqs := h.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	if strings.Contains(requestText(reqs[0]), "Also mention the steer") {
		t.Error("request 1 contains the steer")
	}
	if last := reqs[1].Messages[len(reqs[1].Messages)-1]; llm.ExtractText(last, "") != "Also mention the steer" {
		t.Errorf("request 2 ends with %+v, want the steer", last)
	}
	if n := len(eventsOf[event.TurnEnded](h)); n != 1 {
		t.Errorf("%d turn.ended events, want 1", n)
	}
	h.ExpectResumeMatches()
}

func TestTurnS4SteerDuringFinalAnswerContinues(t *testing.T) {
	h := newHarness(t)
	hold := h.Held(scripted.Text("Here is the final answer."), 2)
	h.Model(scripted.Text("Noted."))
	h.Start("answer me")
	<-hold.Reached()
	h.Steer("one more thing", nil)
	hold.Release()
	res := h.Wait()
	if res.Event.Reason != event.EndCompleted {
		t.Errorf("turn ended %+v", res.Event)
	}
	reqs := h.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	if last := reqs[1].Messages[len(reqs[1].Messages)-1]; llm.ExtractText(last, "") != "one more thing" {
		t.Errorf("request 2 ends with %q, want the steer", llm.ExtractText(last, ""))
	}
	h.ExpectResumeMatches()
}

func TestTurnS5SteerWhileIdleLaunches(t *testing.T) {
	h := newHarness(t)
	h.Model(scripted.Text("pong"))
	origin := &history.Origin{Kind: history.OriginBackgroundTask, TaskID: "t1", Status: "completed", NotificationID: "n1"}
	l := h.Steer("ping", origin)
	if !l.Launched || l.TurnID != 0 {
		t.Fatalf("Steer = %+v, want turn 0 launched", l)
	}
	h.Wait()
	if got := summarize(agentOf(h).History()); len(got) != 2 || got[0] != "user:ping" {
		t.Errorf("history = %q", got)
	}
	h.ExpectResumeMatches()
}

// TestTurnSteerWhileTheTurnEndsLaunches steers after the last step's
// boundary but before the turn let go of its slot (here from the Stop hook,
// the last thing a turn runs): the input is buffered for a step that never
// comes, so the ending turn launches the next one with it rather than
// leaving it for a prompt that may never come (a background task's
// notification arrives exactly like this).
func TestTurnSteerWhileTheTurnEndsLaunches(t *testing.T) {
	var h *agenttest.Harness
	steered := false
	hooks := &agenttest.Hooks{OnBlock: func(ev turn.HookEvent, _ map[string]any) []turn.HookResult {
		if ev == turn.HookStop && !steered {
			steered = true
			if l := h.Steer("one more thing", nil); !l.Buffered {
				t.Errorf("steer while the turn ends = %+v, want it buffered", l)
			}
		}
		return nil
	}}
	h = newHarness(t, agenttest.HookRunner(hooks))
	h.Model(scripted.Text("done"), scripted.Text("and that too"))
	if res := h.Prompt("work"); res.Event.Reason != event.EndCompleted {
		t.Fatalf("first turn ended %+v", res.Event)
	}
	deadline := time.Now().Add(10 * time.Second)
	for agentOf(h).CurrentTurnID() != 1 {
		if time.Now().After(deadline) {
			t.Fatalf("no turn launched for the buffered input; history %q", summarize(agentOf(h).History()))
		}
		time.Sleep(time.Millisecond)
	}
	if res := h.Wait(); res.Event.Reason != event.EndCompleted {
		t.Fatalf("second turn ended %+v", res.Event)
	}
	want := []string{"user:work", "assistant:done", "user:one more thing", "assistant:and that too"}
	if d := cmp.Diff(want, summarize(agentOf(h).History())); d != "" {
		t.Errorf("history (-want +got):\n%s", d)
	}
	h.ExpectResumeMatches()
}

func TestTurnS10Retry(t *testing.T) {
	hooks := &agenttest.Hooks{}
	h := newHarness(t, agenttest.HookRunner(hooks))
	h.Model(scripted.Response{Err: &llm.Error{Kind: llm.KindStatus, StatusCode: 400, Message: "400 bad request"}},
		scripted.Text("second try worked"))
	if res := h.Prompt("hello"); res.Event.Reason != event.EndFailed {
		t.Fatalf("first turn ended %+v", res.Event)
	}
	before := len(hooks.Calls(turn.HookUserPromptSubmit))
	if _, err := agentOf(h).Retry(t.Context(), "manual"); err != nil {
		t.Fatal(err)
	}
	if res := h.Wait(); res.Event.Reason != event.EndCompleted {
		t.Errorf("retry ended %+v", res.Event)
	}
	if n := len(hooks.Calls(turn.HookUserPromptSubmit)); n != before {
		t.Errorf("UserPromptSubmit ran %d more times on retry", n-before)
	}
	reqs := h.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	if d := cmp.Diff(reqs[0].Messages, reqs[1].Messages); d != "" {
		t.Errorf("retry request differs from the first (-first +retry):\n%s", d)
	}
	users := 0
	for _, m := range agentOf(h).History() {
		if m.Role == llm.RoleUser {
			users++
		}
	}
	if users != 1 {
		t.Errorf("%d user messages after the retry, want 1", users)
	}
	h.ExpectResumeMatches()
}

func TestTurnS11UserPromptSubmitBlocks(t *testing.T) {
	hooks := &agenttest.Hooks{OnBlock: func(ev turn.HookEvent, _ map[string]any) []turn.HookResult {
		if ev == turn.HookUserPromptSubmit {
			return []turn.HookResult{{Block: true, Message: "nope"}}
		}
		return nil
	}}
	h := newHarness(t, agenttest.HookRunner(hooks))
	res := h.Prompt("deploy to production")
	if res.Event.Reason != event.EndBlocked || !res.BlockedByUserPromptHook {
		t.Errorf("turn ended %+v", res)
	}
	hist := agentOf(h).History()
	last := hist[len(hist)-1]
	if last.Role != llm.RoleAssistant || llm.ExtractText(last.Message, "") != "<hook_result hook_event=\"UserPromptSubmit\">\nnope\n</hook_result>" ||
		!last.Origin.Is(history.OriginHookResult) || !last.Origin.Blocked {
		t.Errorf("last message = %+v (origin %+v)", last, last.Origin)
	}
	hr := eventsOf[event.HookResult](h)
	if len(hr) != 1 || !hr[0].Blocked || hr[0].Content != "nope" {
		t.Errorf("hook.result events = %+v", hr)
	}
	if n := len(h.Requests()); n != 0 {
		t.Errorf("%d requests, want 0", n)
	}
	h.ExpectResumeMatches()
}

func TestTurnS12StopHookContinuesOnce(t *testing.T) {
	hooks := &agenttest.Hooks{OnBlock: func(ev turn.HookEvent, _ map[string]any) []turn.HookResult {
		if ev == turn.HookStop {
			return []turn.HookResult{{Block: true, Reason: "keep going"}}
		}
		return nil
	}}
	h := newHarness(t, agenttest.HookRunner(hooks))
	h.Model(scripted.Text("a"), scripted.Text("b"))
	if res := h.Prompt("work"); res.Event.Reason != event.EndCompleted {
		t.Errorf("turn ended %+v", res.Event)
	}
	if n := len(hooks.Calls(turn.HookStop)); n != 1 {
		t.Errorf("Stop hook ran %d times, want 1", n)
	}
	want := []string{"user:work", "assistant:a", "user:keep going", "assistant:b"}
	hist := agentOf(h).History()
	if d := cmp.Diff(want, summarize(hist)); d != "" {
		t.Errorf("history (-want +got):\n%s", d)
	}
	if o := hist[2].Origin; !o.Is(history.OriginSystemTrigger) || o.Name != "stop_hook" {
		t.Errorf("stop hook message origin = %+v", o)
	}
	if n := len(h.Requests()); n != 2 {
		t.Errorf("%d requests, want 2", n)
	}
	h.ExpectResumeMatches()
}

func TestTurnS13Filtered(t *testing.T) {
	hooks := &agenttest.Hooks{}
	h := newHarness(t, agenttest.HookRunner(hooks))
	r := scripted.Text("partial text")
	r.Finish = llm.FinishFiltered
	h.Model(r)
	res := h.Prompt("something")
	want := event.ErrorPayload{Code: "provider.filtered", Message: "Provider safety policy blocked the response.",
		Name: "ProviderFilteredError", Details: map[string]any{"finishReason": "filtered", "turnId": 0}}
	if res.Event.Reason != event.EndFailed {
		t.Errorf("turn ended %+v", res.Event)
	}
	if d := cmp.Diff(&want, res.Event.Error); d != "" {
		t.Errorf("turn.ended error (-want +got):\n%s", d)
	}
	types := h.EventTypes()
	if d := cmp.Diff([]event.Type{event.TypeTurnEnded, event.TypeError}, types[len(types)-2:]); d != "" {
		t.Errorf("last events (-want +got):\n%s", d)
	}
	if errs := eventsOf[event.Error](h); len(errs) != 1 || !cmp.Equal(want, errs[0].ErrorPayload) {
		t.Errorf("error events = %+v", errs)
	}
	if n := len(hooks.Calls(turn.HookStopFailure)); n != 0 {
		t.Errorf("StopFailure fired %d times", n)
	}
	h.ExpectResumeMatches()
}

func TestTurnS14ModelNotConfigured(t *testing.T) {
	hooks := &agenttest.Hooks{}
	h := newHarness(t, agenttest.NoModel(), agenttest.HookRunner(hooks))
	res := h.Prompt("hi")
	e := res.Event.Error
	if res.Event.Reason != event.EndFailed || e == nil || e.Code != "model.not_configured" ||
		e.Message != `LLM not set, send "/login" to login` {
		t.Fatalf("turn ended %+v (error %+v)", res.Event, e)
	}
	types := h.EventTypes()
	if d := cmp.Diff([]event.Type{event.TypeTurnEnded, event.TypeError}, types[len(types)-2:]); d != "" {
		t.Errorf("last events (-want +got):\n%s", d)
	}
	sf := hooks.Calls(turn.HookStopFailure)
	if len(sf) != 1 || sf[0].Matcher != e.Name || sf[0].Input["errorType"] != e.Name || sf[0].Input["errorMessage"] != e.Message {
		t.Errorf("StopFailure = %+v, want it named %q", sf, e.Name)
	}
	h.ExpectResumeMatches()
}

func TestTurnS15MaxSteps(t *testing.T) {
	for _, tt := range []struct {
		name string
		cap  int
	}{{"cap 2", 2}, {"cap 3", 3}} {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, agenttest.Tools(looptest.Echo()), agenttest.LoopControl(turn.LoopControl{MaxStepsPerTurn: tt.cap}))
			for i := range 4 {
				h.Model(call("c"+string(rune('1'+i)), "echo", `{"text":"again"}`))
			}
			res := h.Prompt("loop forever")
			if n := len(h.Requests()); n != tt.cap {
				t.Errorf("%d requests, want %d", n, tt.cap)
			}
			if e := res.Event.Error; res.Event.Reason != event.EndFailed || e == nil || e.Code != loop.CodeMaxStepsExceeded {
				t.Errorf("turn ended %+v (error %+v)", res.Event, e)
			}
			h.ExpectResumeMatches()
		})
	}
}

// The repeat guard's force-stop ends the turn completed (spec 03 §1.15),
// and the result says the guard ended it; a continuation after the stop
// (here the Stop hook's) that ends normally clears that.
func TestTurnRepeatGuardStopIsReported(t *testing.T) {
	for _, tt := range []struct {
		name     string
		stopHook bool
		want     *event.RepeatStop
	}{
		{"the guard ends the turn", false, &event.RepeatStop{Tool: "echo", Calls: 12}},
		{"a continuation ends it", true, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			hooks := &agenttest.Hooks{OnBlock: func(ev turn.HookEvent, _ map[string]any) []turn.HookResult {
				if ev == turn.HookStop && tt.stopHook {
					return []turn.HookResult{{Block: true, Reason: "sum up what you found"}}
				}
				return nil
			}}
			h := newHarness(t, agenttest.Tools(looptest.Echo()), agenttest.HookRunner(hooks))
			for i := range 12 {
				h.Model(call(fmt.Sprint("c", i), "echo", `{"text":"again"}`))
			}
			h.Model(scripted.Text("Nothing new turned up."))
			res := h.Prompt("loop forever")
			if res.Event.Reason != event.EndCompleted || res.Event.Error != nil {
				t.Errorf("turn ended %+v", res.Event)
			}
			if d := cmp.Diff(tt.want, res.Event.RepeatStop); d != "" {
				t.Errorf("RepeatStop (-want +got):\n%s", d)
			}
			if want := 12 + map[bool]int{true: 1}[tt.stopHook]; len(h.Requests()) != want {
				t.Errorf("%d requests, want %d", len(h.Requests()), want)
			}
		})
	}
}

func TestTurnS16AbandonedExchangeClosed(t *testing.T) {
	h := abandonedTurn(t)
	trace := string(h.Trace())
	closed := strings.Index(trace, "because the turn failed (")
	ended := strings.Index(trace, `"type":"turn.ended"`)
	if closed < 0 || ended < 0 || closed > ended {
		t.Errorf("the close of c1 (at %d) does not precede turn.ended (at %d):\n%s", closed, ended, trace)
	}
	hist := agentOf(h).History()
	var res *history.Message
	for i := range hist {
		if hist[i].Role == llm.RoleTool && hist[i].ToolCallID == "c1" {
			res = &hist[i]
		}
	}
	if res == nil || !res.IsError || !strings.Contains(llm.ExtractText(res.Message, ""), "disk full") {
		t.Fatalf("history has no failed-turn result for c1: %q", summarize(hist))
	}
	h.Model(scripted.Text("fine"))
	h.Prompt("carry on")
	got := summarize(agentOf(h).History())
	if got[len(got)-2] != "user:carry on" {
		t.Errorf("later prompt stranded: %q", got)
	}
	h.ExpectResumeMatches()
}

// abandonedTurn runs a turn whose first tool.result could not be recorded,
// so the turn fails with the call c1 open.
func abandonedTurn(t *testing.T) *agenttest.Harness {
	t.Helper()
	var failed atomic.Bool
	fault := func(rec records.Record) error {
		if rec.Type == "context.append_loop_event" && strings.Contains(rec.String(), `"type":"tool.result"`) &&
			failed.CompareAndSwap(false, true) {
			return errors.New("disk full")
		}
		return nil
	}
	h := newHarness(t, agenttest.AppendFault(fault), agenttest.Tools(looptest.Echo()))
	h.Model(call("c1", "echo", `{"text":"x"}`))
	if res := h.Prompt("go"); res.Event.Reason != event.EndFailed {
		t.Fatalf("turn ended %+v, want failed", res.Event)
	}
	return h
}

// Spec 02 §8.4 scenario 30, through TurnFlow.
func TestHistoryS30AbandonedExchange(t *testing.T) {
	h := abandonedTurn(t)
	var closes []string
	for _, s := range recordStrings(h, records.Type(history.TypeAppendLoopEvent)) {
		if strings.Contains(s, `"type":"tool.result"`) && strings.Contains(s, `"toolCallId":"c1"`) {
			closes = append(closes, s)
		}
	}
	if len(closes) != 1 || !strings.Contains(closes[0], `"isError":true`) ||
		!strings.Contains(closes[0], "This tool call did not complete because the turn failed (") {
		t.Fatalf("tool.result records for c1 = %q", closes)
	}
	a := agentOf(h)
	h.Model(scripted.Text("noted"))
	if _, err := a.Steer(t.Context(), text("a note for later"), history.InjectionOrigin(history.VariantSystemReminder)); err != nil {
		t.Fatal(err)
	}
	h.Wait()
	got := summarize(a.History())
	want := []string{"user:go", "assistant:[c1]", "tool:c1:" + turn.AbandonedCallText(event.EndFailed, failedMessage(t, h)),
		"user:a note for later", "assistant:noted"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("history (-want +got):\n%s", d)
	}
	h.ExpectResumeMatches()
}

// failedMessage is the error message of the first failed turn.
func failedMessage(t *testing.T, h *agenttest.Harness) string {
	t.Helper()
	for _, ev := range eventsOf[event.TurnEnded](h) {
		if ev.Error != nil {
			return ev.Error.Message
		}
	}
	t.Fatal("no turn failed")
	return ""
}
