package cron_test

import (
	"testing"
	"time"
	_ "time/tzdata" // DST cases need a real zone whatever the machine has

	"github.com/kimigo/kimigo/agent/cron"
)

func at(s string) time.Time {
	t, err := time.ParseInLocation("2006-01-02 15:04", s, time.UTC)
	if err != nil {
		panic(err)
	}
	return t
}

func TestNext(t *testing.T) {
	for _, tt := range []struct {
		expr, from, want string
	}{
		{"*/5 * * * *", "2026-03-02 10:02", "2026-03-02 10:05"},
		{"*/5 * * * *", "2026-03-02 10:05", "2026-03-02 10:10"}, // strictly after
		{"* * * * *", "2026-03-02 23:59", "2026-03-03 00:00"},
		{"0 9 * * *", "2026-03-02 09:00", "2026-03-03 09:00"},
		{"30 14 * * 1-5", "2026-03-06 15:00", "2026-03-09 14:30"}, // Friday → Monday
		{"0 0 1 1 *", "2026-03-02 10:00", "2027-01-01 00:00"},
		{"0 0 29 2 *", "2026-03-02 10:00", "2028-02-29 00:00"},
		{"5/20 * * * *", "2026-03-02 10:00", "2026-03-02 10:05"},
		{"0 12 * * 7", "2026-03-02 10:00", "2026-03-08 12:00"}, // 7 is Sunday
		// Vixie: both day fields restricted — either matches.
		{"0 0 13 * 5", "2026-03-02 10:00", "2026-03-06 00:00"},
		{"0 0 */10 * 1", "2026-03-02 10:00", "2026-03-09 00:00"}, // */10 counts as restricted
		// One bare "*": only the other constrains.
		{"0 0 13 * *", "2026-03-02 10:00", "2026-03-13 00:00"},
		{"0 0 * * 5", "2026-03-02 10:00", "2026-03-06 00:00"},
	} {
		e, err := cron.Parse(tt.expr)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := e.Next(at(tt.from))
		if !ok || !got.Equal(at(tt.want)) {
			t.Errorf("Next(%q, %s) = %v, %v; want %s", tt.expr, tt.from, got, ok, tt.want)
		}
	}
}

func TestNextNeverFires(t *testing.T) {
	e, _ := cron.Parse("0 0 31 2 *")
	if got, ok := e.Next(at("2026-03-02 10:00")); ok {
		t.Errorf("0 0 31 2 * fires at %v", got)
	}
	e, _ = cron.Parse("0 0 30 2 *")
	if _, ok := e.Next(at("2026-03-02 10:00")); ok {
		t.Error("0 0 30 2 * fires")
	}
}

func TestNextAcrossDaylightSaving(t *testing.T) {
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	// 2026-03-08: 02:00 EST jumps to 03:00 EDT, so 02:30 does not exist
	// that day; the next 02:30 is the day after.
	e, _ := cron.Parse("30 2 * * *")
	from := time.Date(2026, 3, 8, 1, 0, 0, 0, ny)
	got, ok := e.Next(from)
	if !ok || got.Day() != 9 || got.Hour() != 2 || got.Minute() != 30 {
		t.Errorf("Next over the gap = %v", got)
	}
	// Every 30 minutes through the fall-back hour keeps moving forward.
	e, _ = cron.Parse("*/30 * * * *")
	cur := time.Date(2026, 11, 1, 0, 10, 0, 0, ny)
	for range 8 {
		next, ok := e.Next(cur)
		if !ok || !next.After(cur) {
			t.Fatalf("Next(%v) = %v went back", cur, next)
		}
		cur = next
	}
}
