package cron_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/kimigo/kimigo/agent/cron"
	"github.com/kimigo/kimigo/tools"
)

// BenchmarkTick1000Jobs is one scheduler tick over 1,000 jobs of assorted
// schedules, the clock moving a second per tick and every fire recorded
// as delivered: the steady state of an idle agent (about one tick in 300
// finds the */5 jobs due).
//
//	go test -run '^$' -bench Tick1000 ./agent/cron
func BenchmarkTick1000Jobs(b *testing.B) {
	s := cron.NewScheduler()
	now := time.Date(2026, 6, 1, 10, 2, 0, 0, time.UTC)
	jobs := thousandJobs(now)
	s.Due(now, jobs) // the first tick computes and caches every due time
	for b.Loop() {
		now = now.Add(time.Second)
		for _, f := range s.Due(now, jobs) {
			s.Fired(f)
		}
	}
}

// BenchmarkTick1000JobsCold is the first tick after a resume: every due
// time is computed.
func BenchmarkTick1000JobsCold(b *testing.B) {
	now := time.Date(2026, 6, 1, 10, 2, 0, 0, time.UTC)
	jobs := thousandJobs(now)
	for b.Loop() {
		s := cron.NewScheduler()
		s.Due(now, jobs)
	}
}

// BenchmarkManagerTick1000Jobs is Manager.Tick, locking included, over
// 1,000 jobs loaded from disk (the per-session cap applies to CronCreate,
// not to what a store holds), at a moment when none is due.
func BenchmarkManagerTick1000Jobs(b *testing.B) {
	now := time.Date(2026, 6, 1, 10, 2, 0, 0, time.UTC)
	dir := b.TempDir()
	for i, j := range thousandJobs(now) {
		writeFileAt(b, fmt.Sprintf("%s/cron/%08x.json", dir, i), fmt.Sprintf(
			`{"id":"%08x","cron":%q,"prompt":"p","createdAt":%d,"recurring":true}`, i, j.Cron, j.CreatedAt.UnixMilli()))
	}
	clock := now
	m := cron.New(cron.Options{Dir: dir, ManualTick: true, Location: time.UTC, Now: func() time.Time { return clock }})
	if problems := m.Load(); len(problems) != 0 || m.Count() != 1000 {
		b.Fatal(problems, m.Count())
	}
	m.Bind(&agentSide{})
	m.Tick()
	for b.Loop() {
		m.Tick()
	}
	_ = tools.CronMaxJobs
}

func thousandJobs(now time.Time) []cron.Job {
	exprs := []string{"*/5 * * * *", "0 9 * * 1-5", "30 14 * * *", "0 0 1 * *", "15 */2 * * *", "0 12 * * 0", "45 23 31 12 *"}
	jobs := make([]cron.Job, 1000)
	for i := range jobs {
		jobs[i] = cron.Job{ID: fmt.Sprintf("%08x", i*4099), Cron: exprs[i%len(exprs)], Prompt: "p",
			CreatedAt: now.Add(-time.Duration(i) * time.Second), Recurring: true}
	}
	return jobs
}
