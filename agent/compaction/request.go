package compaction

import (
	"math"

	"github.com/kimigo/kimigo/agent/history"
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/loop"
)

// RequestKind is the loop.RequestLogFields.Kind of summary requests.
const RequestKind = "compaction"

// defaultCompactionCap caps a summary's output when the model's window is
// known and its output size is not configured (spec 03 §2.5).
const defaultCompactionCap = 131_072

// summaryView projects the summariser's input the way strict providers
// accept it: the strict view (every call answered right after it, no
// stray or misplaced result, no two assistants in a row, unique call ids),
// except that nothing before the first user message is dropped: the
// request gets a user lead instead (messages), so no content is lost.
var summaryView = func() history.ProjectOptions {
	o := history.StrictOptions()
	o.DropLeadingNonUser = false
	return o
}()

// summaryRequest is the summariser's request as the degradation ladder
// reshapes it (spec 03 §6.9 steps 3–7, ERRATA 28). Only its input changes
// between attempts; history is never touched.
//
// The input is a suffix of the snapshot led by the task prompt: when the
// oldest messages are left out, the latest real user input before the
// suffix (the task the kept messages work on) is pinned in front of it,
// followed by a note that messages were left out there. So the summariser
// sees the task, and the request starts with a user message on every
// wire. Messages left out are counted in dropped; the pinned prompt is
// not, since the summariser sees it. When no user input precedes the
// suffix, or it alone is over a budget, the note leads.
type summaryRequest struct {
	provider    llm.Provider // a budgeted copy of the model's provider
	model       string
	system      string
	tools       []llm.Tool
	instruction llm.Message
	// snapshot is the history the round summarises, without dynamic tool
	// context. Its messages are the stored ones, or copies where media
	// were replaced; it is replaced, never modified.
	snapshot []history.Message
	// from is the index in snapshot of the oldest message of the suffix
	// still sent.
	from int
	// task is the index in snapshot of the pinned task prompt (before
	// from), or -1.
	task int
	// taskTooLarge is set once the task prompt alone did not fit a
	// budget: it is not pinned again and the omission note leads.
	taskTooLarge bool
	// dropped counts the snapshot messages the request leaves out.
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
		snapshot: history.StripDynamicToolContext(original),
		task:     -1,
	}
}

// summaryProvider applies the compaction's completion budget: the
// configured output size, else min(window, 131,072) for a known window,
// else the budget's fallback. No used-context clamp: the summary replaces
// the context it reads.
func (c *FullCompaction) summaryProvider(m Model) llm.Provider {
	in := m.Budget
	if in.MaxOutputSize <= 0 && m.Capability.MaxContextTokens > 0 {
		in.MaxOutputSize = min(m.Capability.MaxContextTokens, defaultCompactionCap)
	}
	return llm.ApplyCompletionBudget(m.Provider, llm.ResolveCompletionBudget(in), m.Capability, 0)
}

// input is what the request carries of the snapshot: the pinned task
// prompt, then the suffix.
func (s *summaryRequest) input() []history.Message {
	suffix := s.snapshot[s.from:]
	if s.task < 0 {
		return suffix
	}
	in := make([]history.Message, 0, len(suffix)+1)
	return append(append(in, s.snapshot[s.task]), suffix...)
}

// size counts the snapshot messages the request carries.
func (s *summaryRequest) size() int {
	n := len(s.snapshot) - s.from
	if s.task >= 0 {
		n++
	}
	return n
}

