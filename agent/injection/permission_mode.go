package injection

import (
	"context"
	_ "embed"
	"strings"
	"sync"
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
}

// Inject implements Injector.
func (r *PermissionModeReminder) Inject(ctx context.Context, h Host) error {
	mode := h.PermissionMode()
	r.mu.Lock()
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
