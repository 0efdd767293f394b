package cron_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kimigo/kimigo/agent/cron"
	"github.com/kimigo/kimigo/agent/history"
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/loop"
	"github.com/kimigo/kimigo/tools"
)

// agentSide is the agent as the cron manager sees it in unit tests: an
// idle flag the test sets and the fires steered. The agent's own tests
// run the manager inside a real agent.
type agentSide struct {
	busy  atomic.Bool
	mu    sync.Mutex
	fires []history.Message
	fail  error
}

func (a *agentSide) Idle() bool { return !a.busy.Load() }

func (a *agentSide) Steer(_ context.Context, parts []llm.ContentPart, o *history.Origin) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.fail != nil {
		return a.fail
	}
	a.fires = append(a.fires, history.Message{Message: llm.Message{Role: llm.RoleUser, Content: parts}, Origin: o})
	return nil
}

func (a *agentSide) Publish(cron.Event) {}

func (a *agentSide) got() []history.Message {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]history.Message(nil), a.fires...)
}

// zone is the local time of the scenarios: a fixed +02:00 offset.
var zone = time.FixedZone("CEST", 2*3600)

// clockAt returns a Now that reads wall as the bubble's start and moves
// with the bubble's fake time.
func clockAt(wall time.Time) func() time.Time {
	start := time.Now()
	return func() time.Time { return wall.Add(time.Since(start)) }
}

type cronRig struct {
	m                    *cron.Manager
	a                    *agentSide
	dir                  string
	create, list, delete loop.ExecutableTool
}

func newCronRig(t *testing.T, wall time.Time, o cron.Options) *cronRig {
	t.Helper()
	if o.Dir == "" {
		o.Dir = t.TempDir()
	}
	o.Location, o.Now = zone, clockAt(wall)
	m := cron.New(o)
	a := &agentSide{}
	m.Bind(a)
	m.Start()
	t.Cleanup(func() {
		if err := m.Close(context.WithoutCancel(t.Context())); err != nil {
			t.Error(err)
		}
	})
	return &cronRig{m: m, a: a, dir: o.Dir, create: tools.NewCronCreate(m), list: tools.NewCronList(m), delete: tools.NewCronDelete(m)}
}

func call(t *testing.T, tool loop.ExecutableTool, raw string) loop.ToolResult {
	t.Helper()
	exec, res, err := tool.ResolveExecution(json.RawMessage(raw))
	if err != nil {
		t.Fatal(err)
	}
	if res != nil {
		return *res
	}
	out, err := exec.Execute(t.Context(), loop.ExecCtx{OnUpdate: func(loop.ProgressUpdate) {}, OnForegroundTaskStart: func(string) {}})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func local(day, clock string) time.Time {
	t, err := time.ParseInLocation("2006-01-02 15:04:05", day+" "+clock, zone)
	if err != nil {
		panic(err)
	}
	return t
}

var idLine = regexp.MustCompile(`(?m)^id: ([0-9a-f]{8})$`)

func jobID(t *testing.T, out string) string {
	t.Helper()
	m := idLine.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no id in %q", out)
	}
	return m[1]
}

func TestS64Create(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newCronRig(t, local("2026-06-01", "10:02:00"), cron.Options{NoJitter: true})
		res := call(t, r.create, `{"cron":"*/5  *  * * *","prompt":"check CI"}`)
		id := jobID(t, res.Output.Text())
		want := "id: " + id + "\ncron: */5 * * * *\nhumanSchedule: every 5 minutes\nrecurring: true\nnextFireAt: 2026-06-01T10:05:00.000+02:00"
		if res.IsError || res.Output.Text() != want || res.Message != "Scheduled cron "+id {
			t.Errorf("result = %q (%q)", res.Output.Text(), res.Message)
		}
		b, err := os.ReadFile(filepath.Join(r.dir, "cron", id+".json"))
		if err != nil || !strings.Contains(string(b), `"prompt": "check CI"`) {
			t.Errorf("job file = %s, %v", b, err)
		}
		exec, _, _ := r.create.ResolveExecution(json.RawMessage(`{"cron":"*/5 * * * *","prompt":"check CI"}`))
		if exec.ApprovalRule != `CronCreate(\{"cron":"\*/5 \* \* \* \*","prompt":"check CI","recurring":true\})` || exec.Description != "Scheduling cron */5 * * * *" {
			t.Errorf("rule %q, description %q", exec.ApprovalRule, exec.Description)
		}
	})
}

