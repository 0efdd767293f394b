package loop

import (
	"testing"

	"github.com/kimigo/kimigo/llm"
)

func TestDeriveStopReason(t *testing.T) {
	for _, tt := range []struct {
		finish             llm.FinishReason
		withCalls, without StopReason
	}{
		{llm.FinishTruncated, StopMaxTokens, StopMaxTokens},
		{llm.FinishFiltered, StopFiltered, StopFiltered},
		{llm.FinishPaused, StopPaused, StopPaused},
		{llm.FinishOther, StopUnknown, StopUnknown},
		{llm.FinishCompleted, StopToolUse, StopEndTurn},
		{llm.FinishNone, StopToolUse, StopEndTurn},
		{llm.FinishToolCalls, StopToolUse, StopUnknown},
	} {
		t.Run(string(tt.finish), func(t *testing.T) {
			if got := deriveStopReason(tt.finish, true); got != tt.withCalls {
				t.Errorf("with calls = %s, want %s", got, tt.withCalls)
			}
			if got := deriveStopReason(tt.finish, false); got != tt.without {
				t.Errorf("without calls = %s, want %s", got, tt.without)
			}
		})
	}
}
