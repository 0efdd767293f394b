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

// unanswerableText is the text of a call the chain would ask about when
// nobody can answer (no approver: a headless run): what would allow it.
func unanswerableText(c *Call) string {
	rule := c.Exec().ApprovalRule
	if rule == "" {
		rule = c.Name()
	}
	msg := fmt.Sprintf("Tool %q was not run: it needs approval, and nobody is here to approve it. "+
		"An allow rule for %s in [[permission.rules]] of config.toml, or the auto or yolo permission mode, allows it.",
		c.Name(), rule)
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
