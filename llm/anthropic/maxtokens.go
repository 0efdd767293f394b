package anthropic

import "strconv"

// fallbackMaxTokens is max_tokens for models without a known ceiling.
const fallbackMaxTokens = 128000

// outputCeilings are the documented Messages API output ceilings, keyed
// "<family>-<major>[-<minor>]". A minor release without an entry inherits
// the nearest lower catalogued minor of its major (the ceiling has never
// gone down within a major), then the major-only entry.
var outputCeilings = map[string]int{
	"fable-5":    128000,
	"mythos-5":   128000,
	"opus-4-8":   128000,
	"opus-4-7":   128000,
	"opus-4-6":   128000,
	"opus-4-5":   64000,
	"opus-4-1":   32000,
	"opus-4-0":   32000,
	"opus-4":     32000,
	"sonnet-5":   128000,
	"sonnet-4-6": 128000,
	"sonnet-4-5": 64000,
	"sonnet-4-0": 64000,
	"sonnet-4":   64000,
	"haiku-4-5":  64000,
	"haiku-4":    64000,
	"opus-3-5":   8192,
	"sonnet-3-5": 8192,
	"sonnet-3-7": 8192,
	"haiku-3-5":  8192,
	"opus-3":     4096,
	"sonnet-3":   4096,
	"haiku-3":    4096,
}

// outputCeiling looks up the ceiling for a Claude model id: the exact
// minor, then each lower minor down to 0, then the major alone.
func outputCeiling(model string) (int, bool) {
	v, ok := parseModelVersion(model, true)
	if !ok {
		return 0, false
	}
	prefix := string(v.family) + "-" + strconv.Itoa(v.major)
	for minor := v.minor; minor >= 0; minor-- {
		if c, ok := outputCeilings[prefix+"-"+strconv.Itoa(minor)]; ok {
			return c, true
		}
	}
	c, ok := outputCeilings[prefix]
	return c, ok
}

// resolveMaxTokens is the max_tokens to send for model. override > 0 is
// the caller's wish: it is clamped to a known ceiling and used as is for
// unknown models. Without an override a known ceiling is sent in full,
// because thinking shares the output budget and a lower value can cut a
// tool call short; unknown models get fallbackMaxTokens.
func resolveMaxTokens(model string, override int) int {
	ceiling, known := outputCeiling(model)
	switch {
	case !known && override > 0:
		return override
	case !known:
		return fallbackMaxTokens
	case override > 0:
		return min(override, ceiling)
	}
	return ceiling
}
