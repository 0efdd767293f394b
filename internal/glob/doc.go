// Package glob matches strings against picomatch-style glob patterns, the
// pattern language of permission rules (spec 04 §3.4).
//
// It owns compiling a pattern (Compile), matching a compiled pattern
// (Glob.Match) and a bounded cache of compiled patterns (Cache). It does not
// own what a rule means: the "!" prefix of a rule argument, the "./" retry of
// string subjects and the path spellings of path subjects belong to the
// callers (agent/permission, tools).
//
// Semantics, all anchored to the whole value:
//
//   - "?" is one character and "*" any run of characters, neither crossing
//     "/". "**" is a globstar only as a whole "/"-separated segment, where it
//     spans any number of segments (zero too: "a/**" matches "a"); elsewhere
//     it is a "*".
//   - A wildcard that starts a pattern segment never matches a value segment
//     starting with "." (so never "." or ".."): "*" does not match ".env" and
//     "/repo/**" does not match "/repo/.env".
//   - "[abc]", "[a-c]", "[!a]", "[^a]" and POSIX classes ("[[:digit:]]");
//     "{a,b}" alternatives and "{1..3}" ranges; extglobs "@(a|b)", "?(…)",
//     "*(…)", "+(…)", "!(…)". An unclosed "[", "{" or "(" is literal, and so
//     is every other character. "\x" is a literal x.
//   - A leading "./" of the pattern is ignored; the value is never changed.
//   - An odd number of leading "!" negates the whole pattern.
//   - Case matters unless Options.NoCase. The empty value matches nothing.
//
// Invariants: matching never panics and never backtracks exponentially (the
// matcher simulates the pattern on the set of reachable value positions, so
// its cost is bounded by pattern size × value length²); the same pattern and
// value always give the same answer; a malformed pattern (empty, a reversed
// range, an unknown POSIX class, too many brace alternatives) is an *Error
// naming the byte offset of the fault, never a silent non-match.
//
// The package imports nothing from the project.
//
// Tests: glob_test.go runs the normative value table of spec 04 §3.4 plus
// the other behaviours above; glob_fuzz_test.go checks that arbitrary
// patterns and values never panic, match deterministically and agree with a
// naive reference matcher on the "*"/"?" subset; cache_test.go pins the LRU.
package glob
