package cron

import (
	"strconv"
	"time"
)

// Jitter limits (spec 05 §7.3).
const (
	jitterPeriodFraction = 0.1
	jitterRecurringMax   = 15 * time.Minute
	jitterOneShotMax     = 90 * time.Second
)

// Fraction is a job's fixed place in [0, 1): an 8-hex-digit id read as a
// number over 2^32, any other id through a djb2 hash. It spreads jobs
// that share a schedule, and never changes between runs.
func Fraction(id string) float64 {
	if len(id) == 8 {
		if n, err := strconv.ParseUint(id, 16, 32); err == nil {
			return float64(n) / (1 << 32)
		}
	}
	var h uint32 = 5381
	for _, c := range id {
		h = h*33 + uint32(c)
	}
	return float64(h) / (1 << 32)
}

// jitterRecurring delays a recurring fire by up to a tenth of its period,
// at most 15 minutes; never earlier than ideal.
func jitterRecurring(e *Expr, id string, ideal time.Time) time.Time {
	period := 24 * time.Hour
	if n, ok := e.Next(ideal); ok && n.After(ideal) {
		period = n.Sub(ideal)
	}
	limit := min(time.Duration(float64(period)*jitterPeriodFraction), jitterRecurringMax)
	if limit <= 0 {
		return ideal
	}
	return ideal.Add(time.Duration(float64(limit) * Fraction(id)))
}

// jitterOneShot moves a one-shot fire on :00 or :30 up to 90 s earlier,
// never before the job was created; other minutes fire exactly.
func jitterOneShot(id string, created, ideal time.Time) time.Time {
	if ideal.Second() != 0 || ideal.Nanosecond() != 0 || (ideal.Minute() != 0 && ideal.Minute() != 30) {
		return ideal
	}
	at := ideal.Add(-time.Duration(float64(jitterOneShotMax) * Fraction(id)))
	if at.Before(created) {
		return ideal
	}
	return at
}
