package jsonschema

import (
	"net/netip"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// schemaFormat is a standard "format" that is asserted (spec 01 §4.10.3):
// a string of that format must pass valid. Other values are not checked,
// and unknown formats are ignored.
type schemaFormat struct {
	name  string
	valid func(string) bool
}

// lookupFormat returns the asserted format called name, or nil.
func lookupFormat(name string) *schemaFormat {
	var valid func(string) bool
	switch name {
	case "date":
		valid = validDate
	case "time":
		valid = validTime
	case "date-time":
		valid = validDateTime
	case "duration":
		valid = validDuration
	case "email":
		valid = validEmail
	case "hostname":
		valid = validHostname
	case "ipv4":
		valid = validIPv4
	case "ipv6":
		valid = validIPv6
	case "uri", "iri":
		valid = validURI
	case "uri-reference", "iri-reference":
		valid = validURIReference
	case "uri-template":
		valid = validURITemplate
	case "uuid":
		valid = validUUID
	case "regex":
		valid = validRegex
	case "json-pointer":
		valid = validJSONPointer
	case "relative-json-pointer":
		valid = validRelativeJSONPointer
	default:
		return nil
	}
	return &schemaFormat{name, valid}
}

// validDate is RFC 3339 full-date.
func validDate(s string) bool {
	_, err := time.Parse("2006-01-02", s)
	return err == nil && len(s) == 10
}

// validTime is RFC 3339 full-time: hh:mm:ss[.frac] and Z or ±hh:mm; a
// leap second is allowed at 23:59:60 UTC.
func validTime(s string) bool {
	if len(s) < 9 || s[2] != ':' || s[5] != ':' {
		return false
	}
	h, okH := digits(s[0:2])
	m, okM := digits(s[3:5])
	sec, okS := digits(s[6:8])
	if !okH || !okM || !okS || h > 23 || m > 59 || sec > 60 {
		return false
	}
	rest := s[8:]
	if strings.HasPrefix(rest, ".") {
		i := 1
		for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' {
			i++
		}
		if i == 1 {
			return false
		}
		rest = rest[i:]
	}
	offset := 0
	switch {
	case rest == "Z" || rest == "z":
	case len(rest) == 6 && (rest[0] == '+' || rest[0] == '-') && rest[3] == ':':
		oh, ok1 := digits(rest[1:3])
		om, ok2 := digits(rest[4:6])
		if !ok1 || !ok2 || oh > 23 || om > 59 {
			return false
		}
		offset = oh*60 + om
		if rest[0] == '+' {
			offset = -offset
		}
	default:
		return false
	}
	if sec == 60 { // only at 23:59:60 UTC
		utc := ((h*60+m+offset)%(24*60) + 24*60) % (24 * 60)
		return utc == 23*60+59
	}
	return true
}

func digits(s string) (int, bool) {
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0, false
		}
	}
	n, err := strconv.Atoi(s)
	return n, err == nil
}

func validDateTime(s string) bool {
	if len(s) < 11 || (s[10] != 'T' && s[10] != 't') {
		return false
	}
	return validDate(s[:10]) && validTime(s[11:])
}

// validDuration is the ISO 8601 duration of RFC 3339 appendix A.
func validDuration(s string) bool {
	s, ok := strings.CutPrefix(s, "P")
	if !ok || s == "" {
		return false
	}
	if w, ok := strings.CutSuffix(s, "W"); ok {
		_, ok := digits(w)
		return ok && w != ""
	}
	date, tm, hasT := strings.Cut(s, "T")
	if hasT && tm == "" || !durationPart(date, "YMD") || !durationPart(tm, "HMS") {
		return false
	}
	return date != "" || tm != ""
}

// durationPart checks number+unit pairs with units in order.
func durationPart(s, units string) bool {
	for s != "" {
		i := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == 0 || i == len(s) {
			return false
		}
		j := strings.IndexByte(units, s[i])
		if j < 0 {
			return false
		}
		units, s = units[j+1:], s[i+1:]
	}
	return true
}

