package agent_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kimigo/kimigo/agent"
	"github.com/kimigo/kimigo/agent/agenttest"
	"github.com/kimigo/kimigo/agent/background"
	"github.com/kimigo/kimigo/agent/history"
	"github.com/kimigo/kimigo/agent/injection"
	"github.com/kimigo/kimigo/agent/permission"
	"github.com/kimigo/kimigo/agent/records"
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/llm/scripted"
	"github.com/kimigo/kimigo/loop"
	"github.com/kimigo/kimigo/osenv"
	"github.com/kimigo/kimigo/tools"
)

// runtimeHarness is the harness whose agents get what build adds to their
// options: every agent it builds, the resumed ones included, gets fresh
// subsystems.
func runtimeHarness(t *testing.T, build func(s agenttest.Setup, o *agent.Options), opts ...agenttest.Option) *agenttest.Harness {
	t.Helper()
	return agenttest.New(t, func(s agenttest.Setup) agenttest.Host {
		o := optionsFor(s)
		build(s, &o)
		return host{agent.New(o)}
	}, opts...)
}

// withReminders gives every agent the default injection manager.
func withReminders(_ agenttest.Setup, o *agent.Options) {
	o.Injection = injection.New(injection.Options{})
}

// reminders are the texts of the injected messages of variant, in order.
func reminders(h []history.Message, variant string) []string {
	var out []string
	for _, m := range h {
		if m.Origin.Is(history.OriginInjection) && m.Origin.Variant == variant {
			out = append(out, llm.ExtractText(m.Message, ""))
		}
	}
	return out
}

// injectedVariants lists the variants of the injection messages in order.
func injectedVariants(h []history.Message) []string {
	var out []string
	for _, m := range h {
		if m.Origin.Is(history.OriginInjection) {
			out = append(out, m.Origin.Variant)
		}
	}
	return out
}

// resumed is an agent built from a copy of a harness's records, on the
// harness's in-memory OS, with a model of its own: it runs turns after
// the resume.
type resumed struct {
	a     *agent.Agent
	model *agenttest.Model
	store *records.MemoryPersistence
}

func resumeWith(t *testing.T, h *agenttest.Harness, build func(agenttest.Setup, *agent.Options)) *resumed {
	t.Helper()
	return resumeRecords(t, h.Records(), h.Env(), build)
}

func resumeRecords(t *testing.T, recs []records.Record, env osenv.Env, build func(agenttest.Setup, *agent.Options)) *resumed {
	t.Helper()
	r := &resumed{model: agenttest.NewModel(t, "scripted-model"), store: records.NewMemory(records.MemoryOptions{Records: recs})}
	s := agenttest.Setup{Provider: r.model.Provider(), Capability: &llm.Capability{ToolUse: true, MaxContextTokens: 256_000},
		Env: env, Persistence: r.store,
		Loop: loop.Options{Sleep: func(context.Context, time.Duration) error { return nil }, Jitter: func() float64 { return 0 }}}
	o := optionsFor(s)
	if build != nil {
		build(s, &o)
	}
	r.a = agent.New(o)
	t.Cleanup(func() { _ = r.a.Close(context.WithoutCancel(t.Context())) })
	if _, err := r.a.Resume(t.Context(), agent.ResumeOptions{}); err != nil {
		t.Fatalf("resume: %v", err)
	}
	return r
}

func (r *resumed) Model(rs ...scripted.Response) { r.model.Add(rs...) }

func (r *resumed) prompt(t *testing.T, text string) {
	t.Helper()
	if _, err := r.a.Prompt(t.Context(), []llm.ContentPart{llm.TextPart(text)}, nil); err != nil {
		t.Fatal(err)
	}
	if res, err := r.a.WaitForCurrentTurn(t.Context()); err != nil || res.Event.Reason != "completed" {
		t.Fatalf("turn after resume: %+v, %v", res.Event, err)
	}
}

func mustComplete(t *testing.T, h *agenttest.Harness, prompt string) {
	t.Helper()
	if res := h.Prompt(prompt); res.Event.Reason != "completed" {
		t.Fatalf("turn %q ended %+v", prompt, res.Event)
	}
}

