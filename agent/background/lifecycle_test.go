package background_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kimigo/kimigo/agent/background"
	"github.com/kimigo/kimigo/agent/history"
	"github.com/kimigo/kimigo/tools"
)

func TestTaskCompletesAndNotifiesOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m, r := newManager(t, background.Options{})
		g := newGated(true)
		h := mustRegister(t, m, background.NewAgentTask(g.spec("review the diff")), background.RegisterOptions{})
		g.finish("looks good")
		<-h.Done()
		synctest.Wait()
		info := wantStatus(t, m, h.ID(), tools.TaskCompleted)
		if info.EndedAt == nil || !info.Detached || info.Kind != tools.TaskKindAgent {
			t.Errorf("info = %+v", info)
		}
		steers := r.steers()
		if len(steers) != 1 {
			t.Fatalf("%d notifications; want 1", len(steers))
		}
		want := `<notification id="task:` + h.ID() + `:completed" category="task" type="task.completed" source_kind="background_task" source_id="` + h.ID() + `" agent_id="agent-child001">
Title: Background agent completed
Severity: info
review the diff completed.
<output-preview bytes="10" total_bytes="10" truncated="false">
No complete log was saved; this is all the output held in memory.
looks good
</output-preview>
</notification>`
		if got := textOf(steers[0]); got != want {
			t.Errorf("notification:\n%s\nwant:\n%s", got, want)
		}
		o := steers[0].Origin
		if !o.Is(history.OriginBackgroundTask) || o.TaskID != h.ID() || o.Status != "completed" || o.NotificationID != "task:"+h.ID()+":completed" {
			t.Errorf("origin = %+v", o)
		}
		if got := r.eventTypes(); len(got) != 2 || got[0] != "background.task.started" || got[1] != "background.task.terminated" {
			t.Errorf("events = %v", got)
		}
	})
}

func TestDeadlineTimesOut(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m, r := newManager(t, background.Options{})
		g := newGated(true)
		h := mustRegister(t, m, background.NewAgentTask(g.spec("slow job")), background.RegisterOptions{Timeout: time.Minute})
		time.Sleep(59 * time.Second)
		synctest.Wait()
		wantStatus(t, m, h.ID(), tools.TaskRunning)
		time.Sleep(time.Second)
		<-h.Done()
		info := wantStatus(t, m, h.ID(), tools.TaskTimedOut)
		if info.StopReason != "" || info.TimeoutMs != 60000 {
			t.Errorf("info = %+v", info)
		}
		synctest.Wait()
		if s := r.steers(); len(s) != 1 || textOf(s[0]) == "" {
			t.Fatalf("steers = %v", s)
		} else {
			contains(t, textOf(s[0]), `type="task.timed_out"`, "Severity: warning", "slow job timed out.",
				"Agent(resume=\"agent-child001\"")
		}
	})
}

func TestStopWaitsTheGraceThenGivesUp(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m, r := newManager(t, background.Options{KillGrace: 5 * time.Second})
		g := newGated(false) // ignores its stop signal
		h := mustRegister(t, m, background.NewAgentTask(g.spec("stubborn")), background.RegisterOptions{})
		start := time.Now()
		info, ok, err := m.Stop(t.Context(), h.ID(), "")
		if err != nil || !ok {
			t.Fatalf("stop = %v, %v", ok, err)
		}
		if d := time.Since(start); d != 5*time.Second {
			t.Errorf("stop took %v; want the 5 s grace", d)
		}
		if info.Status != tools.TaskKilled || info.StopReason != "Stopped by TaskStop" || !info.TerminalNotificationSuppressed {
			t.Errorf("info = %+v", info)
		}
		g.finish("late") // its goroutine still ends
		synctest.Wait()
		if s := r.steers(); len(s) != 0 {
			t.Errorf("a stopped task notified: %v", s)
		}
	})
}

func TestForegroundMovesToTheBackgroundAtItsDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m, r := newManager(t, background.Options{})
		g := newGated(true)
		var seen []string
		h := mustRegister(t, m, background.NewAgentTask(g.spec("build")), background.RegisterOptions{
			Foreground: true, Signal: t.Context(), Timeout: 2 * time.Second, AutoBackground: true,
			DetachTimeout: 10 * time.Second, OnOutput: func(p []byte) { seen = append(seen, string(p)) }})
		if got := m.List(true); len(got) != 1 || got[0].Detached {
			t.Fatalf("foreground list = %+v", got)
		}
		<-h.Released()
		rel := h.Release()
		if rel.Kind != tools.ReleaseTimeoutDetached || !rel.Info.Detached || rel.Info.Status != tools.TaskRunning {
			t.Fatalf("release = %+v", rel)
		}
		// The detach timeout is armed from the move.
		time.Sleep(9 * time.Second)
		synctest.Wait()
		wantStatus(t, m, h.ID(), tools.TaskRunning)
		time.Sleep(time.Second)
		<-h.Done()
		wantStatus(t, m, h.ID(), tools.TaskTimedOut)
		synctest.Wait()
		if s := r.steers(); len(s) != 1 {
			t.Errorf("%d notifications for a detached task; want 1", len(s))
		}
	})
}

