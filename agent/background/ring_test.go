package background

import (
	"bytes"
	"testing"
)

func TestRingKeepsTheLastBytes(t *testing.T) {
	for _, tt := range []struct {
		name   string
		cap    int
		writes []string
	}{
		{"fits", 8, []string{"abc", "de"}},
		{"exactly full", 4, []string{"ab", "cd"}},
		{"wraps", 4, []string{"abc", "def", "g"}},
		{"one write larger than the ring", 3, []string{"ab", "cdefgh", "i"}},
		{"many small writes", 5, []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := newRing(tt.cap)
			var all []byte
			for _, w := range tt.writes {
				r.write([]byte(w))
				all = append(all, w...)
				want := all[max(0, len(all)-tt.cap):]
				if got := r.tail(1 << 20); !bytes.Equal(got, want) {
					t.Fatalf("after %q: tail = %q; want %q", w, got, want)
				}
				for n := range tt.cap + 1 {
					w := want[max(0, len(want)-n):]
					if got := r.tail(n); !bytes.Equal(got, w) {
						t.Fatalf("tail(%d) = %q; want %q", n, got, w)
					}
				}
			}
		})
	}
}

func FuzzRing(f *testing.F) {
	f.Add([]byte("hello world"), uint8(4), uint8(3))
	f.Add([]byte{}, uint8(1), uint8(1))
	f.Fuzz(func(t *testing.T, data []byte, capacity, chunk uint8) {
		c, k := int(capacity)%64+1, int(chunk)%16+1
		r := newRing(c)
		for i := 0; i < len(data); i += k {
			r.write(data[i:min(i+k, len(data))])
		}
		want := data[max(0, len(data)-c):]
		if got := r.tail(c); !bytes.Equal(got, want) {
			t.Fatalf("tail = %q; want %q", got, want)
		}
		if r.len() > c {
			t.Fatalf("ring holds %d bytes over its capacity %d", r.len(), c)
		}
	})
}

func TestRuneAligned(t *testing.T) {
	s := []byte("汉字")
	if got := string(runeAligned(s[1:])); got != "字" {
		t.Errorf("runeAligned = %q", got)
	}
	if got := string(runeAligned(s)); got != "汉字" {
		t.Errorf("runeAligned of a whole string = %q", got)
	}
}
