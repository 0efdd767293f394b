package turn

import (
	_ "embed"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/internal/bug"
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/loop"
)

// The escalation ladder (spec 03 §3.4): the streak at which each reminder
// starts, and the streak that stops the turn.
const (
	repeatNudgeAt   = 3
	repeatChoiceAt  = 5
	repeatFinishAt  = 8
	repeatStopAt    = 12
	repeatCountSlot = "{count}" // where dedup_repeat_2.md takes the streak
)

// The reminder bodies, one per rung of the ladder.
var (
	//go:embed text/dedup_repeat_1.md
	repeatNudgeText string
	//go:embed text/dedup_repeat_2.md
	repeatChoiceText string
	//go:embed text/dedup_repeat_3.md
	repeatFinishText string
)

// lostOriginalText answers a duplicate whose original never finalised.
const lostOriginalText = "Tool call deduplicated but original result was lost"

// Deduplicator answers repeated tool calls (spec 03 §3). Within one step, a
// call whose name and canonical arguments equal an earlier call's is not
// executed: it gets the earlier call's final result. Across steps it counts
// the streak of identical calls in issue order and escalates: a reminder
// is appended to the result of the 3rd identical call in a row, a stronger
// one from the 5th, a "finish now" one from the 8th, and from the 12th the
// turn also stops (StopTurn; IsError is never changed). BeginStep takes no
// request trace: the optional repeat telemetry (spec 03 §3.6) is not kept.
//
// Make one per turn, so no streak crosses turns. TurnFlow wires it into the
// loop like this (spec 03 §1.7), with c = h.ToolCall:
//
//	OnRequestTrace:       d.BeginStep()
//	PrepareToolExecution: if r := d.CheckSameStep(c.ID, c.Name, h.Args, c.Arguments); r != nil {
//	                              return loop.Preparation{SyntheticResult: r}, nil
//	                      }
//	FinalizeToolResult:   d.RegisterSkipped(c.ID, c.Name, h.Args, c.Arguments)
//	                      final := d.FinalizeResult(c.ID, h.Result)
//	AfterStep:            d.EndStep()
//
// Both tool phases run in provider order and an original always comes
// before its duplicates, so a duplicate simply takes the stored result of
// its original; no call waits on another (spec 03 §7.4).
//
// Compared with the spec's signatures, CheckSameStep takes the model's
// argument text as well as the parsed arguments (so a call whose text did
// not parse is keyed by that text wherever it is registered, spec 03 §3.1),
// and FinalizeResult takes only the call id (the key was pinned when the
// call was registered, so later argument rewrites do not matter).
//
// A Deduplicator is not safe for concurrent use: the loop calls its hooks
// on the turn goroutine, one at a time.
type Deduplicator struct {
	// Step scope: cleared by BeginStep and EndStep.
	keys      []string                  // keys in registration order, repeats included
	calls     map[string]*dedupCall     // by call id
	originals map[string]*dedupOriginal // by key: the first call of the step with that key

	// Turn scope: the running streak of identical calls, in issue order.
	streakKey   string
	streakCount int
	// stopped is the force-stop of the current step, kept past EndStep
	// for the end of the turn and cleared by BeginStep.
	stopped *event.RepeatStop
}

// dedupCall is one registered call of the step.
type dedupCall struct {
	name      string // the tool's name
	key       string // pinned at registration
	index     int    // position in Deduplicator.keys
	duplicate bool   // answered with the placeholder; takes the original's result
	finalized bool
}

// dedupOriginal is the first call of a step with a given key.
type dedupOriginal struct {
	result loop.ToolResult // its final result, once done
	done   bool
}

// NewDeduplicator returns a Deduplicator with no streak.
func NewDeduplicator() *Deduplicator {
	d := &Deduplicator{}
	d.resetStep()
	return d
}

// BeginStep starts a step: the previous step's calls are forgotten (a step
// that never reached EndStep, such as a failed one, adds nothing to the
// streak); the streak itself is kept.
func (d *Deduplicator) BeginStep() {
	d.resetStep()
	d.stopped = nil
}

// Stopped reports the repeat guard's force-stop in the latest step: the
// tool and the length of its streak, or nil. A continuation of the turn
// after the stop begins a step and clears it, so at the end of a turn it
// says whether the guard is what ended it.
func (d *Deduplicator) Stopped() *event.RepeatStop { return d.stopped }

// EndStep folds every call of the step, repeats included, into the streak,
// then forgets the step. A step without tool calls leaves the streak as it
// was.
func (d *Deduplicator) EndStep() {
	d.streakKey, d.streakCount = foldStreak(d.streakKey, d.streakCount, d.keys)
	d.resetStep()
}

func (d *Deduplicator) resetStep() {
	d.keys = nil
	d.calls = make(map[string]*dedupCall)
	d.originals = make(map[string]*dedupOriginal)
}