func TestS90PermissionModeReminders(t *testing.T) {
	h := runtimeHarness(t, withReminders, agenttest.Permission(permission.Options{}))
	a := agentOf(h)
	ctx := t.Context()
	count := func() int { return len(reminders(a.History(), injection.VariantPermissionMode)) }

	if err := a.SetPermissionMode(ctx, permission.ModeAuto); err != nil {
		t.Fatal(err)
	}
	h.Model(scripted.Text("one"))
	mustComplete(t, h, "first")
	got := reminders(a.History(), injection.VariantPermissionMode)
	if len(got) != 1 || !strings.HasPrefix(got[0], "<system-reminder>\nAuto permission mode is on") || !strings.Contains(got[0], "AskUserQuestion") {
		t.Fatalf("enter reminders = %q", got)
	}
	if req := h.Requests()[0]; !strings.Contains(requestText(req), "Auto permission mode is on") {
		t.Error("the first request lacks the reminder")
	}

	h.Model(scripted.Text("two"))
	mustComplete(t, h, "still auto")
	if n := count(); n != 1 {
		t.Errorf("staying in auto added reminders: %d", n)
	}

	h.Model(scripted.Text("The user asked twice; auto mode is on."))
	if err := a.Compact(ctx, ""); err != nil {
		t.Fatalf("compact: %v", err)
	}
	if got := reminders(a.History(), injection.VariantPermissionMode); len(got) != 1 || !strings.Contains(got[0], "Auto permission mode is on") {
		t.Errorf("after the compaction: %q; want the enter reminder again", got)
	}

	if err := a.SetPermissionMode(ctx, permission.ModeManual); err != nil {
		t.Fatal(err)
	}
	h.Model(scripted.Text("three"))
	mustComplete(t, h, "back to manual")
	got = reminders(a.History(), injection.VariantPermissionMode)
	if len(got) != 2 || !strings.Contains(got[1], "Auto permission mode is off") {
		t.Errorf("exit reminder = %q", got)
	}
	for _, m := range []permission.Mode{permission.ModeYolo, permission.ModeManual} {
		if err := a.SetPermissionMode(ctx, m); err != nil {
			t.Fatal(err)
		}
		h.Model(scripted.Text("ok"))
		mustComplete(t, h, "switch to "+string(m))
		if n := count(); n != 2 {
			t.Errorf("manual ↔ yolo added a reminder (%s): %d", m, n)
		}
	}
	h.ExpectResumeMatches()
}

// todoWrite is a model response that writes the todo list.
func todoWrite(id string) scripted.Response {
	return call(id, tools.NameTodoList, `{"todos":[{"title":"Fix the parser","status":"in_progress"}]}`)
}

func TestS91TodoReminderThresholds(t *testing.T) {
	h := runtimeHarness(t, withReminders, agenttest.BuiltinTools())
	a := agentOf(h)
	count := func() int { return len(reminders(a.History(), injection.VariantTodoList)) }
	turn := func(i int, rs ...scripted.Response) {
		t.Helper()
		h.Model(append(rs, scripted.Text(fmt.Sprintf("answer %d", i)))...)
		mustComplete(t, h, fmt.Sprintf("prompt %d", i))
	}
	// The write's own message does not count; its answer is the first
	// assistant message after it. A read of the list (turn 5) is one more
	// message and does not reset the count.
	turn(1, todoWrite("w1"))
	for i := 2; i <= 9; i++ {
		if i == 5 {
			turn(i, call("q1", tools.NameTodoList, `{}`))
			continue
		}
		turn(i)
	}
	if n := count(); n != 0 { // turn 9's step followed 9 messages
		t.Fatalf("reminded after 9 messages since the write: %d", n)
	}
	turn(10) // its step follows 10
	got := reminders(a.History(), injection.VariantTodoList)
	if len(got) != 1 || !strings.Contains(got[0], "Current todo list:\n1. [in_progress] Fix the parser") ||
		!strings.Contains(got[0], "never mention this reminder") {
		t.Fatalf("todo reminders = %q", got)
	}
	for i := 11; i <= 19; i++ {
		turn(i)
	}
	if n := count(); n != 1 { // turn 19's step followed 9 messages since the reminder
		t.Errorf("reminded again 9 messages after the last reminder: %d", n)
	}
	turn(20)
	if n := count(); n != 2 {
		t.Errorf("no second reminder 10 messages after the first: %d", n)
	}
	h.ExpectResumeMatches()
}

func TestTodoReminderNeedsTheTool(t *testing.T) {
	h := runtimeHarness(t, withReminders) // no tool manager: no TodoList
	for i := range 12 {
		h.Model(scripted.Text("ok"))
		mustComplete(t, h, fmt.Sprint("p", i))
	}
	if got := reminders(agentOf(h).History(), injection.VariantTodoList); len(got) != 0 {
		t.Errorf("reminded without the TodoList tool: %q", got)
	}
}

// sessionStart is the once-per-context injector of the plugin session
// start (spec 04 §8.2); kimigo has no plugins yet, so its block is fixed.
func sessionStart() *injection.OncePerContext {
	return &injection.OncePerContext{Variant: "plugin_session_start", Text: func(injection.Host) string {
		return `<plugin_session_start plugin="tidy" skill="tidy:start">Keep the tree tidy.</plugin_session_start>`
	}}
}

