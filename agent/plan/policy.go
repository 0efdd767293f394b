package plan

import (
	"context"
	"fmt"
	"strings"

	"github.com/kimigo/kimigo/agent/permission"
	"github.com/kimigo/kimigo/loop"
	"github.com/kimigo/kimigo/tools"
)

// The three places plan mode takes in the permission chain (spec 04 §2.3,
// ERRATA 8): the guard (4), the review of ExitPlanMode (10) and the
// approval of the plan tools and plan-file writes (12).

// noPlanFile stands for the plan file in the guard's message while plan
// mode has none.
const noPlanFile = "(no plan file selected yet)"

// Slots fills the plan slots of s with m's policies.
func (m *Mode) Slots(s *permission.Slots) {
	s.PlanGuard, s.PlanReview, s.PlanToolApprove = Guard{m}, Review{m}, ToolApprove{m}
}

// Guard is policy 4, plan-mode-guard-deny: while plan mode is on, Write
// and Edit may write the plan file and nothing else, and TaskStop,
// CronCreate and CronDelete are refused (spec 04 §2.4.3).
type Guard struct{ m *Mode }

// Name implements permission.Policy.
func (Guard) Name() string { return "plan-mode-guard-deny" }

// Evaluate implements permission.Policy.
func (g Guard) Evaluate(_ context.Context, c *permission.Call) (permission.Verdict, error) {
	s := g.m.State()
	if !s.Active {
		return permission.Verdict{}, nil
	}
	switch name := c.Name(); name {
	case tools.NameWrite, tools.NameEdit:
		if s.Path != "" && writesOnly(c, s.Path) {
			return permission.Verdict{}, nil // policy 12 approves it, unless a rule decides first
		}
		p := s.Path
		if p == "" {
			p = noPlanFile
		}
		return permission.Verdict{Kind: permission.Deny, Message: fmt.Sprintf("Plan mode is active: only the current "+
			"plan file %s may be written. Call ExitPlanMode to leave plan mode before editing other files.", p)}, nil
	case tools.NameTaskStop:
		return permission.Verdict{Kind: permission.Deny, Message: "TaskStop is not available in plan mode. " +
			"Call ExitPlanMode before stopping a background task."}, nil
	case "CronCreate", "CronDelete":
		return permission.Verdict{Kind: permission.Deny, Message: name + " is not available in plan mode because it " +
			"would mutate scheduled work that runs after plan exit. Call ExitPlanMode first."}, nil
	}
	return permission.Verdict{}, nil
}

// writesOnly reports a call that writes at least one file and no file but
// path (canonical paths, compared exactly).
func writesOnly(c *permission.Call, path string) bool {
	n := 0
	for _, a := range c.Exec().Accesses {
		if a.Kind != loop.AccessFile || (a.Operation != loop.OpWrite && a.Operation != loop.OpReadWrite) {
			continue
		}
		if a.Path != path {
			return false
		}
		n++
	}
	return n > 0
}

// reviewDisplay is the plan-review display of an ExitPlanMode call with a
// plan to review, or nil.
func reviewDisplay(c *permission.Call) *tools.PlanReviewDisplay {
	d, ok := c.Exec().Display.(*tools.PlanReviewDisplay)
	if !ok || c.Name() != tools.NameExitPlanMode || strings.TrimSpace(d.Plan) == "" {
		return nil
	}
	return d
}

// Review is policy 10, exit-plan-mode-review-ask: outside auto mode the
// user reviews the plan ExitPlanMode presents, and the answer becomes the
// call's result; the tool itself does not run (spec 04 §5.6). Every plan
// is reviewed: the answer is never remembered (Verdict.OnceOnly), and the
// chain puts this policy above session approvals and allow rules.
type Review struct{ m *Mode }

// Name implements permission.Policy.
func (Review) Name() string { return "exit-plan-mode-review-ask" }