func TestS65BadInputIsRefusedBeforeApproval(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newCronRig(t, local("2026-06-01", "10:02:00"), cron.Options{})
		for _, tt := range []struct{ args, want string }{
			{`{"cron":"60 * * * *","prompt":"x"}`, "Invalid cron expression: cron minute value 60 out of range 0..59"},
			{`{"cron":"0 0 31 2 *","prompt":"x"}`, `Cron expression "0 0 31 2 *" has no fire within 5 years; refusing to schedule.`},
			{`{"cron":"* * * * * *","prompt":"x"}`, "Invalid cron expression: cron expression must have exactly 5 fields (minute hour day-of-month month day-of-week); got 6 (there is no seconds field: the finest schedule is once a minute)"},
			{`{"cron":"*/5 * * * *","prompt":"` + strings.Repeat("汉", 3000) + `"}`, "Prompt exceeds 8192 bytes (got 9000)."},
			{`{"cron":"0 9 31 5 *","prompt":"x","recurring":false}`, "A one-off job with \"0 9 31 5 *\" would first fire at 2027-05-31T09:00:00.000+02:00"},
		} {
			exec, res, err := r.create.ResolveExecution(json.RawMessage(tt.args))
			if err != nil || res == nil || exec.Execute != nil || !res.IsError || !strings.HasPrefix(res.Output.Text(), tt.want) {
				t.Errorf("%s → %v %v; want an immediate error %q", tt.args, res, err, tt.want)
			}
		}
		for range tools.CronMaxJobs {
			if res := call(t, r.create, `{"cron":"*/5 * * * *","prompt":"x"}`); res.IsError {
				t.Fatal(res.Output.Text())
			}
		}
		_, res, _ := r.create.ResolveExecution(json.RawMessage(`{"cron":"*/5 * * * *","prompt":"x"}`))
		if res == nil || res.Output.Text() != "Cron job cap reached (max 50 per session)." {
			t.Errorf("51st = %v", res)
		}
		off := cron.New(cron.Options{Disabled: true})
		_, res, _ = tools.NewCronCreate(off).ResolveExecution(json.RawMessage(`{"cron":"*/5 * * * *","prompt":"x"}`))
		if res == nil || res.Output.Text() != "Cron scheduling is disabled (KIMI_DISABLE_CRON=1)." {
			t.Errorf("disabled = %v", res)
		}
	})
}

func TestS66FiresOnlyWhenIdleAndCoalesces(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newCronRig(t, local("2026-06-01", "10:02:00"), cron.Options{})
		id := jobID(t, call(t, r.create, `{"cron":"*/5 * * * *","prompt":"check CI"}`).Output.Text())
		time.Sleep(2 * time.Minute) // 10:04: a turn starts
		r.a.busy.Store(true)
		time.Sleep(8 * time.Minute) // until 10:12
		synctest.Wait()
		if f := r.a.got(); len(f) != 0 {
			t.Fatalf("fired during a turn: %v", f)
		}
		r.a.busy.Store(false)
		time.Sleep(time.Second)
		synctest.Wait()
		fires := r.a.got()
		if len(fires) != 1 {
			t.Fatalf("%d fires at the first idle tick; want 1", len(fires))
		}
		o := fires[0].Origin
		if !o.Is(history.OriginCronJob) || o.JobID != id || o.CoalescedCount != 2 || !o.Recurring || o.Stale || o.Cron != "*/5 * * * *" {
			t.Errorf("origin = %+v", o)
		}
		want := `<cron-fire jobId="` + id + `" cron="*/5 * * * *" recurring="true" coalescedCount="2" stale="false">` + "\n<prompt>\ncheck CI\n</prompt>\n</cron-fire>"
		if got := llm.ExtractText(fires[0].Message, ""); got != want {
			t.Errorf("envelope:\n%s\nwant:\n%s", got, want)
		}
		jobs := r.m.List()
		if len(jobs) != 1 || jobs[0].NextFire.Before(local("2026-06-01", "10:15:00")) || jobs[0].NextFire.After(local("2026-06-01", "10:15:30")) {
			t.Errorf("next fire = %v; want 10:15 (+ up to 30 s)", jobs[0].NextFire)
		}
	})
}

