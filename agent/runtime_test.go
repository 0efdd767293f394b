package agent_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kimigo/kimigo/agent"
	"github.com/kimigo/kimigo/agent/agenttest"
	"github.com/kimigo/kimigo/agent/background"
	"github.com/kimigo/kimigo/agent/cron"
	"github.com/kimigo/kimigo/agent/history"
	"github.com/kimigo/kimigo/agent/records"
	"github.com/kimigo/kimigo/agent/turn"
	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/llm/scripted"
	"github.com/kimigo/kimigo/osenv"
	"github.com/kimigo/kimigo/tools"
)

// bgRig is an agent whose Bash runs real processes in a temporary
// workspace, through a background manager persisting under the agent's
// home.
type bgRig struct {
	h         *agenttest.Harness
	a         *agent.Agent
	bg        *background.Manager
	ws, home  string
	localEnv  osenv.Env
	buildOpts func(agenttest.Setup, *agent.Options)
}

func newBgRig(t *testing.T, opts ...agenttest.Option) *bgRig {
	t.Helper()
	root := t.TempDir()
	r := &bgRig{ws: filepath.Join(root, "ws"), home: filepath.Join(root, "agents", "main")}
	for _, d := range []string{r.ws, r.home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	r.localEnv = osenv.NewLocal(osenv.LocalOptions{Cwd: r.ws, Home: root, Environ: []string{"PATH=" + os.Getenv("PATH")}})
	r.bg = background.New(background.Options{Dir: r.home})
	r.buildOpts = func(_ agenttest.Setup, o *agent.Options) {
		bg := r.bg
		o.Background = bg
		o.NewToolManager = func(c tools.StoreCommitter) *tools.Manager {
			return tools.New(tools.Options{Base: tools.Base{Env: r.localEnv}, Committer: c, Background: bg})
		}
	}
	r.h = runtimeHarness(t, r.buildOpts, opts...)
	r.a = agentOf(r.h)
	return r
}

// bgCall starts command in the background.
func bgCall(id, command, desc string) scripted.Response {
	b, _ := json.Marshal(map[string]any{"command": command, "run_in_background": true, "description": desc})
	return call(id, tools.NameBash, string(b))
}

// waitUntil polls cond: real processes and files end on their own time.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// terminated reports whether a task terminated event was published: the
// manager publishes it after the notification was steered.
func terminated(h *agenttest.Harness) bool {
	for _, ev := range h.Events() {
		if _, ok := ev.(event.TaskTerminated); ok {
			return true
		}
	}
	return false
}

// waitGo is a command that ends when the file go appears, printing hi.
const waitGo = `while [ ! -e go ]; do sleep 0.01; done; echo hi`

func (r *bgRig) release(t *testing.T) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(r.ws, "go"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
}

var notificationHead = regexp.MustCompile(`^<notification id="task:(bash-[0-9a-z]{8}):completed" category="task" type="task\.completed" source_kind="background_task" source_id="(bash-[0-9a-z]{8})">\nTitle: Background process completed\nSeverity: info\nwait for go completed\.\n<output-file path="([^"]+)" bytes="3">\n`)

// checkNotification checks the S38 notification message.
func checkNotification(t *testing.T, r *bgRig, m llm.Message) {
	t.Helper()
	text := llm.ExtractText(m, "")
	g := notificationHead.FindStringSubmatch(text)
	if m.Role != llm.RoleUser || g == nil || g[1] != g[2] || g[3] != filepath.Join(r.home, "tasks", g[1], "output.log") {
		t.Errorf("notification message %s:\n%s", m.Role, text)
	}
}

func TestS38aNotificationStartsATurnWhenIdle(t *testing.T) {
	hooks := &agenttest.Hooks{}
	r := newBgRig(t, agenttest.HookRunner(hooks))
	r.h.Model(bgCall("c1", waitGo, "wait for go"), scripted.Text("Started it."), scripted.Text("It finished."))
	mustComplete(t, r.h, "start the job")
	if r.a.HasActiveTurn() || len(r.h.Requests()) != 2 {
		t.Fatalf("requests %d", len(r.h.Requests()))
	}
	r.release(t)
	waitUntil(t, "the notification's turn", func() bool { return len(r.h.Requests()) == 3 })
	if res := r.h.Wait(); res.Event.Reason != event.EndCompleted {
		t.Fatalf("notification turn: %+v", res.Event)
	}
	req := r.h.Requests()[2]
	checkNotification(t, r, req.Messages[len(req.Messages)-1])
	hist := r.a.History()
	n := hist[len(hist)-2]
	if !n.Origin.Is(history.OriginBackgroundTask) || n.Origin.Status != "completed" {
		t.Errorf("history origin = %+v", n.Origin)
	}
	if len(recordStrings(r.h, turn.TypeSteer)) != 1 {
		t.Errorf("steer records: %v", recordStrings(r.h, turn.TypeSteer))
	}
	// The hook is fired once the notification is in, not awaited: the
	// turn it started may end first.
	waitUntil(t, "the Notification hook", func() bool { return len(hooks.Calls(agent.HookNotification)) > 0 })
	calls := hooks.Calls(agent.HookNotification)
	if len(calls) != 1 || calls[0].Awaited || calls[0].Matcher != "task.completed" || calls[0].Input["sink"] != "context" ||
		calls[0].Input["title"] != "Background process completed" || calls[0].Input["body"] != "wait for go completed." {
		t.Errorf("Notification hook calls = %+v", calls)
	}
}

func TestS38bNotificationWaitsForTheToolExchange(t *testing.T) {
	r := newBgRig(t)
	r.h.Model(bgCall("c1", waitGo, "wait for go"))
	hold := r.h.Held(call("c2", tools.NameBash, `{"command":"echo second"}`), 1)
	r.h.Model(scripted.Text("Both done."))
	r.h.Start("run them")
	<-hold.Reached()
	r.release(t)
	waitUntil(t, "the notification to be steered", func() bool { return terminated(r.h) })
	hold.Release()
	if res := r.h.Wait(); res.Event.Reason != event.EndCompleted {
		t.Fatalf("turn: %+v", res.Event)
	}
	reqs := r.h.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests; want 3", len(reqs))
	}
	msgs := reqs[2].Messages
	if len(msgs) < 3 || msgs[len(msgs)-2].Role != llm.RoleTool || msgs[len(msgs)-2].ToolCallID != "c2" {
		t.Fatalf("step 3 request tail: %v", msgs)
	}
	checkNotification(t, r, msgs[len(msgs)-1])
	for _, m := range reqs[1].Messages {
		if strings.Contains(llm.ExtractText(m, ""), "<notification") {
			t.Error("the notification reached the step that was streaming")
		}
	}
}

