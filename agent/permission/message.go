package permission

import (
	"fmt"
	"strings"
)

// Texts the model reads when a call is not run. The fragments spec 04
// §2.10 pins are kept exactly; the rest is kimigo's own wording.
const (
	// sideQuestionText is pinned by spec 04 §2.9.
	sideQuestionText = "Tool calls are disabled for side questions. Answer with text only."
	// preToolUseBlockedText is what a PreToolUse block without a reason
	// says (spec 04 §2.4.1).
	preToolUseBlockedText = "Blocked by PreToolUse hook"
	autoModeQuestionText  = "AskUserQuestion is not available in auto mode: nobody is watching to answer. " +
		"Make the decision yourself and carry on."
	subagentGuidanceText = "Try a different approach: don't retry the same call, and don't try to get around the restriction."
	rejectGuidanceText   = "Do not re-attempt the exact same call. Think about why it was rejected, " +
		"then change your approach or ask the user how to proceed."
)

// policyDenyText is the default text of a deny verdict without a message.
func policyDenyText(c *Call) string {
	return withGuidance(c, fmt.Sprintf("Tool %q was denied by permission policy.", c.Name()), "")
}

// ruleDenyText is the text of a deny rule (policy 5).
func ruleDenyText(c *Call, reason string) string {
	msg := fmt.Sprintf("Tool %q was denied by permission rule.", c.Name())
	if c.AgentType == AgentSub {
		msg = fmt.Sprintf("Tool %q was denied.", c.Name())
	}
	if reason != "" {
		msg += " Reason: " + reason
	}
	return withGuidance(c, msg, "")
}

// rejectedText is the text of a rejected approval request.
func rejectedText(c *Call, feedback string) string {
	msg := fmt.Sprintf("Tool %q was not run because the user rejected the approval request.", c.Name())
	if feedback != "" {
		msg += " Reason: " + feedback
	}
	return withGuidance(c, msg, rejectGuidanceText)
}

// cancelledText is the text of a cancelled approval request.
func cancelledText(c *Call, feedback string) string {
	msg := fmt.Sprintf("Tool %q was not run because the approval request was cancelled.", c.Name())
	if feedback != "" {
		msg += " Reason: " + feedback
	}
	return withGuidance(c, msg, "")
}

// unanswerableText is the text of a call policy p would ask about when
// nobody can answer (no approver: a headless run, ERRATA 34): it is
// denied, and the text says what would allow it.
func unanswerableText(c *Call, p Policy) string {
	rule := c.Exec().ApprovalRule
	if rule == "" {
		rule = c.Name()
	}
	allow := fmt.Sprintf("An allow rule for %s (--allowedTools %q for one run, or [[permission.rules]] in config.toml) allows it.", rule, rule)
	var why string
	switch p.Name() {
	case "workspace-boundary-ask":
		why = "It writes outside the work dir and the --add-dir dirs. Run with --add-dir <dir> to allow writes there."
	case "sandbox-unavailable-ask":
		why = "Commands must run in the sandbox, which this system cannot provide. --sandbox off runs them without it."
	case "opaque-bash-ask":
		why = "The command cannot be checked against the Bash deny and ask rules (it does not parse, hides a command name, " +
			"or nests too deeply). Write each command plainly."
	case "user-configured-ask":
		why = "An ask rule matches it. --yolo runs it anyway."
	case "sensitive-file-access-ask":
		why = "It touches a file that may hold secrets. " + allow
	case "git-control-path-access-ask":
		why = "It touches the repository's control files (.git, .kimi-code). " + allow
	case "executed-file-write-ask":
		why = "It writes kimigo's own .kimi-code files or a file that build and test commands run. " + allow
	case "exit-plan-mode-review-ask":
		why = "Nobody is here to review the plan, and no rule stands in for a review. A run started with --plan " +
			"(its plan is its answer) or --permission-mode auto leaves plan mode without one."
	case "goal-start-review-ask":
		why = "Nobody is here to confirm the goal, and no rule stands in for that. A prompt of \"/goal <objective>\" " +
			"or --permission-mode auto starts a goal without asking."
	case "fetch-url-host-ask":
		why = "It fetches from a host this session has not approved. " + allow
	case "fallback-ask":
		why = allow + " So does --permission-mode auto."
	default:
		why = allow
	}
	msg := fmt.Sprintf("Tool %q was not run: it needs approval, and nobody is here to approve it. %s", c.Name(), why)
	return withGuidance(c, msg, "Do not retry the same call; carry on without it or explain what you need.")
}

// brokenRuleText names a rule whose argument cannot be matched.
func brokenRuleText(tool string, r *compiledRule) string {
	return fmt.Sprintf("Tool %q was blocked because the permission rule %q is invalid (%v). "+
		"Fix or remove the rule.", tool, r.Pattern, r.argErr)
}

// withGuidance ends a subagent's message with the subagent guidance and a
// main agent's with mainGuidance ("" for none).
func withGuidance(c *Call, msg, mainGuidance string) string {
	g := mainGuidance
	if c.AgentType == AgentSub {
		g = subagentGuidanceText
	}
	if g == "" {
		return msg
	}
	return strings.TrimSpace(msg) + " " + g
}
