package llm

import (
	"regexp"
	"testing"
)

// TestLazyPatternsCompile compiles every pattern now: they are compiled on
// first use, so a bad one would otherwise only show when a provider sends
// the error it is for.
func TestLazyPatternsCompile(t *testing.T) {
	for _, list := range []func() []*regexp.Regexp{contextOverflowPatterns, requestTooLargePatterns,
		thinkingEffortPatterns, adjacencyPatterns, structurePatterns, imageFormatPatterns, rateLimitPatterns,
		kimiQuotaPatterns} {
		if len(list()) == 0 {
			t.Error("an empty pattern list")
		}
	}
	for _, re := range []func() *regexp.Regexp{mediaTypeWord, transportTimeout, transportConnection, reasoningModel} {
		if re() == nil {
			t.Error("a pattern did not compile")
		}
	}
}