func TestS38cNotificationContinuesAFinishedTurn(t *testing.T) {
	r := newBgRig(t)
	r.h.Model(bgCall("c1", waitGo, "wait for go"))
	hold := r.h.Held(scripted.Text("All done, as far as I know."), 1)
	r.h.Model(scripted.Text("The background job finished too."))
	r.h.Start("run it")
	<-hold.Reached()
	r.release(t)
	waitUntil(t, "the notification to be steered", func() bool { return terminated(r.h) })
	hold.Release()
	if res := r.h.Wait(); res.Event.Reason != event.EndCompleted {
		t.Fatalf("turn: %+v", res.Event)
	}
	reqs := r.h.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests; want the turn to continue for a third", len(reqs))
	}
	msgs := reqs[2].Messages
	checkNotification(t, r, msgs[len(msgs)-1])
	if r.a.CurrentTurnID() != 0 {
		t.Errorf("turn id %d; want the same turn", r.a.CurrentTurnID())
	}
}

func TestS35ForegroundTimeoutThroughTheAgent(t *testing.T) {
	r := newBgRig(t)
	r.h.Model(call("c1", tools.NameBash, `{"command":"sleep 2; echo done","timeout":1}`), scripted.Text("It moved to the background."),
		scripted.Text("It is done now."))
	mustComplete(t, r.h, "run the slow command")
	res := r.a.History()[2]
	text := llm.ExtractText(res.Message, "")
	if res.Role != llm.RoleTool || !strings.Contains(text, "task_id: bash-") || !strings.Contains(text, "status: running") ||
		!strings.Contains(text, "automatic_notification: true") {
		t.Fatalf("tool result: %q", text)
	}
	waitUntil(t, "the completion's turn", func() bool { return len(r.h.Requests()) == 3 })
	r.h.Wait()
	last := r.h.Requests()[2].Messages
	if got := llm.ExtractText(last[len(last)-1], ""); !strings.Contains(got, `type="task.completed"`) || !strings.Contains(got, "Bash: sleep 2; echo done completed.") {
		t.Errorf("notification: %q", got)
	}
}

// appended lists the records a resume appended.
func appended(r *resumed, before int) []records.Record { return r.store.Records()[before:] }