// CheckSameStep registers a call about to be prepared, in provider order.
// It returns nil when the call should run; for a repeat of an earlier call
// of the same step it returns the placeholder result (empty, not an error,
// no StopTurn), which the caller hands to the loop as the synthetic result;
// FinalizeResult later swaps in the original's result.
//
// args are the call's parsed arguments and raw the model's argument text
// (llm.ToolCall.Arguments). When raw is not valid JSON the key is the text
// itself, so two identical malformed attempts are repeats and two different
// ones are not; pass "" to key by args alone. A call id already registered
// in this step is not registered again and runs.
func (d *Deduplicator) CheckSameStep(id, name string, args json.RawMessage, raw string) *loop.ToolResult {
	if _, seen := d.calls[id]; seen {
		return nil
	}
	key := dedupKey(name, args, raw)
	c := &dedupCall{name: name, key: key, index: len(d.keys)}
	d.keys = append(d.keys, key)
	d.calls[id] = c
	if _, ok := d.originals[key]; ok {
		c.duplicate = true
		return &loop.ToolResult{}
	}
	d.originals[key] = &dedupOriginal{}
	return nil
}

// RegisterSkipped registers, at finalize time, a call the loop answered
// without preparing it (unknown tool, invalid arguments, skipped or aborted
// call), so rejected repeats count towards the streak. It does nothing for
// a call already registered. Such calls are registered after every prepared
// call of the step.
func (d *Deduplicator) RegisterSkipped(id, name string, args json.RawMessage, raw string) {
	if _, seen := d.calls[id]; seen {
		return
	}
	d.CheckSameStep(id, name, args, raw)
}

// FinalizeResult returns the result the model should see for call id, given
// the result the loop settled it with. An unregistered (or already
// finalised) call gets res back. A same-step duplicate gets its original's
// final result, reminder and StopTurn included. An original gets res with
// the reminder its streak calls for (spec 03 §3.4) and, at 12 and above,
// StopTurn.
func (d *Deduplicator) FinalizeResult(id string, res loop.ToolResult) loop.ToolResult {
	c := d.calls[id]
	if c == nil || c.finalized {
		return res
	}
	c.finalized = true
	o := d.originals[c.key]
	if c.duplicate {
		switch {
		case o == nil:
			return res
		case !o.done:
			bug.Reportf("dedup: duplicate %s finalised before its original", id)
			return loop.ErrorResult(lostOriginalText)
		}
		return o.result
	}
	_, streak := foldStreak(d.streakKey, d.streakCount, d.keys[:c.index+1])
	o.result, o.done = escalateRepeat(res, streak), true
	if streak >= repeatStopAt && (d.stopped == nil || streak > d.stopped.Calls) {
		d.stopped = &event.RepeatStop{Tool: c.name, Calls: streak}
	}
	return o.result
}

// dedupKey is the identity of a call: its name and canonical arguments, or
// its raw text when that did not parse.
func dedupKey(name string, args json.RawMessage, raw string) string {
	if !parsesAsArgs(raw) {
		return name + " " + raw
	}
	return name + " " + CanonicalArgs(args)
}

// foldStreak extends the streak (key, count) by keys in order: an equal key
// adds one, a different key starts a new streak of one.
func foldStreak(key string, count int, keys []string) (string, int) {
	for _, k := range keys {
		if k == key {
			count++
		} else {
			key, count = k, 1
		}
	}
	return key, count
}

// escalateRepeat applies the ladder rung for streak to res. IsError is kept.
func escalateRepeat(res loop.ToolResult, streak int) loop.ToolResult {
	switch {
	case streak >= repeatStopAt:
		res.Output = withRepeatReminder(res.Output, repeatFinishText)
		res.StopTurn = true
	case streak >= repeatFinishAt:
		res.Output = withRepeatReminder(res.Output, repeatFinishText)
	case streak >= repeatChoiceAt:
		body := strings.ReplaceAll(repeatChoiceText, repeatCountSlot, strconv.Itoa(streak))
		res.Output = withRepeatReminder(res.Output, body)
	case streak >= repeatNudgeAt:
		res.Output = withRepeatReminder(res.Output, repeatNudgeText)
	}
	return res
}

// withRepeatReminder adds body, wrapped as a system reminder, to the end of o:
// to the string, to a final text part, or as a new text part. The parts of
// o are not modified.
func withRepeatReminder(o loop.Output, body string) loop.Output {
	text := "\n\n<system-reminder>\n" + strings.TrimSpace(body) + "\n</system-reminder>"
	if !o.IsParts() {
		return loop.TextOutput(o.Text() + text)
	}
	parts := append([]llm.ContentPart(nil), o.Parts()...)
	if n := len(parts); n > 0 && parts[n-1].Type == llm.PartText {
		parts[n-1].Text += text
	} else {
		parts = append(parts, llm.TextPart(text))
	}
	return loop.PartsOutput(parts...)
}
