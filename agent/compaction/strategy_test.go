package compaction

import (
	"testing"

	"github.com/kimigo/kimigo/llm"
)

func intp(n int) *int { return &n }

// TestStrategyThresholds covers the examples of spec 03 §6.1.
func TestStrategyThresholds(t *testing.T) {
	for _, tt := range []struct {
		name    string
		window  int
		reserve *int
		used    int
		want    bool
	}{
		{"just under the ratio", 100_000, intp(0), 84_999, false},
		{"at the ratio", 100_000, intp(0), 85_000, true},
		{"reserve fires before the ratio", 256_000, intp(50_000), 206_000, true},
		{"just under the reserve", 256_000, intp(50_000), 205_999, false},
		{"reserve not smaller than the window is ignored", 32_000, intp(50_000), 27_199, false},
		{"ratio still applies when the reserve is ignored", 32_000, intp(50_000), 27_200, true},
		{"small window with a reserve", 2_000, intp(500), 1_500, true},
		{"small window just under the reserve", 2_000, intp(500), 1_499, false},
		{"unset reserve is 50,000", 256_000, nil, 206_000, true},
		{"reserve 0 turns the rule off", 256_000, intp(0), 206_000, false},
		{"unknown window never compacts", 0, nil, 10_000_000, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := NewStrategy(StrategyOptions{ReservedContextSize: tt.reserve}, func() int { return tt.window })
			if got := s.ShouldCompact(tt.used); got != tt.want {
				t.Errorf("ShouldCompact(%d) = %v; want %v", tt.used, got, tt.want)
			}
			if got := s.ShouldBlock(tt.used); got != tt.want {
				t.Errorf("ShouldBlock(%d) = %v; want %v (block follows the trigger)", tt.used, got, tt.want)
			}
		})
	}
}

func TestStrategyDefaultsAndAfterStep(t *testing.T) {
	def := NewStrategy(StrategyOptions{}, func() int { return 1000 })
	if def.CheckAfterStep() || def.MaxCompactionPerTurn() != 0 || def.MaxOverflowCompactionAttempts() != 3 {
		t.Errorf("defaults: after-step %v, per turn %d, overflows %d; want false, 0, 3",
			def.CheckAfterStep(), def.MaxCompactionPerTurn(), def.MaxOverflowCompactionAttempts())
	}
	// A configured trigger ratio moves the block threshold with it, so a
	// compaction never runs beside a step unless asked for.
	low := NewStrategy(StrategyOptions{TriggerRatio: 0.6}, func() int { return 1000 })
	if low.CheckAfterStep() || !low.ShouldBlock(600) || low.ShouldBlock(599) {
		t.Errorf("trigger 0.6: after-step %v, block(600) %v, block(599) %v; want false, true, false",
			low.CheckAfterStep(), low.ShouldBlock(600), low.ShouldBlock(599))
	}
	split := NewStrategy(StrategyOptions{TriggerRatio: 0.5, BlockRatio: 0.9, ReservedContextSize: intp(0)}, func() int { return 1000 })
	if !split.CheckAfterStep() || !split.ShouldCompact(500) || split.ShouldBlock(899) {
		t.Errorf("split ratios: after-step %v, compact(500) %v, block(899) %v; want true, true, false",
			split.CheckAfterStep(), split.ShouldCompact(500), split.ShouldBlock(899))
	}
}

// TestEffectiveWindow covers the example of spec 03 §6.2: a declared input
// cap wins over the window, and an overflow teaches a smaller one.
func TestEffectiveWindow(t *testing.T) {
	r := newRigWith(t, Model{Strategy: StrategyOptions{ReservedContextSize: intp(0)}})
	r.setCapability(llm.Capability{MaxContextTokens: 200_000, MaxInputTokens: 150_000})
	s := r.c.Strategy()
	if s.ShouldCompact(127_499) || !s.ShouldCompact(127_500) {
		t.Fatalf("input cap 150,000 should trigger at 127,500")
	}
	if s.ShouldCompact(120_000) {
		t.Fatalf("120,000 compacts before any overflow")
	}
	r.c.ObserveContextOverflow(127_000)
	if got := r.c.EffectiveMaxContextTokens(); got != 107_950 {
		t.Fatalf("effective window after an overflow at 127,000 = %d; want 107,950", got)
	}
	if !s.ShouldCompact(120_000) {
		t.Errorf("120,000 does not compact under the observed window")
	}
	r.c.ObserveContextOverflow(200_000) // never raises it
	r.c.ObserveContextOverflow(0)       // nothing to learn
	if got := r.c.EffectiveMaxContextTokens(); got != 107_950 {
		t.Errorf("effective window = %d after larger and empty observations; want 107,950", got)
	}
	r.setCapability(llm.Capability{})
	if got := r.c.EffectiveMaxContextTokens(); got != 107_950 {
		t.Errorf("unknown declared window: effective = %d; want the observed 107,950", got)
	}
}

// TestS52SmallRequestTooLargeIsNotOverflow: a 413 on a request far below
// the window is a real error, not an overflow (spec 03 §8 S52).
func TestS52SmallRequestTooLargeIsNotOverflow(t *testing.T) {
	r := newRig(t, Options{})
	r.setCapability(llm.Capability{MaxContextTokens: 200_000})
	err413 := tooLarge().Err
	for _, tt := range []struct {
		name string
		err  error
		est  int
		want bool
	}{
		{"small 413", err413, 20, false},
		{"413 at half the window", err413, 100_000, true},
		{"context overflow", overflow().Err, 20, true},
		{"server error", status(500, `{"error":{"message":"boom"}}`).Err, 150_000, false},
	} {
		if got := r.c.ShouldRecoverFromContextOverflow(tt.err, tt.est); got != tt.want {
			t.Errorf("%s: ShouldRecoverFromContextOverflow = %v; want %v", tt.name, got, tt.want)
		}
	}
	r.setCapability(llm.Capability{})
	if r.c.ShouldRecoverFromContextOverflow(err413, 1_000_000) {
		t.Errorf("a 413 counts as overflow with an unknown window")
	}
}
