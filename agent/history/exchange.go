package history

import (
	"slices"

	"github.com/kimigo/kimigo/llm"
)

// dedupe is P2 (spec 02 §3.3): the first call of every id wins, within a
// message too, and so does the first result. It returns in itself when
// nothing is dropped.
func dedupe(in []llm.Message, report func(Anomaly)) []llm.Message {
	results := 0
	for i := range in {
		if in[i].Role == llm.RoleTool {
			results++
		}
	}
	seenCalls := make(map[string]struct{}, results)
	seenResults := make(map[string]struct{}, results)
	var out []llm.Message // nil until the first change
	for i, m := range in {
		keep, changed := true, false
		switch {
		case m.Role == llm.RoleAssistant && len(m.ToolCalls) > 0:
			var kept []llm.ToolCall
			dropped := false
			for j, tc := range m.ToolCalls {
				if _, dup := seenCalls[tc.ID]; dup {
					report(Anomaly{Kind: AnomalyDuplicateCallDropped, ToolCallID: tc.ID})
					if !dropped {
						kept = slices.Clone(m.ToolCalls[:j])
						dropped = true
					}
					continue
				}
				seenCalls[tc.ID] = struct{}{}
				if dropped {
					kept = append(kept, tc)
				}
			}
			switch {
			case !dropped:
			case len(kept) > 0 || !allVacuous(m.Content):
				m.ToolCalls = kept
				changed = true
			case len(m.Content) > 0:
				report(Anomaly{Kind: AnomalyVacuousMessageDropped, Role: llm.RoleAssistant})
				keep = false
			default:
				keep = false
			}
		case m.Role == llm.RoleTool && m.ToolCallID != "":
			if _, dup := seenResults[m.ToolCallID]; dup {
				report(Anomaly{Kind: AnomalyDuplicateResultDropped, ToolCallID: m.ToolCallID})
				keep = false
			} else {
				seenResults[m.ToolCallID] = struct{}{}
			}
		}
		if out == nil && (!keep || changed) {
			out = make([]llm.Message, i, len(in))
			copy(out, in[:i])
		}
		if out != nil && keep {
			out = append(out, m)
		}
	}
	if out == nil {
		return in
	}
	return out
}

// adjacency is P3 (spec 02 §3.4): every call's result is moved right after
// its assistant message, and a missing result is closed with a placeholder
// when the exchange is mid-history or synth is set. It returns the new list
// and the output indices of the tool messages it did not place after their
// call (a result before its call, a second result, a stray); the drop of
// unplaced results (§3.13) needs them.
//
// The common shape, results directly after their call, costs no lookups
// and no copy: the input itself is returned. Results displaced a little
// are found by a short scan; an index of result positions is built only
// for results displaced far or missing mid-history, so the pass stays
// linear.
func adjacency(in []llm.Message, synth bool, report func(Anomaly)) ([]llm.Message, []int) {
	a := adjacencyPass{in: in, synth: synth, report: report, lastNonTool: -1}
	for i := len(in) - 1; i >= 0; i-- {
		if in[i].Role != llm.RoleTool {
			a.lastNonTool = i
			break
		}
	}
	for i := 0; i < len(in); {
		if a.consumed != nil && a.consumed[i] {
			i++
			continue
		}
		m := in[i]
		if m.Role == llm.RoleTool {
			a.unplaced = append(a.unplaced, a.n)
		}
		a.emit(i)
		if m.Role != llm.RoleAssistant || len(m.ToolCalls) == 0 {
			i++
			continue
		}
		i = a.exchange(i)
	}
	if a.out == nil {
		return in, a.unplaced
	}
	a.flush()
	return a.out, a.unplaced
}

type adjacencyPass struct {
	in          []llm.Message
	synth       bool
	report      func(Anomaly)
	lastNonTool int
	// out stays nil while the output equals in[:n]; it is made on the
	// first message out of input order. After that, in[runFrom:runTo] is
	// the run of input emitted in order but not yet copied to out, so
	// the copying goes in bulk.
	out            []llm.Message
	n              int
	runFrom, runTo int
	unplaced       []int
	ids            []string // scratch for one assistant's call ids
	// consumed marks results already placed out of order; head and
	// nextSame are the lazily built result index: head maps an id to its
	// earliest result position not yet passed, nextSame links the
	// positions of one id.
	consumed []bool
	head     map[string]int
	nextSame []int
}

// emit appends in[j]; j < 0 appends m instead (a placeholder).
func (a *adjacencyPass) emit(j int, m ...llm.Message) {
	if a.out == nil {
		if j == a.n {
			a.n++
			return
		}
		a.out = make([]llm.Message, 0, len(a.in)+len(a.in)/16+8)
		a.runFrom, a.runTo = 0, a.n
	}
	a.n++
	if j >= 0 && j == a.runTo {
		a.runTo++
		return
	}
	a.flush()
	if j >= 0 {
		a.runFrom, a.runTo = j, j+1
		return
	}
	a.out = append(a.out, m...)
}

// flush copies the pending run of input to out.
func (a *adjacencyPass) flush() {
	a.out = append(a.out, a.in[a.runFrom:a.runTo]...)
	a.runFrom, a.runTo = 0, 0
}