// messages projects the input (summaryView) and appends the instruction.
// The pinned task prompt is projected on its own, so that it never merges
// with the suffix, and the omission note follows it when messages were
// left out after it. Without a task prompt the note leads whenever
// messages were left out or the suffix would start with anything but a
// user message. A request therefore never starts with an assistant or a
// tool message, which strict services refuse.
func (s *summaryRequest) messages() []llm.Message {
	var lead []llm.Message
	if s.task >= 0 {
		lead = history.Project(s.snapshot[s.task:s.task+1], summaryView)
	}
	body := history.Project(s.snapshot[s.from:], summaryView)
	out := make([]llm.Message, 0, len(lead)+len(body)+2)
	out = append(out, lead...)
	if s.dropped > 0 || (len(out) == 0 && len(body) > 0 && body[0].Role != llm.RoleUser) {
		out = append(out, omittedNote())
	}
	out = append(out, body...)
	return append(out, s.instruction)
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

// fit leaves out the oldest input until the request's estimate fits
// window, before anything is sent: a request known to be over the window
// would only come back as an overflow. It stops at one message; window ≤ 0
// (unknown) changes nothing. It returns the messages to send.
func (s *summaryRequest) fit(window int) []llm.Message {
	msgs := s.messages()
	for window > 0 && s.size() > 1 {
		excess := s.estimate(msgs) - window
		if excess <= 0 {
			break
		}
		s.keepNewest(estimateHistory(s.input()) - excess)
		msgs = s.messages()
	}
	return msgs
}

// shrink is an overflow shrink (spec 03 §6.10 row 3): keep the newest
// input within the attempt's share of the current input's estimate.
// Each shrink is relative to the input it finds; it always leaves out at
// least one more message.
func (s *summaryRequest) shrink(attempt int) {
	ratio := shrinkRatios[min(attempt-1, len(shrinkRatios)-1)]
	s.keepNewest(int(math.Floor(float64(estimateHistory(s.input())) * ratio)))
}

// dropOldest leaves out the oldest message the request still carries
// besides its task prompt, and any tool results that then lead the
// suffix (spec 03 §6.10 row 4).
func (s *summaryRequest) dropOldest() {
	for before := s.dropped; s.dropped == before && s.from < len(s.snapshot); {
		s.cut(s.from + 1)
	}
}

// keepNewest keeps the longest suffix that, with the task prompt it needs
// pinned before it, estimates at most budget; when even the task prompt
// alone does not fit, the task is no longer pinned. The suffix never
// grows, and at least one more message is left out whenever the request
// carries more than one.
func (s *summaryRequest) keepNewest(budget int) {
	before := s.dropped
	start := s.newestWithin(budget)
	if start < 0 {
		s.taskTooLarge = true
		if start = s.newestWithin(budget); start < 0 {
			start = len(s.snapshot) // nothing fits: leave every message out
		}
	}
	s.cut(start)
	for s.dropped == before && s.from < len(s.snapshot) {
		s.cut(s.from + 1)
	}
}

// newestWithin returns the smallest start ≥ from whose suffix, with the
// task prompt it pins, estimates at most budget, or -1 when none does.
// The estimate only grows as start moves back (a newer task prompt moves
// from the pin into the suffix and an older one is pinned), so the walk
// stops at the first start that does not fit.
func (s *summaryRequest) newestWithin(budget int) int {
	tasks := s.taskBefore()
	best, suffix := -1, 0
	for start := len(s.snapshot); start >= s.from; start-- {
		if start < len(s.snapshot) {
			suffix += llm.EstimateMessage(s.snapshot[start].Message)
		}
		cost := suffix
		if t := s.pinFor(start, tasks); t >= 0 {
			cost += llm.EstimateMessage(s.snapshot[t].Message)
		}
		if cost > budget {
			break
		}
		if start == len(s.snapshot) || s.snapshot[start].Role != llm.RoleTool {
			best = start
		}
	}
	return best
}

// cut moves the suffix's start to start (never back), past the tool
// results found there, whose calls are gone, and pins the task prompt the
// new suffix needs.
func (s *summaryRequest) cut(start int) {
	start = max(start, s.from)
	for start < len(s.snapshot) && s.snapshot[start].Role == llm.RoleTool {
		start++
	}
	s.from = start
	s.task = -1
	if start > 0 && !s.taskTooLarge {
		s.task = s.latestTask(start)
	}
	s.dropped = s.from
	if s.task >= 0 {
		s.dropped--
	}
}

// taskBefore returns, for every index i of the snapshot and one past its
// end, the index of the latest real user input before i, or -1.
func (s *summaryRequest) taskBefore() []int {
	out := make([]int, len(s.snapshot)+1)
	last := -1
	for i := range s.snapshot {
		out[i] = last
		if history.IsRealUserInput(s.snapshot[i]) {
			last = i
		}
	}
	out[len(s.snapshot)] = last
	return out
}

// latestTask is the index of the latest real user input before i, or -1.
func (s *summaryRequest) latestTask(i int) int {
	for i--; i >= 0; i-- {
		if history.IsRealUserInput(s.snapshot[i]) {
			return i
		}
	}
	return -1
}

// pinFor is the task prompt pinned before a suffix starting at start: the
// latest real user input before it, or none when nothing before it is
// left out or the task was too large.
func (s *summaryRequest) pinFor(start int, tasks []int) int {
	if start == 0 || s.taskTooLarge {
		return -1
	}
	return tasks[start]
}
