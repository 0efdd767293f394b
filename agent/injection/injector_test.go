package injection

import (
	"context"
	"testing"
)

func TestTrackerFollowsHistory(t *testing.T) {
	for _, tt := range []struct {
		name    string
		at      int
		event   func(*Tracker)
		want    int
		wantSet bool
	}{
		{"removal before moves it down", 5, func(tr *Tracker) { tr.OnMessageRemoved(2) }, 4, true},
		{"removal after leaves it", 5, func(tr *Tracker) { tr.OnMessageRemoved(7) }, 5, true},
		{"removing it forgets it", 5, func(tr *Tracker) { tr.OnMessageRemoved(5) }, 0, false},
		{"clear forgets it", 5, (*Tracker).OnClear, 0, false},
		{"compaction forgets it", 5, (*Tracker).OnCompacted, 0, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var tr Tracker
			tr.mark(tt.at)
			tt.event(&tr)
			i, ok := tr.InjectedAt()
			if ok != tt.wantSet || (ok && i != tt.want) {
				t.Errorf("InjectedAt = %d, %v; want %d, %v", i, ok, tt.want, tt.wantSet)
			}
		})
	}
}

// brokenInjector panics on every lifecycle event.
type brokenInjector struct{ Tracker }

func (*brokenInjector) Inject(context.Context, Host) error { return nil }
func (*brokenInjector) OnCompacted()                       { panic("broken") }

func TestALifecyclePanicDoesNotStopTheOthers(t *testing.T) {
	mode := &PermissionModeReminder{}
	m := New(Options{PerStep: []Injector{&brokenInjector{}, mode}})
	m.OnContextCompacted()
	mode.mu.Lock()
	defer mode.mu.Unlock()
	if !mode.refresh {
		t.Error("the injector after the broken one did not hear of the compaction")
	}
}
