package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/profile"
	"github.com/kimigo/kimigo/session/batch"
	"github.com/kimigo/kimigo/tools"
)

// AgentSwarm on the subagent host (spec 05 §5.7): swarmRunner checks a
// call, turns its tasks into batch tasks and runs them with the batch
// scheduler; swarmLauncher is the scheduler's view of the host.

// swarmTiming are the scheduler's intervals; zero is the spec's. Only
// this package's tests change it, to run real swarms on the wall clock.
var swarmTiming batch.Timing

// resumedProfile is the profile a resume task names (the child keeps its
// own).
const resumedProfile = "subagent"

// swarmRunner runs one agent's AgentSwarm calls on its subagent host; it
// implements tools.SwarmRunner.
type swarmRunner struct{ h *subagentHost }

var _ tools.SwarmRunner = swarmRunner{}

// RunSwarm implements tools.SwarmRunner. It starts nothing when the
// concurrency setting is malformed, the item profile is not delegatable
// or a resumed id is not one of this agent's children.
func (r swarmRunner) RunSwarm(ctx context.Context, req tools.SwarmRequest) ([]tools.SwarmResult, error) {
	h := r.h
	maxConc, err := batch.ParseMaxConcurrency(h.s.cfg.Env.SwarmMaxConcurrencyRaw)
	if err != nil {
		return nil, err
	}
	timeout := h.Timeout()
	tasks := make([]batch.Task, 0, len(req.Tasks))
	spawns := false
	for _, t := range req.Tasks {
		bt := batch.Task{Kind: batch.KindSpawn, Profile: req.Profile, Prompt: t.Prompt, Description: t.Description,
			Index: t.Index, Item: t.Item, Timeout: timeout}
		if t.ResumeAgentID != "" {
			item, err := h.swarmChild(t.ResumeAgentID)
			if err != nil {
				return nil, err
			}
			bt.Kind, bt.ResumeAgentID, bt.Profile, bt.Item = batch.KindResume, t.ResumeAgentID, resumedProfile, item
		} else {
			spawns = true
		}
		tasks = append(tasks, bt)
	}
	if spawns && !slices.ContainsFunc(h.delegates(), func(p *profile.Profile) bool { return p.Name == req.Profile }) {
		return nil, fmt.Errorf("Subagent profile %q was not found", req.Profile) //lint:ignore ST1005 the model reads it verbatim
	}
	turnID, err := strconv.Atoi(req.TurnID)
	if err != nil {
		turnID = event.NoTurn
	}
	l := swarmLauncher{h: h, callID: req.ToolCallID, turnID: turnID}
	res, err := batch.Run(ctx, l, tasks, batch.Options{MaxConcurrency: maxConc, IsRateLimit: isRateLimit,
		Timing: swarmTiming, Logger: h.s.logger})
	if err != nil {
		return nil, err
	}
	out := make([]tools.SwarmResult, len(res))
	for i, r := range res {
		t := req.Tasks[i]
		t.Item = r.Task.Item
		out[i] = tools.SwarmResult{Task: t, AgentID: r.AgentID, Status: string(r.Status), State: string(r.State),
			Output: r.Output, Error: r.Error}
	}
	return out, nil
}

// swarmChild checks that id is one of the owner's children and returns
// the swarm item it was spawned for ("" for none).
func (h *subagentHost) swarmChild(id string) (string, error) {
	e, ok := h.s.agentEntry(id)
	if !ok || e.Type != AgentSub {
		return "", fmt.Errorf("Agent instance %q is not a subagent", id) //lint:ignore ST1005 the model reads it verbatim
	}
	if e.ParentAgentID == nil || *e.ParentAgentID != h.owner {
		return "", fmt.Errorf("Agent instance %q does not belong to this parent agent", id) //lint:ignore ST1005 the model reads it verbatim
	}
	var item string
	if len(e.SwarmItem) > 0 && json.Unmarshal(e.SwarmItem, &item) != nil {
		item = "" // an item another writer stored as something else
	}
	return item, nil
}

// isRateLimit reports a child that failed on the provider's rate limit.
func isRateLimit(err error) bool {
	var rl *RateLimitError
	return errors.As(err, &rl) || llm.IsProviderRateLimitError(err)
}

// swarmLauncher is the subagent host as the batch scheduler sees it.
type swarmLauncher struct {
	h      *subagentHost
	callID string
	turnID int
}

// options are a task's run options: every attempt is a foreground swarm
// run whose rate-limit failures stay quiet (the scheduler retries them).
func (l swarmLauncher) options(t batch.Task, r batch.Launch) SpawnOptions {
	idx := t.Index
	o := SpawnOptions{Profile: t.Profile, Prompt: t.Prompt, Description: t.Description, ParentToolCallID: l.callID,
		ParentTurnID: l.turnID, SwarmIndex: &idx, OnReady: r.OnReady, SuppressRateLimitFailure: true}
	if t.Kind == batch.KindSpawn && t.Item != "" {
		o.SwarmItem, _ = json.Marshal(t.Item) // a string always encodes
	}
	return o
}

// Spawn implements batch.Launcher.
func (l swarmLauncher) Spawn(ctx context.Context, t batch.Task, r batch.Launch) (batch.Handle, error) {
	return swarmHandleOf(ctx)(l.h.Spawn(ctx, l.options(t, r)))
}

// Resume implements batch.Launcher.
func (l swarmLauncher) Resume(ctx context.Context, id string, t batch.Task, r batch.Launch) (batch.Handle, error) {
	return swarmHandleOf(ctx)(l.h.Resume(ctx, id, l.options(t, r)))
}

// Retry implements batch.Launcher.
func (l swarmLauncher) Retry(ctx context.Context, id string, t batch.Task, r batch.Launch) (batch.Handle, error) {
	return swarmHandleOf(ctx)(l.h.Retry(ctx, id, l.options(t, r)))
}

// Suspended implements batch.Launcher: subagent.suspended on the parent.
func (l swarmLauncher) Suspended(_ batch.Task, id, reason string) {
	l.h.s.bus.Publish(event.SubagentSuspended{Header: event.Header{AgentID: l.h.owner, TurnID: l.turnID},
		SubagentID: id, Reason: reason})
}

// swarmHandle is a host handle as the scheduler sees it.
type swarmHandle struct {
	ctx context.Context
	h   *SubagentHandle
}

func swarmHandleOf(ctx context.Context) func(*SubagentHandle, error) (batch.Handle, error) {
	return func(h *SubagentHandle, err error) (batch.Handle, error) {
		if err != nil {
			return nil, err
		}
		return swarmHandle{ctx: ctx, h: h}, nil
	}
}

// AgentID implements batch.Handle.
func (h swarmHandle) AgentID() string { return h.h.AgentID }

// Wait implements batch.Handle: the run's end, its error, or the
// attempt's cancellation.
func (h swarmHandle) Wait() (batch.Completion, error) {
	c, err := h.h.Wait(h.ctx)
	if err == nil {
		err = c.Err
	}
	if err != nil {
		return batch.Completion{}, err
	}
	var u llm.TokenUsage
	if c.Usage.Total != nil {
		u = *c.Usage.Total
	}
	return batch.Completion{Output: c.Result, Usage: u}, nil
}