func TestS67OneShot(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newCronRig(t, local("2026-06-01", "10:02:00"), cron.Options{})
		id := jobID(t, call(t, r.create, `{"cron":"30 10 1 6 *","prompt":"stand-up","recurring":false}`).Output.Text())
		time.Sleep(26 * time.Minute) // 10:28: not yet (at most 90 s early)
		synctest.Wait()
		if f := r.a.got(); len(f) != 0 {
			t.Fatalf("fired early: %v", f)
		}
		time.Sleep(3 * time.Minute)
		synctest.Wait()
		if f := r.a.got(); len(f) != 1 || f[0].Origin.Recurring {
			t.Fatalf("fires = %v", f)
		}
		if got := call(t, r.list, `{}`).Output.Text(); got != "cron_jobs: 0\nNo cron jobs scheduled." {
			t.Errorf("list after the one-shot = %q", got)
		}
		if res := call(t, r.delete, `{"id":"`+id+`"}`); !res.IsError || res.Output.Text() != "No cron job with id "+id+"." {
			t.Errorf("delete = %q", res.Output.Text())
		}
		if _, err := os.Stat(filepath.Join(r.dir, "cron", id+".json")); !os.IsNotExist(err) {
			t.Errorf("one-shot file left: %v", err)
		}
	})
}

func TestS69StaleJobFiresOnceMoreThenGoes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := t.TempDir()
		created := local("2026-05-25", "10:00:00")
		writeJob(t, dir, `{"id":"a1b2c3d4","cron":"*/5 * * * *","prompt":"poll","createdAt":`+ms(created)+`,"recurring":true,"lastFiredAt":`+ms(local("2026-06-01", "09:55:00"))+`}`)
		r := newCronRig(t, local("2026-06-01", "10:02:00"), cron.Options{Dir: dir, NoJitter: true})
		r.m.Load()
		if got := call(t, r.list, `{}`).Output.Text(); !strings.Contains(got, "stale: true") || !strings.Contains(got, "ageDays: 7.00") {
			t.Errorf("list = %q", got)
		}
		time.Sleep(3 * time.Minute)
		synctest.Wait()
		f := r.a.got()
		if len(f) != 1 || !f[0].Origin.Stale || !strings.Contains(llm.ExtractText(f[0].Message, ""), `stale="true"`) {
			t.Fatalf("fires = %v", f)
		}
		if got := call(t, r.list, `{}`).Output.Text(); got != "cron_jobs: 0\nNo cron jobs scheduled." {
			t.Errorf("list after the stale fire = %q", got)
		}
	})
}

func TestS70ResumeDoesNotReplayDeliveredFires(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := t.TempDir()
		writeJob(t, dir, `{"id":"0badcafe","cron":"*/5 * * * *","prompt":"p","createdAt":`+ms(local("2026-06-01", "09:00:00"))+`,"lastFiredAt":`+ms(local("2026-06-01", "10:10:00"))+`}`)
		r := newCronRig(t, local("2026-06-01", "10:12:00"), cron.Options{Dir: dir, NoJitter: true})
		if problems := r.m.Load(); len(problems) != 0 {
			t.Fatal(problems)
		}
		time.Sleep(2*time.Minute + 30*time.Second) // 10:14:30
		synctest.Wait()
		if f := r.a.got(); len(f) != 0 {
			t.Fatalf("replayed fires: %v", f)
		}
		time.Sleep(time.Minute)
		synctest.Wait()
		if f := r.a.got(); len(f) != 1 || f[0].Origin.CoalescedCount != 1 {
			t.Fatalf("fires = %v", f)
		}
		b, _ := os.ReadFile(filepath.Join(dir, "cron", "0badcafe.json"))
		if !strings.Contains(string(b), `"lastFiredAt": `+ms(local("2026-06-01", "10:15:00"))) {
			t.Errorf("the fire was not recorded: %s", b)
		}
	})
}

