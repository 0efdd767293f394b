package compaction

import (
	"github.com/kimigo/kimigo/agent/history"
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/loop"
)

// RequestKind is the loop.RequestLogFields.Kind of summary requests.
const RequestKind = "compaction"

// defaultCompactionCap caps a summary's output when the model's window is
// known and its output size is not configured (spec 03 §2.5).
const defaultCompactionCap = 131_072

// summaryRequest is the summariser's request as the degradation ladder
// reshapes it (spec 03 §6.9 steps 3–7). Only its input changes between
// attempts; history is never touched.
type summaryRequest struct {
	provider    llm.Provider // a budgeted copy of the model's provider
	model       string
	system      string
	tools       []llm.Tool
	instruction llm.Message
	// input is the part of the snapshot still sent; its messages are the
	// stored ones, or copies where media was replaced.
	input []history.Message
	// dropped counts the messages removed from the input.
	dropped int
}

// newSummaryRequest builds the first request of a round over original.
func (c *FullCompaction) newSummaryRequest(m Model, custom string, original []history.Message) *summaryRequest {
	return &summaryRequest{
		provider:    c.summaryProvider(m),
		model:       m.Provider.ModelName(),
		system:      m.SystemPrompt,
		tools:       c.tools(),
		instruction: llm.UserMessage(Instruction(custom)),
		// Dynamic tool schemas and announcements are protocol state, not
		// conversation.
		input: history.StripDynamicToolContext(original),
	}
}

// summaryProvider applies the compaction's completion budget: the
// configured output size, else min(window, 131,072) for a known window,
// else the budget's fallback. No used-context clamp: the summary replaces
// the context it reads.
func (c *FullCompaction) summaryProvider(m Model) llm.Provider {
	in := c.o.Budget
	if in.MaxOutputSize <= 0 && m.Capability.MaxContextTokens > 0 {
		in.MaxOutputSize = min(m.Capability.MaxContextTokens, defaultCompactionCap)
	}
	return llm.ApplyCompletionBudget(m.Provider, llm.ResolveCompletionBudget(in), m.Capability, 0)
}

// messages projects the input the way strict providers accept it (open
// calls answered, stray results dropped) and appends the instruction.
func (s *summaryRequest) messages() []llm.Message {
	msgs := history.Project(s.input, history.ProjectOptions{SynthesizeMissing: true, DropOrphanResults: true})
	return append(msgs[:len(msgs):len(msgs)], s.instruction)
}

// request is the provider request for msgs.
func (s *summaryRequest) request(msgs []llm.Message) llm.Request {
	return llm.Request{System: s.system, Tools: s.tools, Messages: msgs}
}

// fields describe an attempt for request logs and records.
func (s *summaryRequest) fields() loop.RequestLogFields {
	return loop.RequestLogFields{Kind: RequestKind, DroppedCount: s.dropped}
}

// estimate is the request estimate of msgs.
func (s *summaryRequest) estimate(msgs []llm.Message) int {
	return estimateRequest(s.system, s.tools, msgs)
}

// fit drops the oldest input until the request's estimate fits window,
// before anything is sent: a request known to be over the window would
// only come back as an overflow. It keeps at least one message; window ≤ 0
// (unknown) changes nothing. It returns the messages to send.
func (s *summaryRequest) fit(window int) []llm.Message {
	msgs := s.messages()
	for window > 0 && len(s.input) > 1 {
		excess := s.estimate(msgs) - window
		if excess <= 0 {
			break
		}
		cut, freed := 0, 0
		for cut < len(s.input)-1 && freed < excess {
			freed += llm.EstimateMessage(s.input[cut].Message)
			cut++
		}
		s.drop(dropLeadingTools(s.input[cut:]))
		msgs = s.messages()
	}
	return msgs
}

// drop replaces the input by a suffix of it, counting what went.
func (s *summaryRequest) drop(kept []history.Message) {
	s.dropped += len(s.input) - len(kept)
	s.input = kept
}
