package cron_test

import (
	"testing"

	"github.com/kimigo/kimigo/agent/cron"
)

func TestHuman(t *testing.T) {
	for expr, want := range map[string]string{
		"*/5 * * * *":    "every 5 minutes",
		"* * * * *":      "every minute",
		"*/1 * * * *":    "every minute",
		"15 * * * *":     "at minute 15 of every hour",
		"5 */2 * * *":    "every 2 hours at minute 05",
		"0 9 * * *":      "at 09:00 every day",
		"30 8 * * 1-5":   "at 08:30 on weekdays",
		"0 10 * * 0,6":   "at 10:00 on weekends",
		"0 10 * * 1,3":   "at 10:00 on Mon, Wed",
		"45 16 3 6 *":    "at 16:45 on day 3 of June",
		"0 9 1-7 * 1":    "0 9 1-7 * 1",
		"*/7 9-17 * * *": "*/7 9-17 * * *",
	} {
		if got := cron.Human(expr); got != want {
			t.Errorf("Human(%q) = %q; want %q", expr, got, want)
		}
	}
}
