package compaction

// Defaults of the strategy (spec 03 §6.1, ERRATA 17).
const (
	DefaultTriggerRatio                  = 0.85
	DefaultReservedContextSize           = 50_000
	DefaultMaxOverflowCompactionAttempts = 3
)

// StrategyOptions configure when compaction starts and when a turn waits
// for it. The zero value is the default strategy.
type StrategyOptions struct {
	// TriggerRatio starts a compaction when the used context reaches this
	// share of the window (config compaction_trigger_ratio); 0 means 0.85.
	TriggerRatio float64
	// BlockRatio makes the step wait for the compaction from this share on;
	// 0 means TriggerRatio, so a compaction never runs beside a step
	// unless asked for.
	BlockRatio float64
	// ReservedContextSize is the output reserve: compaction also starts
	// and blocks when used + reserve reaches the window. Nil (unset) means
	// 50,000; 0 turns the rule off. A reserve not smaller than the window
	// is ignored.
	ReservedContextSize *int
	// MaxCompactionPerTurn caps the automatic compactions of one turn;
	// 0 means unlimited.
	MaxCompactionPerTurn int
	// MaxOverflowCompactionAttempts caps the consecutive overflow
	// recoveries of one turn without a successful step; 0 means 3.
	MaxOverflowCompactionAttempts int
}

// Strategy decides from the used context size whether to compact and
// whether to wait (spec 03 §6.1). It reads the effective window at every
// call; a window ≤ 0 (unknown) never compacts on size.
type Strategy struct {
	trigger, block float64
	reserve        int
	maxPerTurn     int
	maxOverflows   int
	window         func() int
}

// NewStrategy returns the strategy of o over the window reported by
// window.
func NewStrategy(o StrategyOptions, window func() int) Strategy {
	s := Strategy{trigger: o.TriggerRatio, block: o.BlockRatio, reserve: DefaultReservedContextSize,
		maxPerTurn: o.MaxCompactionPerTurn, maxOverflows: o.MaxOverflowCompactionAttempts, window: window}
	if s.trigger <= 0 {
		s.trigger = DefaultTriggerRatio
	}
	if s.block <= 0 {
		s.block = s.trigger
	}
	if o.ReservedContextSize != nil {
		s.reserve = max(0, *o.ReservedContextSize)
	}
	if s.maxOverflows <= 0 {
		s.maxOverflows = DefaultMaxOverflowCompactionAttempts
	}
	return s
}

// ShouldCompact reports whether a context of used tokens should be
// compacted.
func (s Strategy) ShouldCompact(used int) bool { return s.over(used, s.trigger) }

// ShouldBlock reports whether the next step must wait for the compaction.
func (s Strategy) ShouldBlock(used int) bool { return s.over(used, s.block) }

// CheckAfterStep reports whether compaction may also start after a step,
// in the background: only when it starts before it blocks.
func (s Strategy) CheckAfterStep() bool { return s.trigger != s.block }

// MaxCompactionPerTurn is the per-turn cap on automatic compactions; 0 is
// unlimited.
func (s Strategy) MaxCompactionPerTurn() int { return s.maxPerTurn }

// MaxOverflowCompactionAttempts is the cap on consecutive overflow
// recoveries.
func (s Strategy) MaxOverflowCompactionAttempts() int { return s.maxOverflows }

// over is the shared rule: the ratio threshold, or the reserve when it is
// smaller than the window.
func (s Strategy) over(used int, ratio float64) bool {
	w := s.window()
	if w <= 0 {
		return false
	}
	if float64(used) >= float64(w)*ratio {
		return true
	}
	return s.reserve > 0 && s.reserve < w && used+s.reserve >= w
}
