package cron

import (
	"fmt"
	"strconv"
	"strings"
)

// Field names a field of a cron expression, as errors name it.
type Field string

// The five fields, in order.
const (
	FieldMinute     Field = "minute"
	FieldHour       Field = "hour"
	FieldDayOfMonth Field = "day-of-month"
	FieldMonth      Field = "month"
	FieldDayOfWeek  Field = "day-of-week"
)

// fields are the five fields with their ranges (day-of-week 7 is Sunday,
// folded to 0).
var fields = [5]struct {
	name     Field
	min, max int
}{
	{FieldMinute, 0, 59}, {FieldHour, 0, 23}, {FieldDayOfMonth, 1, 31}, {FieldMonth, 1, 12}, {FieldDayOfWeek, 0, 7},
}

// Error is a malformed expression. Field is the offending field, "" when
// the expression as a whole is wrong (empty, the wrong number of fields).
type Error struct {
	Field Field
	Msg   string
}

func (e *Error) Error() string { return e.Msg }

// Expr is a parsed five-field cron expression (spec 05 §7.1), evaluated in
// local time. Each field is a bit set of the values it matches. It is
// immutable and safe for concurrent use.
type Expr struct {
	src     string
	minutes uint64
	hours   uint32
	days    uint32 // bit d for day d (1–31)
	months  uint16 // bit m for month m (1–12)
	weekday uint8  // bit w for weekday w (0 = Sunday)
	// dayRestricted and weekdayRestricted: the field is not a bare "*".
	// When both are, a day matches if either matches (the Vixie rule).
	dayRestricted, weekdayRestricted bool
}

// String is the expression as parsed (whitespace-normalised).
func (e *Expr) String() string { return e.src }

// Normalize trims an expression and collapses its whitespace runs to one
// space.
func Normalize(s string) string { return strings.Join(strings.Fields(s), " ") }

// Parse parses a five-field cron expression: minute, hour, day of month,
// month and day of week; each a comma list of "*", "N" or "A-B", each
// optionally "/S". Names, "?", "L" and "#" are not supported, nor is a
// seconds field. Errors are *Error values whose message names the field.
func Parse(s string) (*Expr, error) {
	s = Normalize(s)
	if s == "" {
		return nil, &Error{Msg: "cron expression is empty"}
	}
	parts := strings.Split(s, " ")
	if len(parts) != 5 {
		msg := fmt.Sprintf("cron expression must have exactly 5 fields (minute hour day-of-month month day-of-week); got %d", len(parts))
		if len(parts) == 6 {
			msg += " (there is no seconds field: the finest schedule is once a minute)"
		}
		return nil, &Error{Msg: msg}
	}
	e := &Expr{src: s}
	var sets [5]uint64
	for i, f := range fields {
		set, err := parseField(parts[i], f.name, f.min, f.max)
		if err != nil {
			return nil, err
		}
		sets[i] = set
	}
	e.minutes, e.hours, e.days, e.months = sets[0], uint32(sets[1]), uint32(sets[2]), uint16(sets[3])
	dow := sets[4]
	if dow&(1<<7) != 0 {
		dow = dow&^(1<<7) | 1
	}
	e.weekday = uint8(dow)
	e.dayRestricted, e.weekdayRestricted = parts[2] != "*", parts[4] != "*"
	return e, nil
}

func parseField(s string, name Field, lo, hi int) (uint64, error) {
	if s == "" {
		return 0, &Error{Field: name, Msg: fmt.Sprintf("cron %s field is empty", name)}
	}
	var set uint64
	for _, term := range strings.Split(s, ",") {
		if term == "" {
			return 0, &Error{Field: name, Msg: fmt.Sprintf("cron %s field has empty term in list", name)}
		}
		t, err := parseTerm(term, name, lo, hi)
		if err != nil {
			return 0, err
		}
		set |= t
	}
	if set == 0 {
		return 0, &Error{Field: name, Msg: fmt.Sprintf("cron %s field matches no values", name)}
	}
	return set, nil
}

func parseTerm(term string, name Field, min, max int) (uint64, error) {
	fail := func(format string, args ...any) (uint64, error) {
		return 0, &Error{Field: name, Msg: fmt.Sprintf("cron %s "+format, append([]any{name}, args...)...)}
	}
	rng, stepStr, hasStep := strings.Cut(term, "/")
	step := 1
	if hasStep {
		if stepStr == "" {
			return fail("step is empty in %q", term)
		}
		n, ok := digits(stepStr)
		if !ok {
			return fail("step must be a non-negative integer with digits only (got %q)", stepStr)
		}
		if n <= 0 {
			return fail("step must be a positive integer (got %q)", stepStr)
		}
		step = n
		if rng == "" {
			return fail("step needs a range or \"*\" before \"/\" in %q", term)
		}
	}
	var lo, hi int
	switch a, b, isRange := strings.Cut(rng, "-"); {
	case rng == "*":
		lo, hi = min, max
	case !isRange:
		v, ok := digits(rng)
		if !ok {
			return fail("value must be a non-negative integer with digits only (got %q)", rng)
		}
		if v < min || v > max {
			return fail("value %s out of range %d..%d", rng, min, max)
		}
		lo, hi = v, v
		if hasStep { // "N/S" means N-max/S
			hi = max
		}
	default:
		var okA, okB bool
		if lo, okA = digits(a); !okA {
			return fail("range lower bound must be a non-negative integer with digits only (got %q)", a)
		}
		if hi, okB = digits(b); !okB {
			return fail("range upper bound must be a non-negative integer with digits only (got %q)", b)
		}
		if lo < min || hi > max || lo > hi {
			return fail("range %s-%s out of bounds (must be %d..%d, ascending)", a, b, min, max)
		}
	}
	var set uint64
	for v := lo; v <= hi; v += step {
		set |= 1 << v
	}
	return set, nil
}

// digits parses a string of ASCII digits only: no sign, no spaces, no
// hex or exponent. A value too large for any field saturates, so it is
// reported out of range.
func digits(s string) (int, bool) {
	if s == "" {
		return 0, false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
	}
	n, err := strconv.Atoi(s)
	if err != nil || n > 1<<20 {
		n = 1 << 20
	}
	return n, true
}
