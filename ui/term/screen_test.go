package term

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kimigo/kimigo/ui/term/termtest"
)

// rig is a Screen writing into an emulated terminal, with the lines a
// user should be able to scroll through.
type rig struct {
	t       *testing.T
	vt      *termtest.VT
	s       *Screen
	printed []string
	frame   []string
	out     bytes.Buffer // the last update's bytes
}

func newRig(t *testing.T, w, h int) *rig {
	r := &rig{t: t, vt: termtest.New(w, h)}
	r.vt.ScrollOnClear = true
	r.s = NewScreen(writerFunc(func(p []byte) (int, error) {
		r.out.Write(p)
		return r.vt.Write(p)
	}), w, h)
	return r
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

func (r *rig) update(blocks []string, lines []string, cur *Cursor) {
	r.t.Helper()
	r.out.Reset()
	if err := r.s.Update(blocks, Frame{Lines: lines, Cursor: cur}); err != nil {
		r.t.Fatal(err)
	}
	for _, b := range blocks {
		r.printed = append(r.printed, strings.Split(b, "\n")...)
	}
	r.frame = lines
}

// check compares everything the terminal holds with the printed lines
// followed by the frame.
func (r *rig) check() {
	r.t.Helper()
	var want []string
	for _, l := range append(append([]string(nil), r.printed...), r.frame...) {
		want = append(want, strings.TrimRight(l, " "))
	}
	for len(want) > 0 && want[len(want)-1] == "" {
		want = want[:len(want)-1]
	}
	got := append([]string{}, r.vt.Lines()...)
	want = append([]string{}, want...)
	// Blank rows above the first print are the terminal's, not ours.
	for len(got) > 0 && got[0] == "" && (len(want) == 0 || want[0] != "") {
		got = got[1:]
	}
	if d := cmp.Diff(want, got); d != "" {
		r.t.Fatalf("terminal content (-want +got):\n%s", d)
	}
}

func TestScreenPaintsAndPlacesTheCursor(t *testing.T) {
	r := newRig(t, 20, 10)
	r.update(nil, []string{"one", "> ab", "footer"}, &Cursor{X: 4, Y: 1})
	r.check()
	if x, y := r.vt.Cursor(); x != 4 || y != 1 || !r.vt.CursorVisible {
		t.Errorf("cursor at %d,%d visible=%v; want 4,1 visible", x, y, r.vt.CursorVisible)
	}
	r.update(nil, []string{"one", "footer"}, nil)
	r.check()
	if r.vt.CursorVisible {
		t.Error("cursor still visible after a frame without one")
	}
}

func TestScreenWritesOnlyChanges(t *testing.T) {
	r := newRig(t, 30, 10)
	r.update(nil, []string{"activity", "> hello", "footer line"}, &Cursor{X: 7, Y: 1})
	r.update(nil, []string{"activity", "> hello", "footer line"}, &Cursor{X: 7, Y: 1})
	if r.out.Len() != 0 {
		t.Errorf("unchanged frame wrote %q", r.out.String())
	}
	r.update(nil, []string{"activity", "> hello!", "footer line"}, &Cursor{X: 8, Y: 1})
	if strings.Contains(r.out.String(), "activity") {
		t.Errorf("a change on line 2 rewrote line 1: %q", r.out.String())
	}
	r.check()
	r.update(nil, []string{"activity", "> hello!", "footer line"}, &Cursor{X: 3, Y: 1})
	if strings.Contains(r.out.String(), "hello") {
		t.Errorf("a cursor move rewrote text: %q", r.out.String())
	}
}

// A terminal that keeps a cleared screen in its history (tmux) must not
// get a copy of the region when it sits at the top of the screen.
func TestScreenAtTheTopOfTheScreen(t *testing.T) {
	r := newRig(t, 40, 8)
	r.update(nil, []string{"opening", "> ", "footer"}, &Cursor{X: 2, Y: 1})
	r.update([]string{"banner"}, []string{"> ", "footer"}, &Cursor{X: 2, Y: 0})
	r.check()
	r.update(nil, nil, nil)
	r.check()
}

func TestScreenKeepsScrollbackExact(t *testing.T) {
	r := newRig(t, 40, 8)
	r.update(nil, []string{"", "> ", "footer"}, &Cursor{X: 2, Y: 1})
	for i := range 12 {
		r.update([]string{fmt.Sprintf("item %d line a\nitem %d line b", i, i)},
			[]string{fmt.Sprintf("working %d", i), "> ", "footer"}, &Cursor{X: 2, Y: 1})
		r.check()
	}
	// The region grows past the old height and shrinks again.
	r.update(nil, []string{"a", "b", "c", "d", "e", "f"}, nil)
	r.check()
	r.update(nil, []string{"z"}, nil)
	r.check()
	r.update(nil, nil, nil)
	r.check()
	r.update([]string{"last"}, []string{"> "}, &Cursor{X: 2, Y: 0})
	r.check()
}

func TestScreenCutsWideLines(t *testing.T) {
	r := newRig(t, 10, 5)
	r.update(nil, []string{"0123456789abc", "日本語の文章です"}, nil)
	got := r.vt.Screen()
	want := []string{"012345678", "日本語の"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

func TestScreenClipsToTheHeight(t *testing.T) {
	r := newRig(t, 20, 3)
	r.update(nil, []string{"1", "2", "3", "4", "5"}, &Cursor{X: 0, Y: 4})
	if d := cmp.Diff([]string{"3", "4", "5"}, r.vt.Screen()); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	if _, y := r.vt.Cursor(); y != 2 {
		t.Errorf("cursor row %d; want 2", y)
	}
}

func TestScreenResizeReflows(t *testing.T) {
	r := newRig(t, 40, 10)
	r.update([]string{"printed before"}, []string{"a live line that is fairly long here", "> typed", "footer ........................ right"},
		&Cursor{X: 7, Y: 1})
	r.check()
	r.vt.Resize(15, 10)
	r.s.Resize(15, 10)
	r.update(nil, []string{"a live line", "> typed", "footer . right"}, &Cursor{X: 7, Y: 1})
	// "printed before" fits in 15 columns; nothing of the old region
	// may be left.
	r.check()
	r.vt.Resize(60, 12)
	r.s.Resize(60, 12)
	r.update(nil, []string{"a live line that is fairly long here", "> typed", "footer"}, &Cursor{X: 7, Y: 1})
	r.check()
}

func TestScreenClear(t *testing.T) {
	r := newRig(t, 20, 5)
	r.update([]string{"kept"}, []string{"live", "> x"}, &Cursor{X: 3, Y: 1})
	if err := r.s.Clear(); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"kept"}, r.vt.All()); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	if x, y := r.vt.Cursor(); x != 0 || y != 1 || !r.vt.CursorVisible {
		t.Errorf("cursor %d,%d visible=%v after Clear; want 0,1 visible", x, y, r.vt.CursorVisible)
	}
}

// FuzzScreen drives a screen with prints, frames and narrowing or
// widening resizes and checks after each step that the terminal holds
// exactly the printed lines and the frame.
func FuzzScreen(f *testing.F) {
	f.Add([]byte{1, 3, 0, 2, 5, 2, 1, 1, 4, 3, 0})
	f.Add([]byte{0, 9, 2, 0, 1, 7, 3, 2, 0, 4})
	f.Fuzz(func(t *testing.T, ops []byte) {
		r := newRig(t, 30, 12)
		w := 30
		var frame []string
		for i, op := range ops {
			n := int(op>>2) % 7
			switch op % 4 {
			case 0: // print n+1 lines
				var b []string
				for k := range n + 1 {
					b = append(b, fmt.Sprintf("p%d.%d %s", i, k, strings.Repeat("x", (i*7+k*3)%(w-8))))
				}
				r.update([]string{strings.Join(b, "\n")}, frame, nil)
			case 1, 2: // a new frame of n lines
				frame = nil
				for k := range n {
					frame = append(frame, fmt.Sprintf("f%d.%d %s", i, k, strings.Repeat("y", (i*5+k)%(w-8))))
				}
				var cur *Cursor
				if n > 0 {
					cur = &Cursor{X: 3, Y: n - 1}
				}
				r.update(nil, frame, cur)
			case 3: // resize, then repaint with lines that fit
				nw := 14 + int(op>>2)%30
				rows := 0
				for _, l := range frame {
					rows += rowsOf(l, nw)
				}
				if rows > 12 {
					// The reflowed region no longer fits the screen: its top
					// went to the history, where nothing can erase it.
					return
				}
				w = nw
				r.vt.Resize(w, 12)
				r.s.Resize(w, 12)
				for k := range frame {
					frame[k] = ansiCut(frame[k], w-1)
				}
				r.update(nil, frame, nil)
			}
			r.check()
		}
	})
}

func ansiCut(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}
