package batch_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kimigo/kimigo/loop"
	"github.com/kimigo/kimigo/session/batch"
)

// instant is a child that is ready at once and runs for d.
func instant(d time.Duration) behaviour { return behaviour{runFor: d} }

// starts returns when each launch happened, in launch order.
func starts(ls []launch) []time.Duration {
	var out []time.Duration
	for _, l := range ls {
		out = append(out, l.at)
	}
	return out
}

func TestScenario60Ramp(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := newLauncher(func(batch.Task, int) behaviour { return instant(10 * time.Second) })
		res, err := batch.Run(t.Context(), l, items(8), batch.Options{})
		if err != nil {
			t.Fatal(err)
		}
		ms := time.Millisecond
		want := []time.Duration{0, 0, 0, 0, 0, 700 * ms, 1400 * ms, 2100 * ms}
		if d := cmp.Diff(want, starts(l.calls())); d != "" {
			t.Errorf("launch times (-want +got):\n%s", d)
		}
		for i, r := range res {
			if r.Status != batch.StatusCompleted || r.Task.Index != i+1 || r.Output != "done "+r.Task.Item || r.AgentID == "" {
				t.Errorf("result %d = %+v", i, r)
			}
		}
	})
}

func TestScenario60Cap(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := newLauncher(func(batch.Task, int) behaviour { return instant(10 * time.Second) })
		res, err := batch.Run(t.Context(), l, items(8), batch.Options{MaxConcurrency: 2})
		if err != nil {
			t.Fatal(err)
		}
		if l.peak != 2 {
			t.Errorf("peak concurrency = %d, want 2", l.peak)
		}
		if len(l.calls()) != 8 {
			t.Errorf("launches = %d, want 8", len(l.calls()))
		}
		for i, r := range res {
			if r.Status != batch.StatusCompleted || r.Task.Index != i+1 {
				t.Errorf("result %d = %+v", i, r)
			}
		}
		// Two at a time, 10 s each, four rounds: the cap paces the batch.
		if got := l.calls()[7].at; got < 30*time.Second {
			t.Errorf("8th launch at %v; with two slots it cannot start before 30s", got)
		}
	})
}

func TestScenario60CapValue(t *testing.T) {
	for _, tt := range []struct {
		raw  string
		want int
		err  string
	}{
		{"", 0, ""},
		{"  ", 0, ""},
		{"2", 2, ""},
		{" 3 ", 3, ""},
		{"abc", 0, `KIMI_CODE_AGENT_SWARM_MAX_CONCURRENCY must be a positive integer, got "abc".`},
		{"0", 0, `KIMI_CODE_AGENT_SWARM_MAX_CONCURRENCY must be a positive integer, got "0".`},
		{"-1", 0, `KIMI_CODE_AGENT_SWARM_MAX_CONCURRENCY must be a positive integer, got "-1".`},
		{"1.5", 0, `KIMI_CODE_AGENT_SWARM_MAX_CONCURRENCY must be a positive integer, got "1.5".`},
	} {
		n, err := batch.ParseMaxConcurrency(tt.raw)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if n != tt.want || got != tt.err {
			t.Errorf("ParseMaxConcurrency(%q) = %d, %q; want %d, %q", tt.raw, n, got, tt.want, tt.err)
		}
	}
}

func TestEmptyBatch(t *testing.T) {
	l := newLauncher(nil)
	res, err := batch.Run(t.Context(), l, nil, batch.Options{})
	if err != nil || res == nil || len(res) != 0 {
		t.Errorf("Run(no tasks) = %v, %v; want an empty list", res, err)
	}
}

