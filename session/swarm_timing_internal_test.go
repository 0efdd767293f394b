package session

import (
	"time"

	"github.com/kimigo/kimigo/session/batch"
)

// The session's swarm tests run real children against the loopback fake
// on the wall clock: the scheduler's intervals shrink a hundredfold so a
// batch with rate limits ends in a fraction of a second. The spec's
// values are the batch package's (its tests run them on a fake clock).
func init() {
	swarmTiming = batch.Timing{Ramp: 7 * time.Millisecond, RetryBase: 30 * time.Millisecond,
		ShrinkEvery: 20 * time.Millisecond, RecoverAfter: 1800 * time.Millisecond}
}
