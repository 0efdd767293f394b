package agent

import (
	"context"
	"errors"
	"fmt"

	"github.com/kimigo/kimigo/agent/permission"
	"github.com/kimigo/kimigo/agent/records"
	"github.com/kimigo/kimigo/agent/turn"
)

// newPermission builds the agent's permission manager from o.Permission,
// or returns nil when the agent has none. Its records go through the
// agent's commit path; Env, Logger and Hooks default to the agent's.
func (a *Agent) newPermission() *permission.Manager {
	if a.o.Permission == nil {
		return nil
	}
	po := *a.o.Permission
	po.Recorder = permissionRecorder{a}
	if po.Env == nil && a.o.Env != nil {
		po.Env = a.o.Env
	}
	if po.Hooks == nil && a.o.Hooks != nil {
		po.Hooks = permissionHooks{a.o.Hooks}
	}
	if po.Logger == nil {
		po.Logger = a.logger
	}
	a.fillSlots(&po.Slots)
	return permission.New(po)
}

// Permission is the agent's permission manager, or nil when the agent was
// built without Options.Permission (every call is then left to Gate).
func (a *Agent) Permission() *permission.Manager { return a.perm }

// SetPermissionMode switches the permission mode (spec 04 §1.3–1.4): it
// commits a permission.set_mode record, even for the mode already set, and
// publishes the status with the new mode. The next tool call is judged in
// the new mode, also during a running turn. It fails for an invalid mode
// and for an agent without a permission manager.
func (a *Agent) SetPermissionMode(ctx context.Context, mode permission.Mode) error {
	if a.perm == nil {
		return errors.New("set permission mode: the agent has no permission manager")
	}
	return a.perm.SetMode(ctx, mode)
}

// applyPermission hands one of permission's records to the manager. An
// agent without a manager (a library agent, the preview replay) checks
// that the record decodes and otherwise ignores it: there is no state to
// restore, and the replay stream still shows it. The caller holds mu.
func (a *Agent) applyPermission(rec records.Record) (applied, error) {
	p, err := permission.DecodeRecord(permission.RecordType(rec.Type), rec.Fields())
	if err != nil {
		return applied{}, err
	}
	if a.perm == nil {
		return applied{}, nil
	}
	if err := a.perm.Apply(p); err != nil {
		return applied{}, err
	}
	_, modeChanged := p.(permission.SetModeRecord)
	return applied{status: modeChanged}, nil // the status shows the mode
}

// permissionRecorder is the manager's Recorder: the agent's one commit
// path, which applies the record through applyPermission before it
// returns.
type permissionRecorder struct{ a *Agent }

// Commit implements permission.Recorder.
func (r permissionRecorder) Commit(ctx context.Context, p permission.Payload) error {
	_, err := r.a.commitPayload(ctx, records.Type(p.RecordType()), p)
	return err
}

// permissionHooks runs the permission chain's hook events (PreToolUse,
// PermissionRequest, PermissionResult) on the agent's hook runner, so one
// hook engine serves the turn and the chain.
type permissionHooks struct{ r turn.HookRunner }

// Block implements permission.HookRunner. A blocking hook's reason is
// what the model reads.
func (h permissionHooks) Block(ctx context.Context, event permission.HookEvent, matcher string, input map[string]any) ([]permission.HookResult, error) {
	results, err := h.r.Block(ctx, turn.HookEvent(event), matcher, input)
	if err != nil {
		return nil, fmt.Errorf("%s hook: %w", event, err)
	}
	out := make([]permission.HookResult, len(results))
	for i, r := range results {
		out[i] = permission.HookResult{Block: r.Block, Reason: r.Reason}
	}
	return out, nil
}

// Fire implements permission.HookRunner.
func (h permissionHooks) Fire(event permission.HookEvent, matcher string, input map[string]any) {
	h.r.Fire(turn.HookEvent(event), matcher, input)
}
