package agent

import (
	"context"

	"github.com/kimigo/kimigo/agent/history"
	"github.com/kimigo/kimigo/agent/permission"
	"github.com/kimigo/kimigo/agent/records"
	"github.com/kimigo/kimigo/agent/swarm"
)

// Swarm mode (Options.Swarm; spec 04 §7): the agent binds it to its
// commit path, puts its policies into the permission chain's slots,
// applies its records (taking the enter reminder back inside the exit's
// apply, so a replay does the same) and ends a task's or a tool's swarm
// mode after each turn.

// Swarm is the agent's swarm mode, nil without one.
func (a *Agent) Swarm() *swarm.Mode { return a.o.Swarm }

// bindSwarm connects swarm mode to the agent.
func (a *Agent) bindSwarm() {
	if a.o.Swarm != nil {
		a.o.Swarm.Bind(swarmHost{a})
	}
}

// fillSwarmSlots puts the swarm policies into the chain's empty slots.
func (a *Agent) fillSwarmSlots(s *permission.Slots) {
	if m := a.o.Swarm; m != nil && s.SwarmExclusive == nil && s.SwarmApprove == nil {
		m.Slots(s)
	}
}

// applySwarm hands a swarm_mode.* record to swarm mode; without one it
// only checks that the record decodes. The caller holds mu.
func (a *Agent) applySwarm(rec records.Record) (applied, error) {
	p, err := swarm.DecodeRecord(swarm.RecordType(rec.Type), rec.Fields())
	if err != nil || a.o.Swarm == nil {
		return applied{}, err
	}
	var ch history.Change
	pop := func() bool {
		ok, c := a.mem.PopMatchedMessage(swarm.IsEnterReminder)
		ch = c
		return ok
	}
	if err := a.o.Swarm.Apply(p, pop); err != nil {
		return applied{}, err
	}
	return applied{change: ch, status: true}, nil // the status shows swarm mode
}

// afterTurn ends swarm mode after a turn a task or a tool turned it on
// for; it runs on the turn worker before the turn's records are flushed.
func (a *Agent) afterTurn(ctx context.Context) {
	if a.o.Swarm == nil {
		return
	}
	if err := a.o.Swarm.AutoExit(ctx); err != nil {
		a.logger.Warn("leave swarm mode after the turn", "err", err)
	}
}

// swarmHost is the agent as swarm mode sees it.
type swarmHost struct{ a *Agent }

// Commit implements swarm.Host.
func (h swarmHost) Commit(ctx context.Context, p swarm.Payload) error {
	_, err := h.a.commitPayload(ctx, records.Type(p.RecordType()), p)
	return err
}

// AppendMessage implements swarm.Host.
func (h swarmHost) AppendMessage(ctx context.Context, m history.Message) error {
	return h.a.appendMessage(ctx, m)
}
