package turn_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kimigo/kimigo/agent/turn"
	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/loop"
	"github.com/kimigo/kimigo/loop/looptest"
)

const (
	dedupBashSchema = `{"type":"object","properties":{"command":{"type":"string"},"timeout":{"type":"integer"}},` +
		`"required":["command"]}`
	dedupReadSchema = `{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`
)

func readCall(id, path string) llm.ToolCall {
	return looptest.Call(id, "Read", fmt.Sprintf(`{"path":%q}`, path))
}

// ladderTexts is what the model should see for n consecutive identical
// calls answered with out, per the table of spec 03 §3.4.
func ladderTexts(t *testing.T, out string, n int) []string {
	t.Helper()
	var want []string
	for streak := 1; streak <= n; streak++ {
		switch {
		case streak >= 8:
			want = append(want, out+repeatReminder(t, 3, streak))
		case streak >= 5:
			want = append(want, out+repeatReminder(t, 2, streak))
		case streak >= 3:
			want = append(want, out+repeatReminder(t, 1, streak))
		default:
			want = append(want, out)
		}
	}
	return want
}

func TestS25SameStepDuplicateReusesResult(t *testing.T) {
	bash := &looptest.Tool{Name: "Bash", Schema: dedupBashSchema,
		Run: func(_ context.Context, args json.RawMessage, _ loop.ExecCtx) (loop.ToolResult, error) {
			var a struct{ Command string }
			if err := json.Unmarshal(args, &a); err != nil {
				return loop.ToolResult{}, err
			}
			return loop.TextResult(strings.TrimPrefix(a.Command, "printf ")), nil
		}}
	r := newDedupRig(bash)
	r.run(t,
		looptest.Calls(
			looptest.Call("c1", "Bash", `{"command":"printf dup","timeout":60}`),
			looptest.Call("c2", "Bash", `{"timeout":60,"command":"printf dup"}`)),
		looptest.Text("done"))

	if diff := cmp.Diff([]string{"c1"}, r.approvals); diff != "" {
		t.Errorf("approval requests (-want +got):\n%s", diff)
	}
	if n := len(bash.Executions()); n != 1 {
		t.Errorf("Bash ran %d times, want 1", n)
	}
	if diff := cmp.Diff([]string{"c1", "c2"}, r.callIDs()); diff != "" {
		t.Errorf("tool.call events (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"dup", "dup"}, r.results()); diff != "" {
		t.Errorf("tool.result outputs (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"dup", "dup"}, r.posted); diff != "" {
		t.Errorf("PostToolUse outputs (-want +got):\n%s", diff)
	}
}

func TestS26LadderAt3And5And8And12(t *testing.T) {
	read := textTool("Read", dedupReadSchema, loop.TextResult("contents of a"))
	r := newDedupRig(read)
	res := r.run(t, repeatSteps(12, func(i int) llm.ToolCall { return readCall(fmt.Sprint("c", i), "a") })...)

	got := r.results()
	if diff := cmp.Diff(ladderTexts(t, "contents of a", 12), got); diff != "" {
		t.Fatalf("tool.result outputs (-want +got):\n%s", diff)
	}
	for _, n := range []int{5, 7} {
		if phrase := fmt.Sprintf("issued %d times in a row", n); !strings.Contains(got[n-1], phrase) {
			t.Errorf("result %d lacks %q: %q", n, phrase, got[n-1])
		}
	}
	for i, f := range r.finals {
		if want := i == 11; f.StopTurn != want {
			t.Errorf("result %d StopTurn = %v, want %v", i+1, f.StopTurn, want)
		}
	}
	if n := len(r.fake.Calls()); n != 12 {
		t.Errorf("model requests = %d, want 12 (the 13th script entry unused)", n)
	}
	if res.StopReason != loop.StopEndTurn || res.Steps != 12 {
		t.Errorf("turn ended %s after %d steps, want %s after 12", res.StopReason, res.Steps, loop.StopEndTurn)
	}
	// The stop outlives the step's end, for the end of the turn, and the
	// next step (a continuation) clears it.
	if s := r.dedup.Stopped(); s == nil || *s != (event.RepeatStop{Tool: "Read", Calls: 12}) {
		t.Errorf("Stopped() = %+v; want Read after 12 calls", s)
	}
	r.dedup.BeginStep()
	if s := r.dedup.Stopped(); s != nil {
		t.Errorf("Stopped() after the next step began = %+v; want nil", s)
	}
}

func TestS27LadderKeepsErrorFlag(t *testing.T) {
	read := textTool("Read", dedupReadSchema, loop.ErrorResult("a: no such file"))
	r := newDedupRig(read)
	res := r.run(t, repeatSteps(12, func(i int) llm.ToolCall { return readCall(fmt.Sprint("c", i), "a") })...)

	if diff := cmp.Diff(ladderTexts(t, "a: no such file", 12), r.results()); diff != "" {
		t.Errorf("tool.result outputs (-want +got):\n%s", diff)
	}
	for i, ev := range looptest.RecordedOfType[loop.ToolResultEvent](&r.rec) {
		if !ev.Result.IsError || !r.finals[i].IsError {
			t.Errorf("result %d lost its error flag", i+1)
		}
	}
	if len(r.finals) != 12 || !r.finals[11].StopTurn {
		t.Errorf("the 12th error result does not stop the turn (%d results)", len(r.finals))
	}
	if res.StopReason != loop.StopEndTurn || len(r.fake.Calls()) != 12 {
		t.Errorf("turn ended %s after %d requests, want %s after 12", res.StopReason, len(r.fake.Calls()),
			loop.StopEndTurn)
	}
}

func TestS28InterleavingResetsStreak(t *testing.T) {
	read := &looptest.Tool{Name: "Read", Schema: dedupReadSchema, Accesses: loop.None(),
		Run: func(_ context.Context, args json.RawMessage, _ loop.ExecCtx) (loop.ToolResult, error) {
			return loop.TextResult("read " + string(args)), nil
		}}
	r := newDedupRig(read)
	paths := []string{"a", "a", "b", "a", "a", "a"}
	r.run(t, repeatSteps(len(paths), func(i int) llm.ToolCall { return readCall(fmt.Sprint("c", i), paths[i-1]) })...)

	a, b := `read {"path":"a"}`, `read {"path":"b"}`
	// The 4th call (A after B) has streak 1; two more As bring it to 3,
	// not 5, so the last one gets reminder 1.
	want := []string{a, a, b, a, a, a + repeatReminder(t, 1, 3)}
	if diff := cmp.Diff(want, r.results()); diff != "" {
		t.Errorf("tool.result outputs (-want +got):\n%s", diff)
	}
}

func TestS29RejectedCallsCount(t *testing.T) {
	t.Run("identical rejected calls stop the turn", func(t *testing.T) {
		bash := textTool("Bash", dedupBashSchema, loop.TextResult("ran"))
		r := newDedupRig(bash)
		res := r.run(t, repeatSteps(12, func(i int) llm.ToolCall {
			return looptest.Call(fmt.Sprint("c", i), "Bash", `{"timeout":60}`)
		})...)
		if n := len(r.fake.Calls()); n != 12 || res.StopReason != loop.StopEndTurn {
			t.Errorf("turn ended %s after %d requests, want %s after 12", res.StopReason, n, loop.StopEndTurn)
		}
		if len(r.finals) != 12 || !r.finals[11].StopTurn || !r.finals[11].IsError {
			t.Errorf("the 12th rejection is not a stopping error result: %+v", r.finals)
		}
		if got := r.results(); len(got) != 12 || !strings.HasSuffix(got[2], repeatReminder(t, 1, 3)) {
			t.Errorf("the 3rd rejection does not carry reminder 1: %q", got)
		}
		if n := len(bash.Executions()); n != 0 {
			t.Errorf("Bash ran %d times, want 0", n)
		}
	})
	t.Run("different malformed texts form no streak", func(t *testing.T) {
		r := newDedupRig(textTool("Bash", dedupBashSchema, loop.TextResult("ran")))
		res := r.run(t, repeatSteps(12, func(i int) llm.ToolCall {
			return looptest.Call(fmt.Sprint("c", i), "Bash", fmt.Sprintf(`{"command":"ls %d"`, i))
		})...)
		if n := len(r.fake.Calls()); n != 13 || res.StopReason != loop.StopEndTurn {
			t.Errorf("turn ended %s after %d requests, want %s after 13", res.StopReason, n, loop.StopEndTurn)
		}
		for i, out := range r.results() {
			if strings.Contains(out, "<system-reminder>") {
				t.Errorf("result %d carries a reminder: %q", i+1, out)
			}
		}
	})
}

func TestS30SameStepSpamCarriesIntoNextStep(t *testing.T) {
	read := textTool("Read", dedupReadSchema, loop.TextResult("contents of a"))
	r := newDedupRig(read)
	r.run(t,
		looptest.Calls(readCall("c1", "a"), readCall("c2", "a"), readCall("c3", "a")),
		looptest.Calls(readCall("c4", "a")),
		looptest.Text("done"))

	plain := "contents of a"
	want := []string{plain, plain, plain, plain + repeatReminder(t, 1, 4)}
	if diff := cmp.Diff(want, r.results()); diff != "" {
		t.Errorf("tool.result outputs (-want +got):\n%s", diff)
	}
	if n := len(read.Executions()); n != 2 {
		t.Errorf("Read ran %d times, want 2 (once per step)", n)
	}
}

func TestS31ArgsRewriteKeepsDuplicateResolved(t *testing.T) {
	read := &looptest.Tool{Name: "Read", Schema: dedupReadSchema, Accesses: loop.None(),
		Run: func(_ context.Context, args json.RawMessage, _ loop.ExecCtx) (loop.ToolResult, error) {
			return loop.TextResult("read " + string(args)), nil
		}}
	r := newDedupRig(read)
	r.prepare = func(h loop.ToolCtx) loop.Preparation {
		if h.ToolCall.ID == "c1" {
			return loop.Preparation{UpdatedArgs: json.RawMessage(`{"path":"b"}`)}
		}
		return loop.Preparation{}
	}
	res := r.run(t,
		looptest.Calls(readCall("c1", "a"), readCall("c2", "a")),
		looptest.Calls(readCall("c3", "a")),
		looptest.Text("done"))

	rewritten := `read {"path":"b"}`
	// The keys stay those the model issued: c3 repeats them for streak 3.
	want := []string{rewritten, rewritten, `read {"path":"a"}` + repeatReminder(t, 1, 3)}
	if diff := cmp.Diff(want, r.results()); diff != "" {
		t.Errorf("tool.result outputs (-want +got):\n%s", diff)
	}
	if ex := read.Executions(); len(ex) != 2 || string(ex[0].Args) != `{"path":"b"}` {
		t.Errorf("executions = %+v, want the rewritten c1 and c3", ex)
	}
	if res.StopReason != loop.StopEndTurn {
		t.Errorf("turn ended %s, want %s", res.StopReason, loop.StopEndTurn)
	}
}

// dedupStep runs one step of calls through d directly: each call is
// checked, executed with result unless it was a duplicate, then finalised.
func dedupStep(d *turn.Deduplicator, result loop.ToolResult, calls ...llm.ToolCall) []loop.ToolResult {
	d.BeginStep()
	settled := make([]loop.ToolResult, len(calls))
	for i, c := range calls {
		settled[i] = result
		if r := d.CheckSameStep(c.ID, c.Name, dedupArgs(c.Arguments), c.Arguments); r != nil {
			settled[i] = *r
		}
	}
	var out []loop.ToolResult
	for i, c := range calls {
		out = append(out, d.FinalizeResult(c.ID, settled[i]))
	}
	d.EndStep()
	return out
}

// dedupArgs is what the loop hands the hooks as arguments: the text when it
// is valid JSON, else {}.
func dedupArgs(raw string) json.RawMessage {
	if json.Valid([]byte(raw)) {
		return json.RawMessage(raw)
	}
	return json.RawMessage(`{}`)
}

func TestDedupPlaceholderIsAnEmptySuccess(t *testing.T) {
	d := turn.NewDeduplicator()
	d.BeginStep()
	if r := d.CheckSameStep("c1", "Read", json.RawMessage(`{"path":"a"}`), `{"path":"a"}`); r != nil {
		t.Fatalf("original got %+v, want nil (execute)", r)
	}
	r := d.CheckSameStep("c2", "Read", json.RawMessage(`{"path":"a"}`), `{ "path" : "a" }`)
	if r == nil || r.IsError || r.StopTurn || r.Output.IsParts() || r.Output.Text() != "" {
		t.Fatalf("duplicate got %+v, want the empty non-error placeholder", r)
	}
	if r := d.CheckSameStep("c3", "Read", json.RawMessage(`{"path":"b"}`), `{"path":"b"}`); r != nil {
		t.Errorf("different args got %+v, want nil", r)
	}
	if r := d.CheckSameStep("c4", "Glob", json.RawMessage(`{"path":"a"}`), `{"path":"a"}`); r != nil {
		t.Errorf("different tool got %+v, want nil", r)
	}
}

func TestDedupReminderOnPartOutputs(t *testing.T) {
	img := llm.ImagePart("data:image/png;base64,AAAA")
	for _, tt := range []struct {
		name      string
		parts     []llm.ContentPart
		wantParts func(rem string) []llm.ContentPart
	}{
		{"last part is text: appended to it", []llm.ContentPart{img, llm.TextPart("seen")},
			func(rem string) []llm.ContentPart { return []llm.ContentPart{img, llm.TextPart("seen" + rem)} }},
		{"last part is media: a new text part", []llm.ContentPart{llm.TextPart("seen"), img},
			func(rem string) []llm.ContentPart {
				return []llm.ContentPart{llm.TextPart("seen"), img, llm.TextPart(rem)}
			}},
		{"empty list: a new text part", []llm.ContentPart{},
			func(rem string) []llm.ContentPart { return []llm.ContentPart{llm.TextPart(rem)} }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := turn.NewDeduplicator()
			orig := slices.Clone(tt.parts)
			res := loop.ToolResult{Output: loop.PartsOutput(tt.parts...), Note: "n", IsError: true}
			var last []loop.ToolResult
			for i := range 3 {
				last = dedupStep(d, res, looptest.Call(fmt.Sprint("c", i), "View", `{}`))
			}
			want := loop.ToolResult{Output: loop.PartsOutput(tt.wantParts(repeatReminder(t, 1, 3))...),
				Note: "n", IsError: true}
			if diff := cmp.Diff(want, last[0]); diff != "" {
				t.Errorf("third result (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(orig, tt.parts); diff != "" {
				t.Errorf("the tool's parts were modified (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDedupStreakFolding(t *testing.T) {
	ok := loop.TextResult("ok")
	a := func(id string) llm.ToolCall { return looptest.Call(id, "Read", `{"path":"a"}`) }
	hasReminder := func(r loop.ToolResult) bool { return strings.Contains(r.Output.Text(), "<system-reminder>") }

	t.Run("a failed step is not folded", func(t *testing.T) {
		d := turn.NewDeduplicator()
		dedupStep(d, ok, a("c1"))
		d.BeginStep()
		d.CheckSameStep("c2", "Read", dedupArgs(`{"path":"a"}`), `{"path":"a"}`) // the step fails: no EndStep
		if r := dedupStep(d, ok, a("c3")); hasReminder(r[0]) {
			t.Errorf("streak 2 got a reminder: %q", r[0].Output.Text())
		}
		if r := dedupStep(d, ok, a("c4")); !hasReminder(r[0]) {
			t.Errorf("streak 3 got no reminder: %q", r[0].Output.Text())
		}
	})
	t.Run("a step without calls keeps the streak", func(t *testing.T) {
		d := turn.NewDeduplicator()
		dedupStep(d, ok, a("c1"))
		dedupStep(d, ok, a("c2"))
		dedupStep(d, ok)
		if r := dedupStep(d, ok, a("c3")); !hasReminder(r[0]) {
			t.Errorf("streak 3 after a text-only step got no reminder: %q", r[0].Output.Text())
		}
	})
	t.Run("RegisterSkipped ignores a registered call", func(t *testing.T) {
		d := turn.NewDeduplicator()
		d.BeginStep()
		d.CheckSameStep("c1", "Read", dedupArgs(`{"path":"a"}`), `{"path":"a"}`)
		d.RegisterSkipped("c1", "Read", dedupArgs(`{"path":"a"}`), `{"path":"a"}`)
		d.FinalizeResult("c1", ok)
		d.EndStep()
		if r := dedupStep(d, ok, a("c2")); hasReminder(r[0]) {
			t.Errorf("streak 2 got a reminder: the call was counted twice")
		}
		if r := dedupStep(d, ok, a("c3")); !hasReminder(r[0]) {
			t.Errorf("streak 3 got no reminder: %q", r[0].Output.Text())
		}
	})
	t.Run("same-step duplicates all count for the next step", func(t *testing.T) {
		d := turn.NewDeduplicator()
		first := dedupStep(d, ok, a("c1"), a("c2"), a("c3"))
		if diff := cmp.Diff([]loop.ToolResult{ok, ok, ok}, first); diff != "" {
			t.Errorf("step 1 (-want +got):\n%s", diff)
		}
		if r := dedupStep(d, ok, a("c4")); r[0].Output.Text() != "ok"+repeatReminder(t, 1, 4) {
			t.Errorf("streak 4 got %q", r[0].Output.Text())
		}
	})
	t.Run("identical malformed texts repeat; {} is another call", func(t *testing.T) {
		d := turn.NewDeduplicator()
		const bad = `{"path":`
		d.BeginStep()
		if r := d.CheckSameStep("c1", "Read", dedupArgs(bad), bad); r != nil {
			t.Errorf("first malformed call got %+v, want nil", r)
		}
		if r := d.CheckSameStep("e1", "Read", dedupArgs(`{}`), `{}`); r != nil {
			t.Errorf("a valid {} call counts as a repeat of a malformed one")
		}
		if r := d.CheckSameStep("c2", "Read", dedupArgs(bad), bad); r == nil {
			t.Errorf("an identical malformed text is not a repeat")
		}
		for _, id := range []string{"c1", "e1", "c2"} {
			d.FinalizeResult(id, ok)
		}
		d.EndStep() // the streak is now the malformed call, once: {} broke it
		bad3 := looptest.Call("c3", "Read", bad)
		if r := dedupStep(d, ok, bad3); r[0].Output.Text() != "ok" {
			t.Errorf("streak 2 got %q", r[0].Output.Text())
		}
		bad4 := looptest.Call("c4", "Read", bad)
		if r := dedupStep(d, ok, bad4); r[0].Output.Text() != "ok"+repeatReminder(t, 1, 3) {
			t.Errorf("streak 3 of one malformed text got %q", r[0].Output.Text())
		}
	})
}

func TestDedupFinalizeUnknownOrRepeatedCall(t *testing.T) {
	d := turn.NewDeduplicator()
	d.BeginStep()
	res := loop.ToolResult{Output: loop.TextOutput("x"), IsError: true, Note: "n"}
	if diff := cmp.Diff(res, d.FinalizeResult("never-registered", res)); diff != "" {
		t.Errorf("unregistered call (-want +got):\n%s", diff)
	}
	d.CheckSameStep("c1", "Read", json.RawMessage(`{}`), `{}`)
	if r := d.CheckSameStep("c1", "Read", json.RawMessage(`{}`), `{}`); r != nil {
		t.Errorf("a repeated call id got the placeholder %+v, want nil", r)
	}
	d.FinalizeResult("c1", res)
	other := loop.TextResult("second")
	if diff := cmp.Diff(other, d.FinalizeResult("c1", other)); diff != "" {
		t.Errorf("second finalize of c1 (-want +got):\n%s", diff)
	}
}

func TestDedupDuplicateBeforeOriginalIsABug(t *testing.T) {
	d := turn.NewDeduplicator()
	d.BeginStep()
	d.CheckSameStep("c1", "Read", json.RawMessage(`{}`), `{}`)
	d.CheckSameStep("c2", "Read", json.RawMessage(`{}`), `{}`)
	defer func() {
		if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "finalised before its original") {
			t.Errorf("recover() = %v, want a bug report", r)
		}
	}()
	d.FinalizeResult("c2", loop.ToolResult{})
}
