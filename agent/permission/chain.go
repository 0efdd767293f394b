package permission

// Slots are the chain's places for the mode policies that plan, goal and
// swarm provide when they are built (ERRATA 8). A nil slot has no opinion;
// permission imports none of those packages.
type Slots struct {
	// SwarmExclusive denies every call of a batch that mixes AgentSwarm
	// with anything else (spec 04 §2.4.2, policy 2).
	SwarmExclusive Policy
	// PlanGuard denies writes other than the plan file while plan mode is
	// on (§2.4.3, policy 4).
	PlanGuard Policy
	// PlanReview asks the user to review the plan on ExitPlanMode
	// (§5.6, policy 10).
	PlanReview Policy
	// GoalStart asks the user how to run a new goal (§6.10, policy 11).
	GoalStart Policy
	// PlanToolApprove approves EnterPlanMode, plan-file writes and
	// ExitPlanMode without a plan to review (policy 12).
	PlanToolApprove Policy
	// SwarmApprove approves a lone AgentSwarm while swarm mode is on
	// (policy 16).
	SwarmApprove Policy
}

// chain is the ordered policy list of spec 04 §2.3, the one place where the
// order is written down. The first verdict that is not None wins, so every
// deny sits above every approval, and the fallback asks.
//
// The plan review (10) and the goal-start review (11) sit above the session
// approvals and allow rules (7, 9), where spec 04 §2.3 lets an allow or
// session rule for ExitPlanMode or CreateGoal skip them: a review is the
// user's decision about one plan or one goal, so no rule stands in for it.
// Deny rules (5) and auto mode (6) still come first.
func chain(sideChannel bool, s Slots) []Policy {
	var ps []Policy
	if sideChannel {
		ps = append(ps, denyAll{}) // (0) a side question may call no tool at all
	}
	return append(ps,
		preToolUseHook{}, // 1 a PreToolUse hook blocked it: nothing overrides that
		slot{"agent-swarm-exclusive-deny", s.SwarmExclusive},   // 2 AgentSwarm shares its batch with nothing (swarm fills it)
		autoModeQuestionDeny{},                                 // 3 auto mode: nobody is there to answer AskUserQuestion
		slot{"plan-mode-guard-deny", s.PlanGuard},              // 4 plan mode: only the plan file is writable (plan fills it)
		userConfiguredDeny{},                                   // 5 deny rules sit above every mode approval
		unresolvedPathDeny{},                                   // 5a a path whose real file cannot be known (/proc fd, link loop)
		opaqueBashAsk{},                                        // 5b a script deny/ask rules cannot see through asks when such rules exist
		sandboxUnavailableAsk{},                                // 5c a promised sandbox this system cannot enforce: commands ask
		autoModeApprove{},                                      // 6 auto mode approves whatever the denies let through
		slot{"exit-plan-mode-review-ask", s.PlanReview},        // 10 the user reviews every plan on ExitPlanMode (plan fills it)
		slot{"goal-start-review-ask", s.GoalStart},             // 11 the user picks how each new goal runs (goal fills it)
		sessionApprovalHistory{},                               // 7 "approve for this session" beats ask rules, not deny rules
		userConfiguredAsk{},                                    // 8 ask rules beat allow rules and every built-in approval
		userConfiguredAllow{},                                  // 9 allow rules; for Bash every command must be allowed
		slot{"plan-mode-tool-approve", s.PlanToolApprove},      // 12 plan tools and plan-file writes need no prompt (plan fills it)
		sensitiveFileAsk{},                                     // 13 env files, keys and credentials always ask
		gitControlPathAsk{},                                    // 14 the repository's own control files always ask
		executedFileAsk{},                                      // 14b kimigo's own files, and in manual mode files commands run
		workspaceBoundaryAsk{},                                 // 14a writes outside the workspace ask, yolo too (ERRATA 12)
		yoloModeApprove{},                                      // 15 yolo approves what nothing above asked about
		slot{"swarm-mode-agent-swarm-approve", s.SwarmApprove}, // 16 swarm mode runs a lone AgentSwarm (swarm fills it)
		fetchURLHostAsk{},                                      // 16a manual mode: a fetch asks once per host
		defaultToolApprove{},                                   // 17 read-only and conversational tools run freely
		gitCwdWriteApprove{},                                   // 18 Write/Edit inside a git work tree run freely
		fallbackAsk{},                                          // 19 nothing decided: ask
	)
}
