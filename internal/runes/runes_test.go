package runes

import "testing"

func TestPrefix(t *testing.T) {
	for _, tt := range []struct {
		s    string
		n    int
		want string
	}{
		{"hello", 3, "hel"},
		{"hello", 5, "hello"},
		{"hello", 9, "hello"},
		{"hello", 0, ""},
		{"hello", -1, ""},
		{"", 2, ""},
		{"日本語テキスト", 2, "日本"},
		{"a€b", 2, "a€"},
	} {
		if got := Prefix(tt.s, tt.n); got != tt.want {
			t.Errorf("Prefix(%q, %d) = %q; want %q", tt.s, tt.n, got, tt.want)
		}
	}
}
