package batch_test

import (
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kimigo/kimigo/session/batch"
)

// FuzzRun drives batches of children that succeed, fail, hit rate limits
// (ready or not), never get ready or fail to launch, with and without a
// cap and timeouts, and checks what every batch must keep: it ends; one
// result per task, in input order; a completed task names its child and
// a task never launched names none; the children's outcomes are what the
// script said, except a rate limit, which the scheduler retries until it
// is the last task left.
func FuzzRun(f *testing.F) {
	f.Add([]byte{0, 0, 0, 0, 0, 0, 0, 0})
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})
	f.Add([]byte{3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3})
	f.Add([]byte{2, 0x13, 0x23, 0x33, 0x43, 0x53, 0x63})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 2 || len(data) > 40 {
			return
		}
		maxConc := int(data[0] % 4) // 0: no cap
		timeout := time.Duration(data[1]%3) * 20 * time.Second
		script := data[2:]
		synctest.Test(t, func(t *testing.T) {
			l := newLauncher(func(task batch.Task, n int) behaviour {
				b := script[task.Index-1]
				run := time.Duration(b>>4+1) * time.Second
				switch b % 6 {
				case 1:
					return behaviour{runFor: run, err: errors.New("boom")}
				case 2:
					if n < int(b>>4)%3+1 {
						return behaviour{runFor: run, err: rateLimit}
					}
				case 3:
					if n == 0 {
						return behaviour{readyAfter: -1, runFor: run, err: rateLimit}
					}
				case 4:
					return behaviour{launchErr: errors.New("no such profile")}
				case 5:
					return behaviour{readyAfter: -1, runFor: run}
				}
				return instant(run)
			})
			tasks := items(len(script))
			for i := range tasks {
				tasks[i].Timeout = timeout
			}
			res, err := batch.Run(t.Context(), l, tasks, batch.Options{MaxConcurrency: maxConc})
			if err != nil {
				t.Fatal(err)
			}
			if len(res) != len(tasks) {
				t.Fatalf("%d results for %d tasks", len(res), len(tasks))
			}
			for i, r := range res {
				if r.Task.Index != i+1 {
					t.Fatalf("result %d is task %d", i, r.Task.Index)
				}
				switch kind := script[i] % 6; {
				case r.Status == batch.StatusCompleted && r.AgentID == "":
					t.Errorf("task %d completed without a child", i+1)
				case kind == 4 && (r.Status != batch.StatusFailed || r.State != batch.StateNotStarted || r.AgentID != ""):
					t.Errorf("task %d failed to launch: %+v", i+1, r)
				case kind == 1 && r.Status == batch.StatusCompleted:
					t.Errorf("task %d should have failed: %+v", i+1, r)
				case (kind == 0 || kind == 5) && timeout == 0 && r.Status != batch.StatusCompleted:
					t.Errorf("task %d should have completed: %+v", i+1, r)
				case r.Status == batch.StatusAborted:
					t.Errorf("task %d aborted without a cancellation: %+v", i+1, r)
				}
			}
		})
	})
}
