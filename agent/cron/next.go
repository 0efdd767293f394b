package cron

import (
	"math/bits"
	"time"
)

// SearchWindow is how far Next looks for a fire (spec 05 §7.2): an
// expression with no fire in it (0 0 31 2 *) never fires.
const SearchWindow = 5 * 366 * 24 * time.Hour

// iterationCap bounds Next's loop whatever the calendar does.
const iterationCap = 10_000_000

// Next returns the first minute strictly after from that e matches, in
// from's location (local-calendar arithmetic, so daylight saving moves
// fires the way a wall clock does); ok is false when none comes within
// SearchWindow. Mismatched months, days and hours are skipped whole.
func (e *Expr) Next(from time.Time) (time.Time, bool) {
	loc := from.Location()
	limit := from.Add(SearchWindow)
	y, mo, d := from.Date()
	t := later(from, time.Date(y, mo, d, from.Hour(), from.Minute()+1, 0, 0, loc))
	for range iterationCap {
		if t.After(limit) {
			return time.Time{}, false
		}
		y, mo, d = t.Date()
		h, mi := t.Hour(), t.Minute()
		var nt time.Time
		switch {
		case e.months&(1<<mo) == 0:
			nt = time.Date(y, mo+1, 1, 0, 0, 0, 0, loc)
		case !e.dayMatches(d, t.Weekday()):
			nt = time.Date(y, mo, d+1, 0, 0, 0, 0, loc)
		case e.hours&(1<<h) == 0:
			if nh := nextBit(uint64(e.hours), h+1); nh >= 0 {
				nt = time.Date(y, mo, d, nh, 0, 0, 0, loc)
			} else {
				nt = time.Date(y, mo, d+1, 0, 0, 0, 0, loc)
			}
		case e.minutes&(1<<mi) == 0:
			if nm := nextBit(e.minutes, mi+1); nm >= 0 {
				nt = time.Date(y, mo, d, h, nm, 0, 0, loc)
			} else {
				nt = time.Date(y, mo, d, h+1, 0, 0, 0, loc)
			}
		default:
			return t, true
		}
		t = later(t, nt)
	}
	return time.Time{}, false
}

// later returns next when it lies after cur, else the minute after cur:
// around a daylight-saving change a wall-clock time can map before cur,
// and the search must never go back.
func later(cur, next time.Time) time.Time {
	if next.After(cur) {
		return next
	}
	return cur.Truncate(time.Minute).Add(time.Minute)
}

// dayMatches applies the day rule: with both day fields restricted either
// may match; with one a bare "*", only the other constrains.
func (e *Expr) dayMatches(day int, wd time.Weekday) bool {
	dom := e.days&(1<<day) != 0
	dow := e.weekday&(1<<wd) != 0
	if e.dayRestricted && e.weekdayRestricted {
		return dom || dow
	}
	return dom && dow
}

// nextBit is the lowest set bit of set at or above from, or -1.
func nextBit(set uint64, from int) int {
	if from >= 64 {
		return -1
	}
	rest := set >> from
	if rest == 0 {
		return -1
	}
	return from + bits.TrailingZeros64(rest)
}
