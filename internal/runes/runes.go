// Package runes cuts text by characters (runes) rather than bytes, so a
// cut never splits a UTF-8 sequence. Guarded by runes_test.go.
package runes

// Prefix is the first n runes of s (all of s when it is shorter; "" for
// n ≤ 0).
func Prefix(s string, n int) string {
	for i := range s {
		if n <= 0 {
			return s[:i]
		}
		n--
	}
	return s
}
