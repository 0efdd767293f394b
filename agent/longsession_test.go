package agent_test

import (
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"

	"github.com/kimigo/kimigo/agent"
	"github.com/kimigo/kimigo/agent/agenttest"
	"github.com/kimigo/kimigo/agent/history"
	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/llm/llmtest"
)

// The long-session acceptance test: three tasks of 100 Read round trips
// each, whose results total about eleven times a 32,000-token window, on
// a server that rejects any request over that window. The session
// compacts as often as it needs to, never sends an oversize request, keeps
// the current task's prompt and its open work (the todo list) in the
// compacted history, and resumes to the same state.
func TestCompactionLongSession(t *testing.T) {
	const (
		window    = 32_000
		tasks     = 3
		perTask   = 100
		fileLines = 80
	)
	var files []string
	for i := range tasks * perTask {
		var b strings.Builder
		for l := range fileLines {
			fmt.Fprintf(&b, "file %03d line %02d: the quick brown fox jumps over the lazy dog\n", i, l)
		}
		files = append(files, fmt.Sprintf("/w/f%03d.txt", i), b.String())
	}
	srv, h := wire(t, window, 0, agenttest.BuiltinTools(), agenttest.Files(files...))
	a := agentOf(h)

	var (
		mu        sync.Mutex
		calls     int  // Read calls issued
		todoSet   = -1 // the task whose todo list was written
		answered  = 0  // calls when the last task answered
		task      int
		estErr    []float64 // |estimate - reported| / reported, per loop request
		decErr    []float64 // the same for the number compaction decides on
		summaries int
	)
	srv.Respond(func(r *llmtest.Request) llmtest.Reply {
		mu.Lock()
		defer mu.Unlock()
		usage := llm.TokenUsage{InputOther: r.Tokens(), Output: 40}
		if isSummary(r) {
			summaries++
			return llmtest.Text(fmt.Sprintf("I am on task %d. I have read every file up to f%03d.txt and each holds "+
				"eighty lines about a fox; nothing surprising so far. Next I read f%03d.txt and go on in order.",
				task, calls-1, calls)).WithUsage(usage)
		}
		reported := float64(r.Tokens())
		estErr = append(estErr, math.Abs(float64(agent.EstimateCurrentRequestTokens(a))-reported)/reported)
		decErr = append(decErr, math.Abs(float64(a.TokenCountWithPending())-reported)/reported)
		switch {
		case todoSet != task:
			todoSet = task
			args := fmt.Sprintf(`{"todos":[{"title":"read the files of task %d","status":"in_progress"},`+
				`{"title":"report on task %d","status":"pending"}]}`, task, task)
			return llmtest.ToolCall(fmt.Sprintf("todo_%d", task), "TodoList", args).WithUsage(usage)
		case calls > 0 && calls%perTask == 0 && answered != calls:
			answered = calls
			return llmtest.Text(fmt.Sprintf("task %d: all files read", task)).WithUsage(usage)
		}
		calls++
		return llmtest.ToolCall(fmt.Sprintf("call_%d", calls), "Read",
			fmt.Sprintf(`{"path":"/w/f%03d.txt"}`, calls-1)).WithUsage(usage)
	})

	var resultChars int
	for k := range tasks {
		mu.Lock()
		task = k
		mu.Unlock()
		prompt := fmt.Sprintf("task %d: read f%03d.txt to f%03d.txt in order", k, k*perTask, (k+1)*perTask-1)
		res := h.Prompt(prompt)
		if res.Event.Reason != event.EndCompleted {
			t.Fatalf("task %d ended %s: %+v", k, res.Event.Reason, res.Event.Error)
		}
	}
	for i := 1; i < len(files); i += 2 {
		resultChars += len(files[i])
	}
	if resultChars/4 < 10*window {
		t.Fatalf("the tool results total %d tokens; the test needs far more than the window", resultChars/4)
	}

	// Never over the window: the strict server rejected nothing.
	for i, r := range srv.Requests() {
		if r.Rejected != 0 {
			t.Fatalf("request %d was rejected: %d %s", i, r.Rejected, r.RejectReason)
		}
	}
	starts := 0
	for _, ev := range compactionEvents(h) {
		if _, ok := ev.(event.CompactionStarted); ok {
			starts++
		}
	}
	if starts < 5 || starts != summaries || countType(h, typeApply) != starts || countType(h, typeCancel) != 0 {
		t.Errorf("%d compactions started, %d summaries, %d applied, %d cancelled", starts, summaries,
			countType(h, typeApply), countType(h, typeCancel))
	}
	if calls != tasks*perTask {
		t.Errorf("%d Read calls; want %d", calls, tasks*perTask)
	}

	// The compacted history keeps the last task's prompt and its open
	// work: the summary carries the todo list.
	hist := a.History()
	last := fmt.Sprintf("task %d: read f%03d.txt to f%03d.txt in order", tasks-1, (tasks-1)*perTask, tasks*perTask-1)
	var kept, todo bool
	for _, m := range hist {
		text := llm.ExtractText(m.Message, "")
		if m.Role == llm.RoleUser && text == last {
			kept = true
		}
		if m.Origin.Is(history.OriginCompactionSummary) && strings.Contains(text, "## TODO List") &&
			strings.Contains(text, fmt.Sprintf("[in_progress] read the files of task %d", tasks-1)) {
			todo = true
		}
	}
	if !kept || !todo {
		t.Errorf("compacted history keeps the last prompt: %v, the open todo list: %v\n%q", kept, todo, summarize(hist))
	}

	mae := func(errs []float64) float64 {
		sum := 0.0
		for _, e := range errs {
			sum += e
		}
		return 100 * sum / float64(len(errs))
	}
	t.Logf("%d requests, %d compactions; request estimate vs reported usage: mean absolute error %.1f%% "+
		"(local estimate), %.1f%% (reported + pending estimate, what compaction decides on)",
		len(srv.Requests()), starts, mae(estErr), mae(decErr))
	if m := mae(decErr); m > 10 {
		t.Errorf("the context size compaction decides on is off by %.1f%% on average; want at most 10%%", m)
	}
	h.ExpectResumeMatches()
}