func TestS92OncePerContextReminder(t *testing.T) {
	build := func(_ agenttest.Setup, o *agent.Options) {
		o.Injection = injection.New(injection.Options{PerStep: append([]injection.Injector{sessionStart()}, injection.DefaultPerStep()...)})
	}
	h := runtimeHarness(t, build)
	a := agentOf(h)
	h.Model(scripted.Text("one"), scripted.Text("two"))
	mustComplete(t, h, "first")
	mustComplete(t, h, "second")
	if got := reminders(a.History(), "plugin_session_start"); len(got) != 1 || !strings.Contains(got[0], `<plugin_session_start plugin="tidy"`) {
		t.Fatalf("after two turns: %q", got)
	}
	// A replayed history that holds the block adds nothing.
	r := resumeWith(t, h, build)
	r.Model(scripted.Text("three"))
	r.prompt(t, "after resume")
	if got := reminders(r.a.History(), "plugin_session_start"); len(got) != 1 {
		t.Errorf("after resume: %d blocks", len(got))
	}
	// A compaction drops it and it comes back.
	h.Model(scripted.Text("summary"))
	if err := a.Compact(t.Context(), ""); err != nil {
		t.Fatal(err)
	}
	if got := reminders(a.History(), "plugin_session_start"); len(got) != 1 {
		t.Errorf("after compaction: %d blocks", len(got))
	}
	h.ExpectResumeMatches()
}

func TestS93MarkingUndoAndCompactionOrder(t *testing.T) {
	bg := background.New(background.Options{})
	gate := make(chan struct{})
	build := func(_ agenttest.Setup, o *agent.Options) {
		goal := &injection.OncePerContext{Variant: "goal", Text: func(injection.Host) string { return "Goal: ship the parser." }}
		o.Injection = injection.New(injection.Options{Boundary: []injection.Injector{goal}})
		o.Background = bg
	}
	h := runtimeHarness(t, build, agenttest.Permission(permission.Options{}))
	a := agentOf(h)
	ctx := t.Context()
	if err := a.SetPermissionMode(ctx, permission.ModeAuto); err != nil {
		t.Fatal(err)
	}
	h.Model(scripted.Text("one"), scripted.Text("two"))
	mustComplete(t, h, "first")
	for _, m := range a.History() {
		if m.Origin.Is(history.OriginInjection) {
			text := llm.ExtractText(m.Message, "")
			if m.Role != llm.RoleUser || !strings.HasPrefix(text, "<system-reminder>\n") || !strings.HasSuffix(text, "\n</system-reminder>") {
				t.Errorf("injected message %s: %q", m.Role, text)
			}
		}
	}
	if d := cmp.Diff([]string{"goal", "permission_mode"}, injectedVariants(a.History())); d != "" {
		t.Errorf("turn-start injections (-want +got):\n%s", d)
	}
	// Turn 2 injects the exit reminder after its prompt; undoing the turn
	// removes the prompt and the answer and keeps the reminder.
	if err := a.SetPermissionMode(ctx, permission.ModeManual); err != nil {
		t.Fatal(err)
	}
	mustComplete(t, h, "second")
	if err := a.Undo(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"goal", "permission_mode", "permission_mode"}, injectedVariants(a.History())); d != "" {
		t.Errorf("after undo (-want +got):\n%s", d)
	}
	if err := a.SetPermissionMode(ctx, permission.ModeAuto); err != nil {
		t.Fatal(err)
	}

	// A task still runs when the compaction happens.
	task, err := bg.Register(background.NewAgentTask(background.AgentSpec{Description: "index the repo", AgentID: "agent-x",
		Run: func(ctx context.Context) (string, error) {
			select {
			case <-gate:
			case <-ctx.Done():
			}
			return "", nil
		}}), background.RegisterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// The task ends when the agent closes (Close stops it, telling no
	// one), never on its own: no notification turn follows the test.
	h.Model(scripted.Text("We are shipping the parser."))
	if err := a.Compact(ctx, ""); err != nil {
		t.Fatal(err)
	}
	hist := a.History()
	if d := cmp.Diff([]string{"goal", "background_task_status", "permission_mode"}, injectedVariants(hist)); d != "" {
		t.Errorf("after compaction (-want +got):\n%s", d)
	}
	status := reminders(hist, "background_task_status")
	if len(status) != 1 || !strings.Contains(status[0], "Do not start them again") ||
		!strings.Contains(status[0], "active_background_tasks: 1\ntask_id: "+task.ID()) {
		t.Errorf("background reminder = %q", status)
	}
	// The reminders follow the summary: the first request after the
	// compaction carries them.
	if !history.IsRealUserInput(hist[0]) || hist[len(hist)-1].Origin.Variant != "permission_mode" {
		t.Errorf("history after compaction: %v", summarize(hist))
	}
}

func TestS94ResumeDoesNotRunInjectors(t *testing.T) {
	h := runtimeHarness(t, withReminders, agenttest.Permission(permission.Options{}))
	a := agentOf(h)
	if err := a.SetPermissionMode(t.Context(), permission.ModeAuto); err != nil {
		t.Fatal(err)
	}
	h.Model(scripted.Text("one"))
	mustComplete(t, h, "first")
	r := h.ExpectResumeMatches() // no record appended, same history
	if got := reminders(r.Agent.History(), injection.VariantPermissionMode); len(got) != 1 {
		t.Errorf("resumed history has %d permission reminders; want the one from the records", len(got))
	}
	n := 0
	for _, rec := range h.Records() {
		if rec.Type == records.Type(history.TypeAppendMessage) && strings.Contains(rec.String(), `"variant":"permission_mode"`) {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d reminder records; want 1", n)
	}
}
