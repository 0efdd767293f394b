// Package permission decides whether a resolved tool call may run: the
// ordered policy chain, the Tool(argument) rule language, approval
// requests, and the permission mode (spec 04 §1–4, ERRATA 8–14).
//
// It owns:
//   - Manager.Authorize, the loop's AuthorizeToolExecution hook: it runs the
//     chain (chain.go, the one place where the order is written) and turns
//     the first verdict into a loop.Authorization.
//   - the generic policies, one file each (deny_all.go … fallback_ask.go),
//     and named Slots for the mode policies plan, goal and swarm provide;
//     this package imports none of them.
//   - rules: ParsePattern, LoadRules (validation with file, line, text and
//     fault position), and matching. Bash rules are shell-aware
//     (bash_script.go, bash_word.go, bash_wrapper.go, bash_rules.go): the
//     command is parsed with mvdan.cc/sh, an allow rule approves only when
//     every command of the script matches an allow rule, a deny or ask rule
//     fires when any one does, and redirection targets go through the
//     Write/Edit rules, the sensitive-file, git-control and workspace asks.
//     rule_reference.md is the user-facing description.
//   - issue 16's asks: a Bash script that deny and ask rules cannot see
//     through asks whenever such a rule exists (opaque_bash_ask.go), and
//     every Bash call asks while the promised sandbox is unavailable
//     (sandbox_unavailable_ask.go, Options.Unconfined). Without an
//     approver an ask is denied with a text naming the flag or rule that
//     allows the call (message.go unanswerableText). Commands that run
//     others in ways the analysis does not follow (flock, strace, chroot,
//     awk programs that call system(), git -c alias.x=!…) make a script
//     opaque (bash_runner.go).
//   - real paths (ERRATA 36, 37): Call.FileAccesses adds each access's
//     real path (workspace.RealPath: symbolic links, /proc/<pid>/root and
//     cwd); every policy judges both forms; a path whose target cannot be
//     known is refused (unresolved_path_deny.go). Deny and ask rules for
//     Write govern every file written, for Read every file read and tree
//     searched (rule_match.go accessMatchedBy). Writes to kimigo's own
//     .kimi-code files ask, and in manual mode writes to files build and
//     test commands run (executed_file_ask.go).
//   - approvals: the request, the once/session/always/reject answers, the
//     session approval list, "always" rules handed to a RuleWriter.
//   - the mode (manual, auto, yolo) and the records permission.set_mode and
//     permission.record_approval_result: payloads, DecodeRecord and Apply.
//
// It does not own: reading config files (config builds RuleSpecs and
// implements RuleWriter), committing records (the agent's Recorder), the
// UI of approvals (an Approver), the hook engine (a HookRunner), plan, goal
// and swarm state, the glob engine (internal/glob), the workspace, path and
// sensitive-file rules it shares with the tools (package workspace), or
// the tools themselves: it never imports tools. A Bash call's command is
// what the Bash tool decoded once and declared in its command display
// (policy.go); the built-in tool names the chain refers to are in
// toolname.go.
//
// Invariants:
//   - The first verdict that is not None wins; every deny policy sits above
//     every approval; the last policy asks. Nothing is approved by default.
//   - State changes only through Apply, live and on resume, so replaying
//     the records restores the mode and the session approvals.
//   - At most one approval request per Manager is open; cancelling the
//     turn cancels it (ErrApprovalCancelled), and nothing is recorded for it.
//   - An allow rule never approves a Bash script that does not parse, uses
//     eval, names a command through an expansion, or runs a command that no
//     allow rule matches; telemetry never carries argument text.
//   - A malformed rule from a file is dropped alone at load time; one that
//     reaches the chain anyway matches nothing, or blocks the calls it
//     selects when only its argument glob is bad.
//
// Tests: chain_test.go (the order, spec 04 §10 scenarios 1–34),
// matrix_test.go (the §1.2 mode × situation matrix), rule_test.go (35–44
// and load errors), approval_test.go (45–55, one open request, "always"),
// subagent_test.go (56–59), record_test.go (record JSON, resume),
// bash_test.go (the adversarial table), bash_fuzz_test.go (FuzzBashRules),
// bash_script_internal_test.go (what the analysis reads), headless_test.go
// (ERRATA 34 denials), realpath_test.go (links and /proc on disk),
// safety_table_test.go (issue 16's table of at least 150 calls),
// TestRuleReferenceTable (the reference's rules × commands table), and
// bench_test.go (BenchmarkChainBash). slots_test.go puts the real plan,
// goal and swarm policies (agent/plan, agent/goal, agent/swarm) into the
// slots.
package permission