func TestScenario62RateLimit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := newLauncher(func(task batch.Task, n int) behaviour {
			if task.Index == 2 && n == 0 {
				return behaviour{runFor: time.Second, err: rateLimit}
			}
			return instant(10 * time.Second)
		})
		res, err := batch.Run(t.Context(), l, items(3), batch.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff([]string{"agent-1"}, l.suspended); d != "" {
			t.Errorf("suspended (-want +got):\n%s", d)
		}
		calls := l.calls()
		if len(calls) != 4 {
			t.Fatalf("launches = %+v, want 3 spawns and a retry", calls)
		}
		retry := calls[3]
		if retry.method != "retry" || retry.agentID != "agent-1" || retry.index != 2 {
			t.Errorf("4th launch = %+v, want a retry of agent-1", retry)
		}
		if retry.at < time.Second+3*time.Second {
			t.Errorf("retry at %v, want no earlier than 3s after the rate limit at 1s", retry.at)
		}
		for i, r := range res {
			if r.Status != batch.StatusCompleted {
				t.Errorf("result %d = %+v", i, r)
			}
		}
		if res[1].AgentID != "agent-1" {
			t.Errorf("retried task's agent = %q", res[1].AgentID)
		}
	})
}

func TestScenario62RateLimitOnlyUnfinished(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := newLauncher(func(task batch.Task, n int) behaviour {
			if task.Index == 2 {
				return behaviour{runFor: 20 * time.Second, err: rateLimit}
			}
			return instant(time.Second)
		})
		res, err := batch.Run(t.Context(), l, items(3), batch.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if len(l.suspended) != 0 || len(l.calls()) != 3 {
			t.Errorf("suspended %v, launches %+v; the last task fails instead", l.suspended, l.calls())
		}
		want := batch.Result{Task: items(3)[1], AgentID: "agent-1", Status: batch.StatusFailed, State: batch.StateStarted,
			Error: rateLimit.Error()}
		if d := cmp.Diff(want, res[1]); d != "" {
			t.Errorf("rate-limited last task (-want +got):\n%s", d)
		}
	})
}

func TestScenario63UserCancel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := newLauncher(func(task batch.Task, n int) behaviour {
			if task.Index == 1 {
				return instant(time.Second)
			}
			return instant(10 * time.Second)
		})
		ctx, cancel := context.WithCancelCause(t.Context())
		go func() {
			time.Sleep(1500 * time.Millisecond) // the bubble's clock
			cancel(loop.ErrUserCancelled)
		}()
		res, err := batch.Run(ctx, l, items(8), batch.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if res[0].Status != batch.StatusCompleted {
			t.Errorf("finished result lost: %+v", res[0])
		}
		for _, r := range res[1:7] {
			if r.Status != batch.StatusAborted || r.State != batch.StateStarted || r.AgentID == "" ||
				r.Error != "The user manually interrupted this subagent batch before this subagent finished." {
				t.Errorf("started task %d = %+v", r.Task.Index, r)
			}
		}
		want := batch.Result{Task: items(8)[7], Status: batch.StatusAborted, State: batch.StateNotStarted,
			Error: "The user manually interrupted this subagent batch before this subagent was started."}
		if d := cmp.Diff(want, res[7]); d != "" {
			t.Errorf("unstarted task (-want +got):\n%s", d)
		}
	})
}

func TestNonUserCancelFailsBatch(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := newLauncher(func(batch.Task, int) behaviour { return instant(10 * time.Second) })
		ctx, cancel := context.WithCancelCause(t.Context())
		closing := errors.New("session closing")
		time.AfterFunc(time.Second, func() { cancel(closing) })
		res, err := batch.Run(ctx, l, items(3), batch.Options{})
		if !errors.Is(err, closing) || res != nil {
			t.Errorf("Run = %v, %v; want the batch failed with the cause", res, err)
		}
	})
}

