package cron_test

import (
	"errors"
	"testing"

	"github.com/kimigo/kimigo/agent/cron"
)

func TestParseErrorsNameTheField(t *testing.T) {
	for _, tt := range []struct {
		expr, msg string
		field     cron.Field
	}{
		{"", "cron expression is empty", ""},
		{"   ", "cron expression is empty", ""},
		{"* * * *", "cron expression must have exactly 5 fields (minute hour day-of-month month day-of-week); got 4", ""},
		{"* * * * * *", "cron expression must have exactly 5 fields (minute hour day-of-month month day-of-week); got 6 (there is no seconds field: the finest schedule is once a minute)", ""},
		{"60 * * * *", "cron minute value 60 out of range 0..59", cron.FieldMinute},
		{"* 24 * * *", "cron hour value 24 out of range 0..23", cron.FieldHour},
		{"* * 0 * *", "cron day-of-month value 0 out of range 1..31", cron.FieldDayOfMonth},
		{"* * * 13 *", "cron month value 13 out of range 1..12", cron.FieldMonth},
		{"* * * * 8", "cron day-of-week value 8 out of range 0..7", cron.FieldDayOfWeek},
		{"1,,2 * * * *", "cron minute field has empty term in list", cron.FieldMinute},
		{"*/ * * * *", `cron minute step is empty in "*/"`, cron.FieldMinute},
		{"*/0 * * * *", `cron minute step must be a positive integer (got "0")`, cron.FieldMinute},
		{"/5 * * * *", `cron minute step needs a range or "*" before "/" in "/5"`, cron.FieldMinute},
		{"* +1 * * *", `cron hour value must be a non-negative integer with digits only (got "+1")`, cron.FieldHour},
		{"* * * JAN *", `cron month value must be a non-negative integer with digits only (got "JAN")`, cron.FieldMonth},
		{"* * * * MON", `cron day-of-week value must be a non-negative integer with digits only (got "MON")`, cron.FieldDayOfWeek},
		{"* * ? * *", `cron day-of-month value must be a non-negative integer with digits only (got "?")`, cron.FieldDayOfMonth},
		{"0x10 * * * *", `cron minute value must be a non-negative integer with digits only (got "0x10")`, cron.FieldMinute},
		{"5-2 * * * *", "cron minute range 5-2 out of bounds (must be 0..59, ascending)", cron.FieldMinute},
		{"a-2 * * * *", `cron minute range lower bound must be a non-negative integer with digits only (got "a")`, cron.FieldMinute},
		{"1-b * * * *", `cron minute range upper bound must be a non-negative integer with digits only (got "b")`, cron.FieldMinute},
		{"*/x * * * *", `cron minute step must be a non-negative integer with digits only (got "x")`, cron.FieldMinute},
		{"99999999999999 * * * *", "cron minute value 99999999999999 out of range 0..59", cron.FieldMinute},
	} {
		t.Run(tt.expr, func(t *testing.T) {
			_, err := cron.Parse(tt.expr)
			var ce *cron.Error
			if !errors.As(err, &ce) || err.Error() != tt.msg || ce.Field != tt.field {
				t.Errorf("Parse(%q) = %v; want %q (field %q)", tt.expr, err, tt.msg, tt.field)
			}
		})
	}
}

func TestParseNormalises(t *testing.T) {
	e, err := cron.Parse("  */5   *  * *\t* ")
	if err != nil || e.String() != "*/5 * * * *" {
		t.Errorf("Parse = %v, %v", e, err)
	}
	for _, ok := range []string{"0 0 1 1 0", "0-59/15 0-23 1-31 1-12 0-7", "5/10 * * * 7", "1,2,3 4 5 6 1-5"} {
		if _, err := cron.Parse(ok); err != nil {
			t.Errorf("Parse(%q): %v", ok, err)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"*/5 * * * *", "0 9 * * 1-5", "60 * * * *", "1,,2 * * * *", "5/ * * * *", "0 0 31 2 *"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		e, err := cron.Parse(s)
		if err != nil {
			var ce *cron.Error
			if !errors.As(err, &ce) || ce.Msg == "" {
				t.Fatalf("Parse(%q) error %v is not a *cron.Error", s, err)
			}
			return
		}
		if _, err := cron.Parse(e.String()); err != nil {
			t.Fatalf("the normalised form %q of %q does not parse: %v", e.String(), s, err)
		}
	})
}
