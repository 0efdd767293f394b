package turn

import (
	"context"
	_ "embed"
	"strings"

	"github.com/kimigo/kimigo/agent/history"
	"github.com/kimigo/kimigo/agent/records"
	"github.com/kimigo/kimigo/event"
)

//go:embed text/abandoned_call.md
var abandonedCallText string

// AbandonedCallText is the result that closes a call a turn left without
// its result (spec 03 §1.12), for a turn that ended with reason; message
// is the failure's text, if any.
func AbandonedCallText(reason event.EndReason, message string) string {
	cause := "the turn ended"
	switch reason {
	case event.EndCancelled:
		cause = "the turn was cancelled"
	case event.EndFailed:
		cause = "the turn failed"
		if message != "" {
			cause += " (" + message + ")"
		}
	}
	return strings.ReplaceAll(strings.TrimSpace(abandonedCallText), "{cause}", cause)
}

// closeAbandoned gives every recorded call that still has no result an
// error result, so later messages are not stranded behind an open exchange
// (spec 03 §1.12, spec 02 §2.6). Failures are logged, never raised.
func (f *TurnFlow) closeAbandoned(ctx context.Context, turnID int, out outcome) {
	evs := f.o.History.CloseEvents(AbandonedCallText(out.reason, out.errCause))
	for _, ev := range evs {
		err := f.o.Commit.Commit(ctx, records.Type(history.TypeAppendLoopEvent), history.AppendLoopEventRecord{Event: ev})
		if err != nil {
			f.log.Warn("close abandoned tool call failed", "turn", turnID, "call_id", ev.ToolCallID, "error", err)
			return
		}
	}
	if len(evs) > 0 {
		f.log.Info("closed abandoned tool calls", "turn", turnID, "count", len(evs))
	}
}