// validEmail is the common subset of RFC 5322 addresses: a dot-atom or
// quoted local part and a host name or bracketed IP literal.
func validEmail(s string) bool {
	at := strings.LastIndexByte(s, '@')
	if len(s) > 254 || at <= 0 {
		return false
	}
	local, domain := s[:at], s[at+1:]
	if len(local) > 64 {
		return false
	}
	if len(local) > 1 && local[0] == '"' && local[len(local)-1] == '"' {
		if strings.ContainsAny(local[1:len(local)-1], `\"`) {
			return false
		}
	} else {
		if strings.HasPrefix(local, ".") || strings.HasSuffix(local, ".") || strings.Contains(local, "..") {
			return false
		}
		for _, c := range local {
			if !isAlnum(c) && !strings.ContainsRune(".!#$%&'*+-/=?^_`{|}~", c) {
				return false
			}
		}
	}
	if ip, ok := strings.CutPrefix(domain, "["); ok {
		ip, ok = strings.CutSuffix(ip, "]")
		if !ok {
			return false
		}
		if v6, ok := strings.CutPrefix(ip, "IPv6:"); ok {
			return validIPv6(v6)
		}
		return validIPv4(ip)
	}
	return validHostname(domain)
}

func isAlnum(c rune) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// validHostname is an RFC 1123 host name: dot-separated labels of 1–63
// letters, digits and inner hyphens, 253 characters at most.
func validHostname(s string) bool {
	s = strings.TrimSuffix(s, ".")
	if s == "" || len(s) > 253 {
		return false
	}
	for _, label := range strings.Split(s, ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for _, c := range label {
			if !isAlnum(c) && c != '-' {
				return false
			}
		}
	}
	return true
}

// validIPv4 is a dotted quad without leading zeros.
func validIPv4(s string) bool {
	parts := strings.Split(s, ".")
	if len(parts) != 4 {
		return false
	}
	for _, p := range parts {
		n, ok := digits(p)
		if !ok || p == "" || len(p) > 1 && p[0] == '0' || n > 255 {
			return false
		}
	}
	return true
}

func validIPv6(s string) bool {
	a, err := netip.ParseAddr(s)
	return err == nil && strings.Contains(s, ":") && a.Zone() == ""
}

func validURI(s string) bool {
	u, err := url.Parse(s)
	return err == nil && u.IsAbs() && !strings.ContainsAny(s, " \\")
}

func validURIReference(s string) bool {
	_, err := url.Parse(s)
	return err == nil && !strings.ContainsAny(s, " \\")
}

// validURITemplate checks RFC 6570 expressions are closed and not nested.
func validURITemplate(s string) bool {
	open := false
	for _, c := range s {
		switch c {
		case '{':
			if open {
				return false
			}
			open = true
		case '}':
			if !open {
				return false
			}
			open = false
		}
	}
	return !open && validURIReference(strings.NewReplacer("{", "", "}", "").Replace(s))
}

func validUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i, c := range s {
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
				return false
			}
		}
	}
	return true
}

func validRegex(s string) bool {
	_, err := regexp.Compile(s)
	return err == nil
}

// validJSONPointer is an RFC 6901 pointer: "" or "/"-prefixed tokens in
// which "~" is followed by 0 or 1.
func validJSONPointer(s string) bool {
	if s == "" {
		return true
	}
	if s[0] != '/' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] == '~' && (i+1 == len(s) || s[i+1] != '0' && s[i+1] != '1') {
			return false
		}
	}
	return true
}

// validRelativeJSONPointer is a non-negative integer followed by "#" or a
// JSON pointer.
func validRelativeJSONPointer(s string) bool {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i == 0 || i > 1 && s[0] == '0' {
		return false
	}
	return s[i:] == "#" || validJSONPointer(s[i:])
}
