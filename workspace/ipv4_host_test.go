package workspace_test

import (
	"testing"

	"github.com/kimigo/kimigo/workspace"
)

func TestLegacyIPv4(t *testing.T) {
	for _, tt := range []struct {
		host    string
		want    string // "" for no address
		numeric bool
	}{
		{"2130706433", "127.0.0.1", true},
		{"0x7f.1", "127.0.0.1", true},
		{"0177.0.0.1", "127.0.0.1", true},
		{"127.1", "127.0.0.1", true},
		{"127.0.0.1", "127.0.0.1", true},
		{"134744072", "8.8.8.8", true},
		{"0X8.0x8.0x8.0x8.", "8.8.8.8", true},
		{"0x", "0.0.0.0", true},
		{"4294967296", "", true},
		{"256.0.0.1", "", true},
		{"1.2.3.4.5", "", true},
		{"08.1", "", true},
		{"example.com", "", false},
		{"1.2.3.example", "", false},
		{"example.0x", "", true},
		{"deadbeef", "", false},
	} {
		addr, numeric := workspace.LegacyIPv4(tt.host)
		got := ""
		if addr.IsValid() {
			got = addr.String()
		}
		if got != tt.want || numeric != tt.numeric {
			t.Errorf("LegacyIPv4(%q) = %q, %v; want %q, %v", tt.host, got, numeric, tt.want, tt.numeric)
		}
	}
}