func TestTimeoutFailsOnlyThatTask(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := newLauncher(func(task batch.Task, n int) behaviour {
			if task.Index == 2 {
				return instant(time.Hour)
			}
			return instant(10 * time.Second)
		})
		tasks := items(7)
		for i := range tasks {
			tasks[i].Timeout = time.Minute
		}
		res, err := batch.Run(t.Context(), l, tasks, batch.Options{})
		if err != nil {
			t.Fatal(err)
		}
		want := batch.Result{Task: tasks[1], AgentID: "agent-1", Status: batch.StatusFailed, State: batch.StateStarted,
			Error: "Subagent timed out."}
		if d := cmp.Diff(want, res[1]); d != "" {
			t.Errorf("timed-out task (-want +got):\n%s", d)
		}
		for i, r := range res {
			if i != 1 && r.Status != batch.StatusCompleted {
				t.Errorf("task %d = %+v", i+1, r)
			}
		}
		// The ramp was not disturbed: the 6th and 7th started at 700 ms
		// and 1 400 ms, as without a timeout.
		calls := l.calls()
		if calls[5].at != 700*time.Millisecond || calls[6].at != 1400*time.Millisecond || len(l.suspended) != 0 {
			t.Errorf("launches %+v, suspended %v", calls, l.suspended)
		}
	})
}

func TestLaunchErrorFailsNotStarted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := newLauncher(func(task batch.Task, n int) behaviour {
			if task.Index == 1 {
				return behaviour{launchErr: errors.New(`Subagent profile "writer" was not found`)}
			}
			return instant(time.Second)
		})
		res, err := batch.Run(t.Context(), l, items(2), batch.Options{})
		if err != nil {
			t.Fatal(err)
		}
		want := batch.Result{Task: items(2)[0], Status: batch.StatusFailed, State: batch.StateNotStarted,
			Error: `Subagent profile "writer" was not found`}
		if d := cmp.Diff(want, res[0]); d != "" {
			t.Errorf("failed launch (-want +got):\n%s", d)
		}
	})
}

func TestLaunchPriority(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// One slot: the queue order is what decides. Resumes come first
		// in the task list (the tool builds them so), and a rate-limited
		// task goes back to the front.
		tasks := []batch.Task{
			{Kind: batch.KindResume, ResumeAgentID: "agent-7", Index: 1, Prompt: "again"},
			{Kind: batch.KindSpawn, Profile: "coder", Index: 2, Item: "a", Prompt: "a"},
			{Kind: batch.KindSpawn, Profile: "coder", Index: 3, Item: "b", Prompt: "b"},
		}
		l := newLauncher(func(task batch.Task, n int) behaviour {
			if task.Index == 1 && n == 0 {
				return behaviour{runFor: time.Second, err: rateLimit}
			}
			return instant(time.Second)
		})
		if _, err := batch.Run(t.Context(), l, tasks, batch.Options{MaxConcurrency: 1}); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, c := range l.calls() {
			got = append(got, c.method+" "+c.agentID)
		}
		// The resume ran first; rate limited, it is retried before the
		// spawns still queued once its 3 s delay passed.
		want := []string{"resume agent-7", "retry agent-7", "spawn agent-1", "spawn agent-2"}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("launch order (-want +got):\n%s", d)
		}
	})
}

func TestRateLimitCapacity(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// Ten tasks; the first five get ready and run 60 s; the 6th is
		// rate limited before it is ready. Capacity = max(1, 5 ready) - 1
		// = 4, so nothing more launches until the running five drop
		// below four, and then one per interval.
		l := newLauncher(func(task batch.Task, n int) behaviour {
			if task.Index == 6 && n == 0 {
				return behaviour{readyAfter: -1, runFor: 100 * time.Millisecond, err: rateLimit}
			}
			return instant(60 * time.Second)
		})
		res, err := batch.Run(t.Context(), l, items(10), batch.Options{})
		if err != nil {
			t.Fatal(err)
		}
		for i, r := range res {
			if r.Status != batch.StatusCompleted {
				t.Errorf("task %d = %+v", i+1, r)
			}
		}
		calls := l.calls()
		if len(calls) != 11 {
			t.Fatalf("launches = %d, want 11", len(calls))
		}
		// The 7th launch waits for the first five to finish at 60 s
		// (active 5 ≥ capacity 4 until then).
		if calls[6].at < 60*time.Second {
			t.Errorf("first launch after the rate limit at %v; capacity 4 must hold it until 60s", calls[6].at)
		}
		if calls[6].method != "retry" {
			t.Errorf("first launch after the rate limit = %+v, want the retry (front of the queue)", calls[6])
		}
		// Later launches are spaced by the global interval: doubled once
		// for the not-ready attempt (6 s), reset to 3 s by readiness.
		for i := 7; i < len(calls); i++ {
			if gap := calls[i].at - calls[i-1].at; gap < 3*time.Second {
				t.Errorf("launch %d only %v after the previous one", i+1, gap)
			}
		}
	})
}