// Evaluate implements permission.Policy.
func (r Review) Evaluate(_ context.Context, c *permission.Call) (permission.Verdict, error) {
	d := reviewDisplay(c)
	if d == nil || c.Mode == permission.ModeAuto || r.m.o.Unreviewed || !r.m.State().Active {
		return permission.Verdict{}, nil
	}
	return permission.Verdict{Kind: permission.Ask, OnceOnly: true, OnApproval: func(ctx context.Context, resp permission.ApprovalResponse) (permission.Verdict, bool, error) {
		res := r.m.reviewed(ctx, d, resp)
		return permission.Verdict{Kind: permission.Result, Result: &res}, true, nil
	}}, nil
}

// Labels of the review's own choices (spec 04 §4.2).
const (
	labelRejectAndExit = "Reject and Exit"
	labelRevise        = "Revise"
)

// reviewed is the result of a plan review answered with resp.
func (m *Mode) reviewed(ctx context.Context, d *tools.PlanReviewDisplay, resp permission.ApprovalResponse) loop.ToolResult {
	stop := func(r loop.ToolResult) loop.ToolResult { r.StopTurn = true; return r }
	switch {
	case resp.Decision == permission.ApprovalApproved:
		// The plan file is the plan (spec 04 §5.6): the user may have
		// edited it during the review, so the approved text is the file's.
		plan := d.Plan
		if d.Path != "" {
			text, err := m.read(d.Path)
			if err != nil {
				return loop.ErrorResult("Failed to read plan file: " + err.Error())
			}
			if strings.TrimSpace(text) != "" {
				plan = text
			}
		}
		if err := m.Exit(ctx); err != nil {
			return loop.ErrorResult("Failed to exit plan mode: " + err.Error())
		}
		selected := ""
		for _, o := range d.Options {
			if o.Label == resp.SelectedLabel {
				selected = o.Label
			}
		}
		return loop.ToolResult{Output: loop.TextOutput(tools.ApprovedPlanText(plan, d.Path, selected)), Brief: "Approved"}
	case resp.Decision == permission.ApprovalCancelled:
		return loop.TextResult("Plan approval dismissed. Plan mode remains active.")
	case resp.SelectedLabel == labelRejectAndExit:
		if err := m.Exit(ctx); err != nil {
			return stop(loop.ErrorResult("Plan rejected by user. Failed to exit plan mode: " + err.Error()))
		}
		return stop(loop.ErrorResult("Plan rejected by user. Plan mode deactivated."))
	case resp.Feedback != "":
		return loop.TextResult("User rejected the plan. Feedback:\n\n" + resp.Feedback)
	case resp.SelectedLabel == labelRevise:
		return loop.TextResult("User requested revisions. Plan mode remains active.")
	}
	return stop(loop.ErrorResult("Plan rejected by user. Plan mode remains active."))
}

// ToolApprove is policy 12, plan-mode-tool-approve: EnterPlanMode, writes
// of exactly the plan file, and an ExitPlanMode with nothing to review, or
// with nobody to review it (Options.Unreviewed), run without a prompt.
type ToolApprove struct{ m *Mode }

// Name implements permission.Policy.
func (ToolApprove) Name() string { return "plan-mode-tool-approve" }

// Evaluate implements permission.Policy.
func (a ToolApprove) Evaluate(_ context.Context, c *permission.Call) (permission.Verdict, error) {
	s := a.m.State()
	approve := false
	switch c.Name() {
	case tools.NameEnterPlanMode:
		approve = true
	case tools.NameWrite, tools.NameEdit:
		approve = s.Active && s.Path != "" && writesOnly(c, s.Path)
	case tools.NameExitPlanMode:
		approve = !s.Active || reviewDisplay(c) == nil || a.m.o.Unreviewed
	}
	if approve {
		return permission.Verdict{Kind: permission.Approve}, nil
	}
	return permission.Verdict{}, nil
}
