package permission

import "context"

// HookEvent names a lifecycle hook event the permission chain fires.
type HookEvent string

// Hook events of spec 04 §4.4.
const (
	// HookPreToolUse runs before every other policy and may block.
	HookPreToolUse HookEvent = "PreToolUse"
	// HookPermissionRequest fires, unawaited, before an approval request.
	HookPermissionRequest HookEvent = "PermissionRequest"
	// HookPermissionResult fires, unawaited, after the answer (or error).
	HookPermissionResult HookEvent = "PermissionResult"
)

// HookResult is what one hook command decided.
type HookResult struct {
	Block  bool
	Reason string
}

// HookRunner runs the user's lifecycle hooks (ERRATA 15). Nil means no
// hooks. Input keys are camelCase; the engine converts them.
type HookRunner interface {
	// Block runs the hooks of event whose matcher matches and waits for
	// them; it must return soon after ctx is done.
	Block(ctx context.Context, event HookEvent, matcher string, input map[string]any) ([]HookResult, error)
	// Fire starts the hooks and returns at once; failures are the
	// runner's to log. Safe for concurrent use.
	Fire(event HookEvent, matcher string, input map[string]any)
}

// Telemetry receives permission events (spec 04 §2.1 step 3, §4.1 step 8).
// Properties never hold argument text. Nil means none. Track must not
// block; it is called on the turn goroutine.
type Telemetry interface {
	Track(event string, props map[string]any)
}

// Telemetry event names.
const (
	EventPolicyDecision = "permission_policy_decision"
	EventApprovalResult = "permission_approval_result"
)
