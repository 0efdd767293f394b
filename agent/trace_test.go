package agent_test

import (
	"testing"

	"github.com/kimigo/kimigo/agent/agenttest"
	"github.com/kimigo/kimigo/llm/llmtest"
	"github.com/kimigo/kimigo/llm/scripted"
	"github.com/kimigo/kimigo/loop/looptest"
)

// The interleaved traces of records and events of two turns, pinned as
// golden files (refresh with -update and read the diff).

func TestTraceToolTurn(t *testing.T) {
	h := newHarness(t, agenttest.Tools(looptest.Echo()))
	h.Model(withUsage(call("c1", "echo", `{"text":"hi"}`), 12, 3), withUsage(scripted.Text("It said hi."), 20, 4))
	h.Prompt("echo hi")
	llmtest.Golden(t, "tool_turn.trace", h.Trace())
	h.ExpectResumeMatches()
}

func TestTraceSteerDuringApproval(t *testing.T) {
	gate := agenttest.NewApprovals()
	h := newHarness(t, agenttest.Gate(gate), agenttest.Tools(bashTool()))
	h.Model(call("c1", "Bash", `{"command":"ls"}`), scripted.Text("Listed, as you asked."))
	h.Start("list files")
	ap := gate.Next(t)
	h.Steer("and say so", nil)
	ap.Approve()
	h.Wait()
	llmtest.Golden(t, "steer_during_approval.trace", h.Trace())
	h.ExpectResumeMatches()
}
