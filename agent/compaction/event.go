package compaction

import (
	"github.com/kimigo/kimigo/agent/history"
	"github.com/kimigo/kimigo/event"
)

// EventSink receives what a compaction reports (spec 03 §6.15). Publish
// gets event.CompactionStarted, CompactionBlocked, CompactionCompleted and
// CompactionCancelled; Failed gets a failure no turn was waiting for,
// which the agent publishes as its error event. Both are called
// synchronously, on the goroutine of the operation (the worker, the turn,
// the caller of Compact or Cancel), with no compaction lock held.
type EventSink interface {
	Publish(ev event.Event)
	Failed(err error)
}

// resultOf is the front end's view of an applied record: without the
// model-facing summary prefix.
func resultOf(r history.ApplyCompactionRecord) event.CompactionResult {
	res := event.CompactionResult{Summary: r.Summary, CompactedCount: r.CompactedCount, TokensBefore: r.TokensBefore,
		KeptHeadUserMessageCount: r.KeptHeadUserMessageCount, DroppedCount: r.DroppedCount}
	if r.TokensAfter != nil {
		res.TokensAfter = *r.TokensAfter
	}
	if r.KeptUserMessageCount != nil {
		res.KeptUserMessageCount = *r.KeptUserMessageCount
	}
	return res
}
