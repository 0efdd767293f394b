// Package workspace is what the tools and the permission chain agree on
// about where a call acts (spec 05 §1.4, §1.8, §3.1–3.2, ERRATA 12, 36):
// the workspace dirs (the work dir plus the --add-dir dirs), the path
// access policy that turns a model's path argument into a canonical one,
// the sensitive-file rules, and the matching of a permission rule's
// argument against a call's subject (a command, a pattern, a URL or a
// path) on internal/glob.
//
// It is a leaf: it imports osenv and internal/glob and nothing else, so
// tools and agent/permission both use it without either importing the
// other (STYLE.md §2).
//
// It owns: Dirs and its containment rule (path.go); ResolvePath, its
// intents and the model-facing *PathError (path.go); IsSensitive and the
// search walk's exclusion globs (sensitive.go); EscapeRule, ApprovalRule
// and the string and path rule matchers (rule.go).
//
// Invariants, and the tests that guard them:
//   - Containment is by whole path components (/ws-evil is not in /ws),
//     and a relative path that leaves the workspace is refused with the
//     spec's wording (path_test.go TestResolvePath).
//   - Templates and public keys are not sensitive; .env files, private
//     keys, their copies and the cloud credential stores are
//     (path_test.go TestIsSensitive).
//   - An approval rule matches only the call it was made from, and every
//     spelling of a path (raw, "./"-less, canonical, "~") matches the same
//     rules (rule_test.go).
package workspace