func TestS71ListAndDelete(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newCronRig(t, local("2026-06-01", "10:02:00"), cron.Options{NoJitter: true})
		prompt := strings.Repeat("é", 150) // 300 bytes
		id := jobID(t, call(t, r.create, `{"cron":"0 9 * * 1-5","prompt":"`+prompt+`"}`).Output.Text())
		got := call(t, r.list, `{}`).Output.Text()
		want := "cron_jobs: 1\nid: " + id + "\ncron: 0 9 * * 1-5\nhumanSchedule: at 09:00 on weekdays\nprompt: \"" +
			strings.Repeat("é", 100) + "…(truncated)\"\nnextFireAt: 2026-06-02T09:00:00.000+02:00\nrecurring: true\nageDays: 0.00\nstale: false"
		if got != want {
			t.Errorf("list:\n%s\nwant:\n%s", got, want)
		}
		if res := call(t, r.delete, `{"id":"XYZ"}`); !res.IsError || res.Output.Text() != `Invalid cron job id "XYZ" — must be 8 lowercase hex characters.` {
			t.Errorf("bad id = %q", res.Output.Text())
		}
		if res := call(t, r.delete, `{"id":"`+id+`"}`); res.IsError || res.Output.Text() != "Deleted cron job "+id+"." {
			t.Errorf("delete = %q", res.Output.Text())
		}
		if _, err := os.Stat(filepath.Join(r.dir, "cron", id+".json")); !os.IsNotExist(err) {
			t.Errorf("file left after delete: %v", err)
		}
	})
}

func TestFailedDeliveryStaysDue(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newCronRig(t, local("2026-06-01", "10:02:00"), cron.Options{NoJitter: true})
		call(t, r.create, `{"cron":"*/5 * * * *","prompt":"x"}`)
		r.a.mu.Lock()
		r.a.fail = errors.New("disk full")
		r.a.mu.Unlock()
		time.Sleep(4 * time.Minute)
		synctest.Wait()
		r.a.mu.Lock()
		r.a.fail = nil
		r.a.mu.Unlock()
		time.Sleep(time.Second)
		synctest.Wait()
		if f := r.a.got(); len(f) != 1 || f[0].Origin.CoalescedCount != 1 {
			t.Errorf("fires after the failure = %v", f)
		}
	})
}

func TestHandEditedCronDirIsReported(t *testing.T) {
	dir := t.TempDir()
	writeJob(t, dir, `{"id":"deadbeef","cron":"*/5 * * * *","prompt":"ok","createdAt":1}`)
	writeFileAt(t, filepath.Join(dir, "cron", "00000001.json"), "{broken")
	writeFileAt(t, filepath.Join(dir, "cron", "0000000g.json"), "{}")
	writeFileAt(t, filepath.Join(dir, "cron", "00000002.json"), `{"id":"00000002","cron":"61 * * * *","prompt":"x","createdAt":1}`)
	m := cron.New(cron.Options{Dir: dir})
	problems := m.Load()
	var all []string
	for _, p := range problems {
		all = append(all, p.Error())
	}
	s := strings.Join(all, "\n")
	for _, want := range []string{"00000001.json: not a job record", `0000000g.json: "0000000g" is not a job id`, "00000002.json: invalid cron expression: cron minute value 61"} {
		if !strings.Contains(s, want) {
			t.Errorf("missing %q in:\n%s", want, s)
		}
	}
	if m.Count() != 1 {
		t.Errorf("%d jobs loaded; want the one valid job", m.Count())
	}
}

func ms(t time.Time) string { return strings.TrimSpace(string(must(json.Marshal(t.UnixMilli())))) }

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func writeJob(t *testing.T, dir, content string) {
	t.Helper()
	var r struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal([]byte(content), &r); err != nil {
		t.Fatal(err)
	}
	writeFileAt(t, filepath.Join(dir, "cron", r.ID+".json"), content)
}

func writeFileAt(t testing.TB, p, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}