func TestS57AndS45ResumeDeliversWhatHistoryLacks(t *testing.T) {
	r := newBgRig(t)
	// A task whose notification reached history, before a compaction.
	// It ends after the turn that started it, so its notification starts
	// the next turn (a task done before the second step's request has
	// its notification in that request instead).
	r.h.Model(bgCall("c1", waitGo, "say hi"), scripted.Text("Started."), scripted.Text("It said hi."))
	mustComplete(t, r.h, "say hi in the background")
	r.release(t)
	waitUntil(t, "the notification's turn", func() bool { return len(r.h.Requests()) == 3 })
	r.h.Wait()
	r.h.Model(scripted.Text("We said hi."))
	if err := r.a.Compact(t.Context(), ""); err != nil {
		t.Fatal(err)
	}
	// What the tasks dir holds besides: one finished task never told, one
	// that was running when kimigo stopped.
	end := time.Now().UnixMilli()
	for _, info := range []tools.TaskInfo{
		{TaskID: "bash-untold01", Description: "build", Status: tools.TaskFailed, Detached: true, StartedAt: 1, EndedAt: &end,
			Kind: tools.TaskKindProcess, Command: "make"},
		{TaskID: "bash-running1", Description: "serve", Status: tools.TaskRunning, Detached: true, StartedAt: 2,
			Kind: tools.TaskKindProcess, Command: "serve"},
	} {
		b, _ := json.Marshal(info)
		if err := os.WriteFile(filepath.Join(r.home, "tasks", info.TaskID+".json"), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	recs := r.h.Records()
	fresh := background.New(background.Options{Dir: r.home})
	res := resumeRecords(t, recs, r.h.Env(), func(s agenttest.Setup, o *agent.Options) { o.Background = fresh })
	var got []string
	for _, rec := range appended(res, len(recs)) {
		if rec.Type == turn.TypeSteer || rec.Type == turn.TypePrompt {
			t.Errorf("the resume started a turn: %s", rec)
		}
		if rec.Type == records.Type(history.TypeAppendMessage) {
			got = append(got, rec.String())
		}
	}
	if len(got) != 2 || !strings.Contains(got[0], `"taskId":"bash-untold01","status":"failed"`) ||
		!strings.Contains(got[1], `"taskId":"bash-running1","status":"lost"`) {
		t.Errorf("appended notifications:\n%s", strings.Join(got, "\n"))
	}
	if res.a.HasActiveTurn() {
		t.Error("a turn runs after the resume")
	}
	lost, _ := fresh.Get("bash-running1")
	if lost.Status != tools.TaskLost {
		t.Errorf("running task after resume = %+v", lost)
	}
	b, _ := os.ReadFile(filepath.Join(r.home, "tasks", "bash-running1.json"))
	if !strings.Contains(string(b), `"status": "lost"`) {
		t.Errorf("record on disk: %s", b)
	}
	// A second resume delivers nothing more.
	res2 := resumeRecords(t, res.store.Records(), r.h.Env(), func(s agenttest.Setup, o *agent.Options) {
		o.Background = background.New(background.Options{Dir: r.home})
	})
	if extra := appended(res2, len(res.store.Records())); len(extra) != 0 {
		t.Errorf("second resume appended %d records", len(extra))
	}
}

func TestCronJobFiresAtTheNextIdleTick(t *testing.T) {
	clock := &testClock{t: time.Date(2026, 6, 1, 10, 2, 0, 0, time.UTC)}
	c := cron.New(cron.Options{ManualTick: true, Location: time.UTC, Now: clock.Now})
	build := func(_ agenttest.Setup, o *agent.Options) {
		o.Cron = c
		o.NewToolManager = func(cm tools.StoreCommitter) *tools.Manager {
			return tools.New(tools.Options{Base: tools.Base{Env: osenv.NewLocal(osenv.LocalOptions{})}, Committer: cm, Cron: c})
		}
	}
	h := runtimeHarness(t, build)
	a := agentOf(h)
	h.Model(call("c1", tools.NameCronCreate, `{"cron":"* * * * *","prompt":"check the build"}`), scripted.Text("Scheduled."))
	mustComplete(t, h, "check the build every minute")
	if out := llm.ExtractText(a.History()[2].Message, ""); !strings.HasPrefix(out, "id: ") {
		t.Fatalf("CronCreate result: %q", out)
	}
	// A turn runs across the fire time: the tick leaves the job due.
	hold := h.Held(scripted.Text("busy"), 1)
	h.Start("something else")
	<-hold.Reached()
	clock.Add(2*time.Minute + 30*time.Second)
	c.Tick()
	if n := len(h.Requests()); n != 3 {
		t.Errorf("a fire reached a running turn: %d requests", n)
	}
	hold.Release()
	h.Wait()
	h.Model(scripted.Text("Checked the build."))
	c.Tick()
	if !a.HasActiveTurn() && len(h.Requests()) < 4 {
		t.Fatal("the idle tick started no turn")
	}
	if res := h.Wait(); res.Event.Reason != event.EndCompleted {
		t.Fatalf("cron turn: %+v", res.Event)
	}
	msgs := h.Requests()[3].Messages
	fire := msgs[len(msgs)-1]
	text := llm.ExtractText(fire, "")
	if !strings.HasPrefix(text, `<cron-fire jobId="`) || !strings.Contains(text, `coalescedCount="2"`) || !strings.Contains(text, "<prompt>\ncheck the build\n</prompt>") {
		t.Errorf("fire message: %q", text)
	}
	hist := a.History()
	for _, m := range hist {
		if m.Origin.Is(history.OriginCronJob) && m.Origin.CoalescedCount != 2 {
			t.Errorf("cron origin = %+v", m.Origin)
		}
	}
}

// testClock is the cron manager's clock, moved by the test.
type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *testClock) Add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}