func TestForegroundWithoutAutoBackgroundTimesOut(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m, r := newManager(t, background.Options{})
		g := newGated(true)
		h := mustRegister(t, m, background.NewAgentTask(g.spec("fg")), background.RegisterOptions{
			Foreground: true, Signal: t.Context(), Timeout: 2 * time.Second})
		<-h.Released()
		if rel := h.Release(); rel.Kind != tools.ReleaseTerminal || rel.Info.Status != tools.TaskTimedOut || rel.Info.Detached {
			t.Fatalf("release = %+v", rel)
		}
		synctest.Wait()
		if s := r.steers(); len(s) != 0 {
			t.Errorf("a foreground task notified: %v", s)
		}
		if got := m.List(false); len(got) != 0 {
			t.Errorf("a finished foreground task is listed: %+v", got)
		}
	})
}

func TestForegroundCallEndStopsTheTask(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m, _ := newManager(t, background.Options{})
		g := newGated(true)
		ctx, cancel := context.WithCancel(t.Context())
		h := mustRegister(t, m, background.NewAgentTask(g.spec("fg")), background.RegisterOptions{Foreground: true, Signal: ctx})
		cancel()
		<-h.Done()
		info := wantStatus(t, m, h.ID(), tools.TaskKilled)
		if info.StopReason != "Interrupted by user" {
			t.Errorf("reason = %q", info.StopReason)
		}
	})
}

func TestUserDetach(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m, r := newManager(t, background.Options{})
		g := newGated(true)
		detached := false
		spec := g.spec("fg")
		spec.OnDetach = func() { detached = true }
		h := mustRegister(t, m, background.NewAgentTask(spec), background.RegisterOptions{Foreground: true, Signal: t.Context()})
		h.Detach()
		<-h.Released()
		if rel := h.Release(); rel.Kind != tools.ReleaseDetached || !detached {
			t.Fatalf("release = %+v, OnDetach called %v", rel, detached)
		}
		g.fail("boom")
		<-h.Done()
		info := wantStatus(t, m, h.ID(), tools.TaskFailed)
		if info.StopReason != "boom" {
			t.Errorf("reason = %q", info.StopReason)
		}
		synctest.Wait()
		if s := r.steers(); len(s) != 1 {
			t.Fatalf("steers = %d", len(s))
		} else {
			contains(t, textOf(s[0]), "fg failed: boom.")
		}
	})
}

func TestRunningTaskCap(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m, _ := newManager(t, background.Options{MaxRunning: 1})
		g := newGated(true)
		h := mustRegister(t, m, background.NewAgentTask(g.spec("one")), background.RegisterOptions{})
		if _, err := m.Register(background.NewAgentTask(newGated(true).spec("two")), background.RegisterOptions{}); !errors.Is(err, background.ErrTooManyTasks) {
			t.Fatalf("second background task: %v; want ErrTooManyTasks", err)
		}
		if err := background.ErrTooManyTasks; err.Error() != "Too many background tasks are already running." {
			t.Errorf("message = %q", err)
		}
		fg := newGated(true)
		f := mustRegister(t, m, background.NewAgentTask(fg.spec("fg")), background.RegisterOptions{Foreground: true, Signal: t.Context()})
		fg.finish("")
		<-f.Done()
		g.finish("")
		<-h.Done()
		h2 := mustRegister(t, m, background.NewAgentTask(newGated(true).spec("three")), background.RegisterOptions{})
		if _, _, err := m.Stop(t.Context(), h2.ID(), "enough"); err != nil {
			t.Fatal(err)
		}
	})
}

func TestQuestionTask(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m, r := newManager(t, background.Options{})
		id, err := m.StartQuestion(t.Context(), tools.BackgroundQuestion{Description: "Pick a color", QuestionCount: 2, ToolCallID: "call-7",
			Ask: func(context.Context) (loopResult, error) { return okResult(`{"answers":{"q":"red"}}`), nil }})
		if err != nil {
			t.Fatal(err)
		}
		info, _ := m.Wait(t.Context(), id.ID)
		if info.Status != tools.TaskCompleted || info.QuestionCount != 2 || info.ToolCallID != "call-7" || info.Kind != tools.TaskKindQuestion {
			t.Errorf("info = %+v", info)
		}
		synctest.Wait()
		if s := r.steers(); len(s) != 1 {
			t.Fatalf("steers = %d", len(s))
		} else {
			contains(t, textOf(s[0]), "Title: Background question completed", `{&quot;answers&quot;:{&quot;q&quot;:&quot;red&quot;}}`)
		}
		failed, _ := m.StartQuestion(t.Context(), tools.BackgroundQuestion{Description: "x",
			Ask: func(context.Context) (loopResult, error) { return errResult("  client gone  "), nil }})
		if info, _ := m.Wait(t.Context(), failed.ID); info.Status != tools.TaskFailed || info.StopReason != "client gone" {
			t.Errorf("failed question = %+v", info)
		}
	})
}
