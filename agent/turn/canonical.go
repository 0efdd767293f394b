package turn

import (
	"encoding/json"
	"unicode/utf8"

	"github.com/kimigo/kimigo/llm/plainjson"
)

// CanonicalArgs returns tool-call arguments in a form that is equal for
// equal values (spec 03 §3.1, §7.7): compact JSON with the keys of every
// object sorted, at every depth (objects inside arrays included; arrays keep
// their order), and without HTML escaping, so `<`, `>` and `&` stay as
// written. Numbers are read as float64, the way a JavaScript host reads
// them, so `1`, `1.0` and `1e0` are the same number. When a key repeats, the
// last value wins.
//
// Text that is not valid JSON, or that holds a number float64 cannot
// represent, is returned unchanged: it can never equal the canonical form of
// valid JSON, so it only matches the same text.
//
// CanonicalArgs is pure and safe for concurrent use.
func CanonicalArgs(args json.RawMessage) string {
	var v any
	if err := json.Unmarshal(args, &v); err != nil {
		return string(args) // not JSON: the text itself is the identity
	}
	b, err := plainjson.Marshal(v)
	if err != nil {
		return string(args) // cannot happen for decoded JSON; keep the text as the identity
	}
	return string(b)
}

// parsesAsArgs reports whether the model's argument text is what the loop
// accepts as arguments: empty, or valid UTF-8 JSON. Text that is neither is
// normalised to {} by the loop, and the deduplicator keys it by the text.
func parsesAsArgs(raw string) bool {
	return raw == "" || (utf8.ValidString(raw) && json.Valid([]byte(raw)))
}