// exchange places the results of the assistant at i, which was just
// emitted, and returns the index where the walk goes on.
func (a *adjacencyPass) exchange(i int) int {
	missing := a.callIDs(a.in[i].ToolCalls)
	// The run of results right after the call is the common case.
	k := i + 1
	for ; k < len(a.in) && len(missing) > 0; k++ {
		if a.consumed != nil && a.consumed[k] {
			continue
		}
		m := a.in[k]
		at := -1
		if m.Role == llm.RoleTool {
			at = slices.Index(missing, m.ToolCallID)
		}
		if at < 0 {
			break
		}
		a.emit(k)
		missing = slices.Delete(missing, at, at+1)
	}
	if len(missing) > 0 && k < len(a.in) {
		// in[k] is a foreign message: any result found later was
		// displaced and moves up.
		missing = a.pullDisplaced(i, k, missing)
	}
	if len(missing) > 0 && (a.synth || i < a.lastNonTool) {
		for _, id := range missing {
			a.report(Anomaly{Kind: AnomalyResultSynthesized, ToolCallID: id, Trailing: i >= a.lastNonTool})
			a.emit(-1, placeholder(id))
		}
	}
	return k
}

// pullDisplaced finds the first result after i for each missing id (the
// walk from i stopped at the foreign message k), emits them in their
// original order as reordered, and returns the ids still missing. A few
// messages past k are scanned directly, which finds the results a
// notification or two pushed down; only ids not found there use the index.
func (a *adjacencyPass) pullDisplaced(i, k int, missing []string) []string {
	if a.consumed == nil {
		a.consumed = make([]bool, len(a.in))
	}
	var found []int
	end := min(len(a.in), k+nearScan)
	for j := k; j < end && len(missing) > 0; j++ {
		if a.consumed[j] || a.in[j].Role != llm.RoleTool {
			continue
		}
		if at := slices.Index(missing, a.in[j].ToolCallID); at >= 0 {
			found = append(found, j)
			missing = slices.Delete(missing, at, at+1)
		}
	}
	if len(missing) > 0 && end < len(a.in) {
		a.buildIndex()
		rest := missing[:0]
		for _, id := range missing {
			j, ok := a.head[id]
			if !ok {
				rest = append(rest, id)
				continue
			}
			for j >= 0 && (j <= i || a.consumed[j]) {
				j = a.nextSame[j]
			}
			a.head[id] = j
			if j < 0 {
				rest = append(rest, id)
				continue
			}
			found = append(found, j)
		}
		missing = rest
	}
	slices.Sort(found)
	for _, j := range found {
		a.consumed[j] = true
		a.report(Anomaly{Kind: AnomalyResultReordered, ToolCallID: a.in[j].ToolCallID})
		a.emit(j)
	}
	return missing
}

// nearScan is how far past a foreign message results are looked for
// directly before the index is built.
const nearScan = 64

func (a *adjacencyPass) buildIndex() {
	if a.head != nil {
		return
	}
	a.nextSame = make([]int, len(a.in))
	a.head = make(map[string]int)
	for j := len(a.in) - 1; j >= 0; j-- {
		if a.in[j].Role != llm.RoleTool {
			continue
		}
		id := a.in[j].ToolCallID
		next, ok := a.head[id]
		if !ok {
			next = -1
		}
		a.nextSame[j] = next
		a.head[id] = j
	}
}

// callIDs lists the distinct ids of calls in call order, in a scratch
// slice reused for every assistant.
func (a *adjacencyPass) callIDs(calls []llm.ToolCall) []string {
	ids := a.ids[:0]
	var seen map[string]bool // only for messages with many calls
	if len(calls) > manyCalls {
		seen = make(map[string]bool, len(calls))
	}
	for _, tc := range calls {
		switch {
		case seen != nil:
			if seen[tc.ID] {
				continue
			}
			seen[tc.ID] = true
		case slices.Contains(ids, tc.ID):
			continue
		}
		ids = append(ids, tc.ID)
	}
	a.ids = ids
	return ids
}

// manyCalls is where linear scans over one message's calls give way to a
// map.
const manyCalls = 32

// placeholder is the synthetic result of a call whose result is missing.
// It is made after rendering, so it carries no status prefix.
func placeholder(id string) llm.Message {
	return llm.Message{Role: llm.RoleTool, ToolCallID: id,
		Content: []llm.ContentPart{llm.TextPart(resultUnavailableText)}}
}

// dropOrphans is P5 (spec 02 §3.6, §3.13). Only results adjacency did not
// place can go: those whose id matches no call, those with an empty id,
// and, with all set, every one of them. It returns in itself when nothing
// is dropped.
func dropOrphans(in []llm.Message, unplaced []int, all bool, report func(Anomaly)) []llm.Message {
	if len(unplaced) == 0 {
		return in
	}
	var calls map[string]struct{}
	drop := make([]bool, 0, len(unplaced))
	dropped := false
	for _, i := range unplaced {
		id := in[i].ToolCallID
		d := all || id == ""
		if !d {
			if calls == nil {
				calls = callIDs(in)
			}
			_, known := calls[id]
			d = !known
		}
		drop = append(drop, d)
		dropped = dropped || d
	}
	if !dropped {
		return in
	}
	out := make([]llm.Message, 0, len(in))
	next := 0
	for k, i := range unplaced {
		if !drop[k] {
			continue
		}
		report(Anomaly{Kind: AnomalyOrphanResultDropped, ToolCallID: in[i].ToolCallID})
		out = append(out, in[next:i]...)
		next = i + 1
	}
	return append(out, in[next:]...)
}

func callIDs(msgs []llm.Message) map[string]struct{} {
	ids := make(map[string]struct{})
	for _, m := range msgs {
		if m.Role != llm.RoleAssistant {
			continue
		}
		for _, tc := range m.ToolCalls {
			ids[tc.ID] = struct{}{}
		}
	}
	return ids
}
