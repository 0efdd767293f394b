package cron_test

import (
	"testing"
	"time"

	"github.com/kimigo/kimigo/agent/cron"
)

func TestS68JitterIsDeterministicPerJob(t *testing.T) {
	if f := cron.Fraction("80000000"); f != 0.5 {
		t.Fatalf("Fraction(80000000) = %v", f)
	}
	if a, b := cron.Fraction("not-hex!"), cron.Fraction("not-hex!"); a != b || a < 0 || a >= 1 {
		t.Errorf("hash fraction %v, %v", a, b)
	}
	created := at("2026-03-02 08:00")
	for _, tt := range []struct {
		expr      string
		recurring bool
		want      string
	}{
		{"*/5 * * * *", true, "2026-03-02 08:05:15"},
		{"0 9 * * *", true, "2026-03-02 09:07:30"},
		{"0 14 2 3 *", false, "2026-03-02 13:59:15"},
		{"7 14 2 3 *", false, "2026-03-02 14:07:00"},
	} {
		s := cron.NewScheduler()
		j := cron.Job{ID: "80000000", Cron: tt.expr, CreatedAt: created, Recurring: tt.recurring}
		got, ok := s.NextFire(j, created)
		want, _ := time.ParseInLocation("2006-01-02 15:04:05", tt.want, time.UTC)
		if !ok || !got.Equal(want) {
			t.Errorf("%s (recurring %v) fires at %v; want %v", tt.expr, tt.recurring, got, want)
		}
	}
	// A one-shot created 30 s before its :00 fire never fires before it
	// was created.
	s := cron.NewScheduler()
	j := cron.Job{ID: "80000000", Cron: "0 14 2 3 *", CreatedAt: at("2026-03-02 13:59").Add(30 * time.Second)}
	if got, _ := s.NextFire(j, j.CreatedAt); !got.Equal(at("2026-03-02 14:00")) {
		t.Errorf("late one-shot fires at %v", got)
	}
}
