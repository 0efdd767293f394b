package cron

import (
	"fmt"
	"strings"
)

var (
	weekdayNames = [7]string{"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"}
	monthNames   = [13]string{"", "January", "February", "March", "April", "May", "June", "July",
		"August", "September", "October", "November", "December"}
)

// Human says a schedule in words for the common shapes ("every 5
// minutes", "at 09:00 on weekdays"); any other expression is returned as
// it is.
func Human(expr string) string {
	expr = Normalize(expr)
	f := strings.Split(expr, " ")
	if len(f) != 5 {
		return expr
	}
	min, hour, dom, mon, dow := f[0], f[1], f[2], f[3], f[4]
	rest := func(fs ...string) bool {
		for _, s := range fs {
			if s != "*" {
				return false
			}
		}
		return true
	}
	m, minOK := number(min, 59)
	h, hourOK := number(hour, 23)
	switch {
	case min == "*" && rest(hour, dom, mon, dow):
		return "every minute"
	case strings.HasPrefix(min, "*/") && rest(hour, dom, mon, dow):
		if n, ok := number(min[2:], 59); ok && n >= 1 {
			if n == 1 {
				return "every minute"
			}
			return fmt.Sprintf("every %d minutes", n)
		}
	case minOK && rest(hour, dom, mon, dow):
		return fmt.Sprintf("at minute %d of every hour", m)
	case minOK && strings.HasPrefix(hour, "*/") && rest(dom, mon, dow):
		if n, ok := number(hour[2:], 23); ok && n >= 1 {
			if n == 1 {
				return fmt.Sprintf("every hour at minute %02d", m)
			}
			return fmt.Sprintf("every %d hours at minute %02d", n, m)
		}
	case minOK && hourOK && rest(dom, mon):
		at := fmt.Sprintf("at %02d:%02d", h, m)
		if dow == "*" {
			return at + " every day"
		}
		if days, ok := weekdays(dow); ok {
			return at + " on " + days
		}
	case minOK && hourOK && dow == "*":
		d, dOK := number(dom, 31)
		mo, moOK := number(mon, 12)
		if dOK && moOK && d >= 1 && mo >= 1 {
			return fmt.Sprintf("at %02d:%02d on day %d of %s", h, m, d, monthNames[mo])
		}
	}
	return expr
}

// weekdays names a day-of-week field of single days or one range.
func weekdays(s string) (string, bool) {
	switch s {
	case "1-5":
		return "weekdays", true
	case "0,6", "6,0", "6,7", "6-7":
		return "weekends", true
	}
	var names []string
	for _, t := range strings.Split(s, ",") {
		n, ok := number(t, 7)
		if !ok {
			return "", false
		}
		names = append(names, weekdayNames[n%7])
	}
	return strings.Join(names, ", "), true
}

func number(s string, max int) (int, bool) {
	n, ok := digits(s)
	if !ok || n > max {
		return 0, false
	}
	return n, true
}