func TestRateLimitRecovery(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// Capacity falls to 1 and stays there while the one child runs
		// for ten minutes; after 3 quiet minutes one more slot opens and
		// the next queued task launches without waiting for the first.
		l := newLauncher(func(task batch.Task, n int) behaviour {
			if task.Index == 2 && n == 0 {
				return behaviour{runFor: time.Second, err: rateLimit}
			}
			return instant(10 * time.Minute)
		})
		res, err := batch.Run(t.Context(), l, items(3), batch.Options{MaxConcurrency: 1})
		if err != nil {
			t.Fatal(err)
		}
		for i, r := range res {
			if r.Status != batch.StatusCompleted {
				t.Errorf("task %d = %+v", i+1, r)
			}
		}
		calls := l.calls()
		// Task 1 runs alone under the cap until 10 min; task 2 then starts
		// and is rate limited a second later: capacity falls to 1, the
		// retry takes the slot 3 s later, and task 3 waits for 3 quiet
		// minutes to pass, not for the retry to finish.
		if len(calls) != 4 {
			t.Fatalf("launches %+v", calls)
		}
		rl := calls[1].at + time.Second
		if calls[2].method != "retry" || calls[2].at != rl+3*time.Second {
			t.Errorf("retry = %+v, want it at %v", calls[2], rl+3*time.Second)
		}
		if calls[3].index != 3 || calls[3].at != rl+3*time.Minute {
			t.Errorf("last launch = %+v, want task 3 at %v (3 quiet minutes after the rate limit)", calls[3], rl+3*time.Minute)
		}
	})
}

func TestTimingScalesTheRamp(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := newLauncher(func(task batch.Task, n int) behaviour {
			if task.Index == 7 && n == 0 {
				return behaviour{runFor: time.Millisecond, err: rateLimit}
			}
			return instant(50 * time.Millisecond)
		})
		timing := batch.Timing{Ramp: 7 * time.Millisecond, RetryBase: 30 * time.Millisecond}
		if _, err := batch.Run(t.Context(), l, items(7), batch.Options{Timing: timing}); err != nil {
			t.Fatal(err)
		}
		calls := l.calls()
		if calls[5].at != 7*time.Millisecond || calls[6].at != 14*time.Millisecond {
			t.Errorf("ramp with 7 ms: %+v", calls)
		}
		if calls[7].method != "retry" || calls[7].at < 15*time.Millisecond+30*time.Millisecond {
			t.Errorf("retry %+v, want it 30 ms after the rate limit", calls[7])
		}
	})
}

func TestLaunchesRunOneAfterAnother(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := newLauncher(func(batch.Task, int) behaviour {
			return behaviour{runFor: time.Second, launchFor: 100 * time.Millisecond}
		})
		if _, err := batch.Run(t.Context(), l, items(5), batch.Options{}); err != nil {
			t.Fatal(err)
		}
		var order []int
		for _, c := range l.calls() {
			order = append(order, c.index)
		}
		if d := cmp.Diff([]int{1, 2, 3, 4, 5}, order); d != "" || l.overlapped {
			t.Errorf("launch order (-want +got):\n%s; overlapped %v", d, l.overlapped)
		}
		if got := l.calls()[4].at; got != 500*time.Millisecond { // a launch is logged as it returns
			t.Errorf("5th launch returned at %v, want after the four before it and its own (500ms)", got)
		}
	})
}
