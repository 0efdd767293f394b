package injection

import (
	"context"
	_ "embed"
	"strings"
	"sync"

	"github.com/kimigo/kimigo/llm"
)

// VariantPermissionMode is the variant of the permission-mode reminders.
const VariantPermissionMode = "permission_mode"

// modeAuto is the permission mode the reminders are about.
const modeAuto = "auto"

var (
	//go:embed text/auto_mode_enter.md
	autoEnterText string
	//go:embed text/auto_mode_exit.md
	autoExitText string
)

// PermissionModeReminder tells the model when auto mode starts and ends
// (spec 04 §8.2): entering auto says approvals are automatic and questions
// are off; leaving it says prompts may come back; manual ↔ yolo says
// nothing. After a compaction auto is restated.
type PermissionModeReminder struct {
	Tracker
	mu       sync.Mutex
	lastMode string // guarded by mu; "" before the first step
	refresh  bool   // guarded by mu; a compaction dropped the reminder
	primed   bool   // guarded by mu; lastMode was read from history
}

// Inject implements Injector.
func (r *PermissionModeReminder) Inject(ctx context.Context, h Host) error {
	mode := h.PermissionMode()
	r.mu.Lock()
	if !r.primed {
		// A resumed conversation already says what it last said: start
		// from its last reminder, so a resume does not repeat it.
		r.primed = true
		if r.lastMode == "" && lastSaidAuto(h) {
			r.lastMode = modeAuto
		}
	}
	prev := r.lastMode
	if !r.refresh && mode == prev {
		r.mu.Unlock()
		return nil
	}
	r.refresh, r.lastMode = false, mode
	r.mu.Unlock()
	switch {
	case mode == modeAuto:
		return r.Append(ctx, h, VariantPermissionMode, strings.TrimSpace(autoEnterText))
	case prev == modeAuto:
		return r.Append(ctx, h, VariantPermissionMode, strings.TrimSpace(autoExitText))
	}
	return nil
}

// OnCompacted implements Injector: the mode is restated at the next
// injection.
func (r *PermissionModeReminder) OnCompacted() {
	r.Tracker.OnCompacted()
	r.mu.Lock()
	r.refresh = true
	r.mu.Unlock()
}

// lastSaidAuto reports whether the last permission-mode reminder in
// history announced auto mode.
func lastSaidAuto(h Host) bool {
	msgs := h.History()
	for i := len(msgs) - 1; i >= 0; i-- {
		if o := msgs[i].Origin; o != nil && o.Variant == VariantPermissionMode {
			return strings.Contains(llm.ExtractText(msgs[i].Message, ""), strings.TrimSpace(autoEnterText))
		}
	}
	return false
}
