package workspace

import (
	"net/netip"
	"strconv"
	"strings"
)

// LegacyIPv4 reads host the way URL parsers of browsers and C resolvers
// (inet_aton) read an IPv4 address: when its last label is a number, the
// host is an address of one to four parts, each decimal, octal (leading
// 0) or hexadecimal (0x), the last part filling the remaining bytes, so
// 2130706433, 0x7f.1 and 0177.0.0.1 are all 127.0.0.1. numeric is false
// for a host whose last label is not a number (a name); for a numeric
// host that is no address, addr is the zero Addr. A trailing dot is
// ignored.
func LegacyIPv4(host string) (addr netip.Addr, numeric bool) {
	labels := strings.Split(strings.TrimSuffix(host, "."), ".")
	if _, ok := ipv4Part(labels[len(labels)-1]); !ok && !isNumberLabel(labels[len(labels)-1]) {
		return netip.Addr{}, false
	}
	if len(labels) > 4 {
		return netip.Addr{}, true
	}
	var v uint64
	for i, l := range labels {
		n, ok := ipv4Part(l)
		if !ok {
			return netip.Addr{}, true
		}
		if i < len(labels)-1 {
			if n > 255 {
				return netip.Addr{}, true
			}
			v = v<<8 | n
			continue
		}
		rest := uint(8 * (4 - len(labels) + 1))
		if n >= 1<<rest {
			return netip.Addr{}, true
		}
		v = v<<rest | n
	}
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}), true
}

// isNumberLabel reports a label made of digits, or 0x and hex digits,
// even one too large or malformed to be an address part.
func isNumberLabel(l string) bool {
	if l == "" {
		return false
	}
	if len(l) >= 2 && l[0] == '0' && (l[1] == 'x' || l[1] == 'X') {
		l = l[2:]
		return strings.Trim(l, "0123456789abcdefABCDEF") == ""
	}
	return strings.Trim(l, "0123456789") == ""
}

// ipv4Part parses one part of a legacy IPv4 address.
func ipv4Part(l string) (uint64, bool) {
	base := 10
	switch {
	case l == "":
		return 0, false
	case len(l) >= 2 && l[0] == '0' && (l[1] == 'x' || l[1] == 'X'):
		base, l = 16, l[2:]
		if l == "" {
			return 0, true
		}
	case len(l) > 1 && l[0] == '0':
		base, l = 8, l[1:]
	}
	n, err := strconv.ParseUint(l, base, 32)
	return n, err == nil
}
