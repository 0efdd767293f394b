package glob

import (
	"fmt"
	"strconv"
	"strings"
)

// fault is a malformed spot of a pattern, Pos relative to the text scanned.
type fault struct {
	pos int
	msg string
}

// expandBraces expands the "{a,b}" alternatives and "{x..y[..step]}" ranges
// of s, left to right and nested, the way a shell does. A brace without a
// top-level comma or a valid range is literal, as is one without its
// closing "}". Escapes and bracket classes are copied untouched.
func expandBraces(s string) ([]string, *fault) {
	first := strings.IndexByte(s, '{')
	if first < 0 {
		return []string{s}, nil
	}
	var out []string
	if f := expandInto(s, first, &out); f != nil {
		return nil, f
	}
	return out, nil
}

func expandInto(s string, at int, out *[]string) *fault {
	open, end, items, f := nextBrace(s)
	if f != nil {
		return &fault{pos: at, msg: f.msg}
	}
	if open < 0 {
		if len(*out) >= maxAlternatives {
			return &fault{pos: at, msg: fmt.Sprintf("braces expand to more than %d patterns", maxAlternatives)}
		}
		*out = append(*out, s)
		return nil
	}
	pre, post := s[:open], s[end+1:]
	for _, it := range items {
		if f := expandInto(pre+it+post, at, out); f != nil {
			return f
		}
	}
	return nil
}

// nextBrace finds the first brace group of s that expands and returns its
// bounds and items; open is -1 when there is none.
func nextBrace(s string) (open, end int, items []string, f *fault) {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '[':
			if j := classEnd(s, i); j > 0 {
				i = j
			}
		case '{':
			j, commas := braceEnd(s, i)
			if j < 0 {
				continue
			}
			body := s[i+1 : j]
			if len(commas) > 0 {
				prev := i + 1
				for _, c := range commas {
					items = append(items, s[prev:c])
					prev = c + 1
				}
				return i, j, append(items, s[prev:j]), nil
			}
			if r, ok, rf := expandRange(body); rf != nil {
				return -1, -1, nil, rf
			} else if ok {
				return i, j, r, nil
			}
		}
	}
	return -1, -1, nil, nil
}

// braceEnd returns the index of the "}" closing the "{" at s[i] and the
// indexes of its top-level commas; -1 when it is not closed.
func braceEnd(s string, i int) (int, []int) { return groupEnd(s, i, '{', '}', ',') }

// groupEnd returns the index of the close closing the open at s[i] and the
// indexes of the sep bytes directly inside it (sep 0 collects none); -1
// when it is not closed. Escapes and character classes are skipped whole.
func groupEnd(s string, i int, open, close, sep byte) (int, []int) {
	depth := 0
	var seps []int
	for j := i; j < len(s); j++ {
		switch c := s[j]; {
		case c == '\\':
			j++
		case c == '[':
			if k := classEnd(s, j); k > 0 {
				j = k
			}
		case c == open:
			depth++
		case c == close:
			depth--
			if depth == 0 {
				return j, seps
			}
		case c == sep && sep != 0 && depth == 1:
			seps = append(seps, j)
		}
	}
	return -1, nil
}

// expandRange expands "x..y" or "x..y..step" over integers or single
// letters; ok is false when body is not a range.
func expandRange(body string) (items []string, ok bool, f *fault) {
	parts := strings.Split(body, "..")
	if len(parts) != 2 && len(parts) != 3 {
		return nil, false, nil
	}
	step := 1
	if len(parts) == 3 {
		n, err := strconv.Atoi(parts[2])
		if err != nil {
			return nil, false, nil
		}
		step = max(n, -n, 1)
	}
	if a, errA := strconv.Atoi(parts[0]); errA == nil {
		b, errB := strconv.Atoi(parts[1])
		if errB != nil {
			return nil, false, nil
		}
		width := 0
		if padded(parts[0]) || padded(parts[1]) {
			width = max(len(parts[0]), len(parts[1]))
		}
		return rangeItems(a, b, step, func(n int) string { return pad(n, width) })
	}
	if len(parts[0]) == 1 && len(parts[1]) == 1 && isLetter(parts[0][0]) && isLetter(parts[1][0]) {
		return rangeItems(int(parts[0][0]), int(parts[1][0]), step, func(n int) string { return string(rune(n)) })
	}
	return nil, false, nil
}

func rangeItems(a, b, step int, format func(int) string) ([]string, bool, *fault) {
	const bound = 1 << 30 // keeps the arithmetic below from overflowing
	if a < -bound || a > bound || b < -bound || b > bound || step > bound {
		return nil, false, &fault{msg: "brace range bounds are too large"}
	}
	n := (max(a, b)-min(a, b))/step + 1
	if n > maxRange {
		return nil, false, &fault{msg: fmt.Sprintf("brace range has more than %d elements", maxRange)}
	}
	if a > b {
		step = -step
	}
	items := make([]string, 0, n)
	for i, v := 0, a; i < n; i, v = i+1, v+step {
		items = append(items, format(v))
	}
	return items, true, nil
}

func padded(s string) bool {
	s = strings.TrimPrefix(s, "-")
	return len(s) > 1 && s[0] == '0'
}

func pad(n, width int) string {
	s := strconv.Itoa(max(n, -n))
	neg := n < 0
	for len(s) < width-btoi(neg) {
		s = "0" + s
	}
	if neg {
		s = "-" + s
	}
	return s
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
