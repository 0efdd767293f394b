package background

import (
	"context"
	"time"

	"github.com/kimigo/kimigo/tools"
)

// StartProcess implements tools.BackgroundTasks: p runs as a background
// task from the start.
func (m *Manager) StartProcess(_ context.Context, p tools.BackgroundProcess) (tools.BackgroundTask, error) {
	h, err := m.Register(NewProcessTask(ProcessSpec{Process: p.Process, Command: p.Command, Description: p.Description}),
		RegisterOptions{Timeout: p.Timeout})
	if err != nil {
		return tools.BackgroundTask{}, err
	}
	return tools.BackgroundTask{ID: h.ID()}, nil
}

// RunProcess implements tools.BackgroundTasks: p runs as a foreground
// task of the call whose context is ctx.
func (m *Manager) RunProcess(ctx context.Context, p tools.ForegroundProcess) (tools.ForegroundTask, error) {
	h, err := m.Register(NewProcessTask(ProcessSpec{Process: p.Process, Command: p.Command, Description: p.Description}),
		RegisterOptions{Foreground: true, Signal: ctx, Timeout: p.Timeout, AutoBackground: p.AutoBackground,
			DetachTimeout: p.DetachTimeout, PersistAfter: p.PersistAfter, OnOutput: p.OnOutput})
	if err != nil {
		return nil, err
	}
	return h, nil
}

// StartQuestion implements tools.BackgroundTasks.
func (m *Manager) StartQuestion(_ context.Context, q tools.BackgroundQuestion) (tools.BackgroundTask, error) {
	h, err := m.Register(NewQuestionTask(q), RegisterOptions{})
	if err != nil {
		return tools.BackgroundTask{}, err
	}
	return tools.BackgroundTask{ID: h.ID()}, nil
}

// StartAgent registers a subagent run as a background task (the Agent
// tool's background mode); foreground runs pass RegisterOptions to
// Register with NewAgentTask.
func (m *Manager) StartAgent(spec AgentSpec, timeout time.Duration) (string, error) {
	h, err := m.Register(NewAgentTask(spec), RegisterOptions{Timeout: timeout})
	if err != nil {
		return "", err
	}
	return h.ID(), nil
}

// RunAgent implements tools.BackgroundTasks: a subagent run as an agent
// task, detached from the start or as the foreground task of the call
// whose context is ctx.
func (m *Manager) RunAgent(ctx context.Context, a tools.AgentTask) (tools.ForegroundTask, error) {
	spec := AgentSpec{Description: a.Description, AgentID: a.AgentID, SubagentType: a.SubagentType, Model: a.Model,
		ThinkingEffort: a.ThinkingEffort, Run: a.Run, OnDetach: a.OnDetach}
	o := RegisterOptions{Timeout: a.Timeout}
	if !a.Background {
		o.Foreground, o.Signal = true, ctx
	}
	h, err := m.Register(NewAgentTask(spec), o)
	if err != nil {
		return nil, err
	}
	return h, nil
}
