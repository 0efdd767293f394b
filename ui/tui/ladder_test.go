package tui

import (
	"testing"
	"time"
)

// fakeClock is a clock the test moves by hand.
type fakeClock struct{ t time.Time }

func (c *fakeClock) Now() time.Time          { return c.t }
func (c *fakeClock) Advance(d time.Duration) { c.t = c.t.Add(d) }
func newFakeClock() *fakeClock               { return &fakeClock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)} }

func TestLadderTable(t *testing.T) {
	idle := Busy{EditorEmpty: true}
	typed := Busy{}
	type step struct {
		key   string // "c", "d", "esc", "x" (another key)
		after time.Duration
		busy  Busy
		want  Action
	}
	for _, tt := range []struct {
		name  string
		steps []step
	}{
		{"ctrl+c twice exits", []step{{"c", 0, typed, ArmCtrlC}, {"c", time.Second, idle, Exit}}},
		{"ctrl+c twice too slowly re-arms", []step{{"c", 0, idle, ArmCtrlC}, {"c", 1600 * time.Millisecond, idle, ArmCtrlC}}},
		{"ctrl+c while streaming cancels", []step{{"c", 0, Busy{Streaming: true, EditorEmpty: true}, CancelTurn}}},
		{"ctrl+c while streaming clears text first", []step{{"c", 0, Busy{Streaming: true}, ClearEditor}}},
		{"ctrl+c during a shell command cancels it", []step{{"c", 0, Busy{Shell: true, EditorEmpty: true}, CancelTurn}}},
		{"ctrl+c cancels compaction", []step{{"c", 0, Busy{Compacting: true, EditorEmpty: true}, CancelCompaction}}},
		{"ctrl+c cancels an operation first", []step{{"c", 0, Busy{Operation: true, Streaming: true}, CancelOperation}}},
		{"ctrl+d twice exits", []step{{"d", 0, idle, ArmCtrlD}, {"d", 1400 * time.Millisecond, idle, Exit}}},
		{"ctrl+d with text deletes", []step{{"d", 0, typed, DeleteForward}}},
		{"ctrl+c then ctrl+d does not exit", []step{{"c", 0, idle, ArmCtrlC}, {"d", 10 * time.Millisecond, idle, ArmCtrlD}}},
		{"esc during streaming cancels", []step{{"esc", 0, Busy{Streaming: true, EditorEmpty: true}, CancelTurn}}},
		{"two esc within 600ms open undo", []step{{"esc", 0, idle, ArmEsc}, {"esc", 500 * time.Millisecond, idle, OpenUndo}}},
		{"two esc 700ms apart do not", []step{{"esc", 0, idle, ArmEsc}, {"esc", 700 * time.Millisecond, idle, ArmEsc}}},
		{"another key ends the double esc", []step{{"esc", 0, idle, ArmEsc}, {"x", 100 * time.Millisecond, idle, DoNothing}, {"esc", 100 * time.Millisecond, idle, ArmEsc}}},
		{"esc drops a pending exit", []step{{"c", 0, idle, ArmCtrlC}, {"esc", 100 * time.Millisecond, idle, Disarm}, {"c", 100 * time.Millisecond, idle, ArmCtrlC}}},
		{"esc closes the picker", []step{{"esc", 0, Busy{Picker: true, EditorEmpty: true}, ClosePicker}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := newFakeClock()
			l := NewLadder(c.Now)
			for i, s := range tt.steps {
				c.Advance(s.after)
				var got Action
				switch s.key {
				case "c":
					got = l.CtrlC(s.busy)
				case "d":
					got = l.CtrlD(s.busy)
				case "esc":
					got = l.Esc(s.busy)
				default:
					l.OtherKey()
				}
				if got != s.want {
					t.Errorf("step %d (%s after %v): %v; want %v", i, s.key, s.after, got, s.want)
				}
			}
		})
	}
}
