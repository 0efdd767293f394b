package main

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/kimigo/kimigo/llm/llmtest"
)

// Issue 19 acceptance, AgentSwarm through the built binary against the
// loopback fake. The scheduler runs with the spec's intervals (a ramp of
// 5, then one launch per 700 ms), so a swarm of 20 takes about ten
// seconds to launch.

// swarmItems are the 20 items of the end-to-end swarms.
func swarmItems() []string {
	out := make([]string, 20)
	for i := range out {
		out[i] = fmt.Sprintf("part-%02d", i+1)
	}
	return out
}

// childReport is a child's handoff, long enough for no re-ask.
func childReport(item string) string {
	return item + " reviewed. " + strings.Repeat("Nothing unusual found. ", 12)
}

// childOf is the item whose child sent turn, "" for the main agent.
func childOf(turn chatTurn) string {
	if item, ok := strings.CutPrefix(turn.first, "Review "); ok {
		return strings.TrimSuffix(item, " and report.")
	}
	return ""
}

// Twenty children; the fake answers 429 to the first request of four of
// them (the loop retries those) and to every request part-20's child
// sends until the batch scheduler requeues it, while part-19's child is
// still working (its reply waits for part-20's retry): part-20 is
// suspended and retried with the same agent id, and all twenty complete.
func TestE2ESwarmOf20WithRateLimits(t *testing.T) {
	c := newCLI(t)
	c.env["KIMI_LOOP_MAX_ATTEMPTS_PER_STEP"] = "2" // part-20's turn gives up after two 429s
	srv := c.fake("openai")
	items := swarmItems()
	// part-19's reply waits for part-20's retry, so part-20 is never the
	// last unfinished task when it is rate limited, however slow the
	// machine. The timer only keeps a broken scheduler from hanging the
	// test; the assertions below then fail.
	retried := llmtest.NewGate()
	defer time.AfterFunc(2*time.Minute, retried.Release).Stop()
	defer retried.Release()
	var mu sync.Mutex
	seen := map[string][]time.Time{}
	srv.Respond(func(r *llmtest.Request) llmtest.Reply {
		turn := decodeChatTurn(t, r)
		item := childOf(turn)
		if item == "" {
			if turn.tools == 0 {
				return llmtest.ToolCall("call_s", "AgentSwarm", argsJSON(t, map[string]any{"description": "review the parts",
					"prompt_template": "Review {{item}} and report.", "items": items}))
			}
			return llmtest.Text("All twenty parts were reviewed.")
		}
		mu.Lock()
		seen[item] = append(seen[item], time.Now())
		n := len(seen[item])
		mu.Unlock()
		switch {
		case item == "part-20" && n <= 2:
			return llmtest.ChatRateLimited(0)
		case item == "part-20":
			retried.Release()
		case (item == "part-02" || item == "part-07" || item == "part-12" || item == "part-17") && n == 1:
			return llmtest.ChatRateLimited(0)
		case item == "part-19":
			return llmtest.Text(childReport(item)).WithFault(llmtest.Fault{Hold: retried})
		}
		return llmtest.Text(childReport(item))
	})
	r := c.mustRun("-p", "review every part", "--yolo")
	if r.stdout != "All twenty parts were reviewed.\n" {
		t.Fatalf("stdout %q\nstderr:\n%s", r.stdout, r.stderr)
	}
	last := string(srv.Request(len(srv.Requests()) - 1).Body)
	if !strings.Contains(last, "<summary>completed: 20</summary>") {
		t.Fatalf("the parent's last request lacks a swarm of 20 completed:\n%s", last)
	}
	for i, item := range items {
		want := fmt.Sprintf(`<subagent agent_id=\"agent-%d\" item=\"%s\" outcome=\"completed\">%s`, i, item, strings.TrimSpace(childReport(item)))
		if !strings.Contains(last, want) {
			t.Errorf("the swarm result lacks %s", item)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	for _, item := range []string{"part-02", "part-07", "part-12", "part-17"} {
		if len(seen[item]) != 2 {
			t.Errorf("%s's child sent %d requests, want a 429 and the loop's retry", item, len(seen[item]))
		}
	}
	// part-20: two 429s (the loop's two attempts), then the scheduler's
	// retry of the same child no earlier than 3 s later.
	if got := seen["part-20"]; len(got) != 3 || got[2].Sub(got[1]) < 3*time.Second {
		t.Errorf("part-20's requests at %v; want the scheduler's retry at least 3s after the second 429", got)
	}
	// The retry re-ran the child's turn in its own log: the prompt
	// entered its history once.
	n := 0
	for line := range strings.SplitSeq(childWire(t, c, "agent-19"), "\n") {
		if strings.Contains(line, `"type":"context.append_message"`) && strings.Contains(line, "Review part-20 and report.") {
			n++
		}
	}
	if n != 1 {
		t.Errorf("part-20's child history got its prompt %d times, want 1", n)
	}
}

// childWire is the record log of child id in the work dir's only session.
func childWire(t *testing.T, c *cli, id string) string {
	t.Helper()
	matches, err := filepath.Glob(filepath.Join(c.home, "sessions", "*", "*", "agents", id, "wire.jsonl"))
	if err != nil || len(matches) != 1 {
		t.Fatalf("the log of %s: %v %v", id, matches, err)
	}
	b, err := os.ReadFile(matches[0])
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// kimigo is SIGKILLed while a swarm of 20 is running; `kimigo -c -p`
// continues the session: it opens, the parent sees its swarm call
// interrupted, and a resumed child replays its own log (its next request
// holds its first prompt and the new one).
func TestE2ESwarmKilledThenContinued(t *testing.T) {
	c := newCLI(t)
	srv := c.fake("openai")
	items := swarmItems()
	gate := llmtest.NewGate()
	var mu sync.Mutex
	children := map[string]int{}
	srv.Respond(func(r *llmtest.Request) llmtest.Reply {
		turn := decodeChatTurn(t, r)
		item := childOf(turn)
		switch {
		case item != "":
			mu.Lock()
			children[item]++
			mu.Unlock()
			if item == "part-03" && len(turn.users) > 1 {
				return llmtest.Text(childReport(item)) // the resumed child, after the restart
			}
			return llmtest.Text(childReport(item)).WithFault(llmtest.Fault{Hold: gate})
		case turn.first == "review every part" && turn.tools == 0:
			return llmtest.ToolCall("call_s", "AgentSwarm", argsJSON(t, map[string]any{"description": "review the parts",
				"prompt_template": "Review {{item}} and report.", "items": items}))
		case strings.Contains(strings.Join(turn.users, "\n"), "continue part-03") && turn.tools == 1:
			return llmtest.ToolCall("call_r", "AgentSwarm", argsJSON(t, map[string]any{"description": "finish part-03",
				"resume_agent_ids": map[string]string{"agent-2": "Finish the review."}}))
		}
		return llmtest.Text("Picked up where the swarm stopped.")
	})
	started := func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(children) >= 6 // the first five and the ramp's sixth are running
	}
	res := c.interrupt(syscall.SIGKILL, started, "-p", "review every part", "--yolo")
	if res.code != -1 {
		t.Fatalf("kimigo was not killed: %v", res)
	}
	gate.Release()
	mu.Lock()
	before := maps.Clone(children)
	mu.Unlock()
	sent := len(srv.Requests())
	r := c.mustRun("-c", "-p", "continue part-03", "--yolo")
	if r.stdout != "Picked up where the swarm stopped.\n" || strings.Contains(r.stderr, "panic") {
		t.Fatalf("continued run:\n%v", r)
	}
	// The continued session closed the killed swarm call as interrupted
	// and started no child but the one it resumed.
	if first := string(srv.Request(sent).Body); !strings.Contains(first, "Tool execution was interrupted before its result was recorded") {
		t.Errorf("the continued run's first request does not close the swarm call as interrupted:\n%s", first)
	}
	mu.Lock()
	for item, n := range children {
		want := before[item]
		if item == "part-03" {
			want++
		}
		if n != want {
			t.Errorf("%s's child sent %d requests after the restart, want %d", item, n-before[item], want-before[item])
		}
	}
	mu.Unlock()
	// The resumed child's request holds its first prompt, from its own
	// log, and the new one.
	var resumed string
	for _, q := range srv.Requests() {
		turn := decodeChatTurn(t, q)
		if childOf(turn) == "part-03" && len(turn.users) > 1 {
			resumed = strings.Join(turn.users, "\n")
		}
	}
	if !strings.Contains(resumed, "Review part-03 and report.") || !strings.Contains(resumed, "Finish the review.") {
		t.Errorf("the resumed child's request users:\n%s", resumed)
	}
	last := string(srv.Request(len(srv.Requests()) - 1).Body)
	if !strings.Contains(last, `<subagent mode=\"resume\" agent_id=\"agent-2\" item=\"part-03\" outcome=\"completed\">`) {
		t.Errorf("the parent's last request lacks the resumed child's result:\n%s", last)
	}
}

// KIMI_CODE_AGENT_SWARM_MAX_CONCURRENCY reaches the scheduler through the
// binary: with 2, no more than two children of four are at the model at
// once; with "abc", the call fails with the positive-integer message and
// no child starts (spec 05 §5.7, S60).
func TestE2ESwarmConcurrencyFromEnv(t *testing.T) {
	for _, tt := range []struct {
		value    string
		children int
	}{{"2", 4}, {"abc", 0}} {
		t.Run(tt.value, func(t *testing.T) {
			c := newCLI(t)
			c.env["KIMI_CODE_AGENT_SWARM_MAX_CONCURRENCY"] = tt.value
			srv := c.fake("openai")
			var mu sync.Mutex
			inFlight, most := 0, 0
			seen := map[string]bool{}
			srv.Respond(func(r *llmtest.Request) llmtest.Reply {
				turn := decodeChatTurn(t, r)
				item := childOf(turn)
				if item == "" {
					if turn.tools == 0 {
						return llmtest.ToolCall("call_s", "AgentSwarm", argsJSON(t, map[string]any{"description": "review",
							"prompt_template": "Review {{item}} and report.", "items": []string{"a", "b", "c", "d"}}))
					}
					return llmtest.Text("Done.")
				}
				mu.Lock()
				seen[item] = true
				inFlight++
				most = max(most, inFlight)
				mu.Unlock()
				// Each child stays at the model until two are (or 5 s
				// passed), then long enough for a third to show up were
				// it let through.
				for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
					mu.Lock()
					two := most >= 2
					mu.Unlock()
					if two {
						break
					}
				}
				time.Sleep(300 * time.Millisecond)
				mu.Lock()
				inFlight--
				mu.Unlock()
				return llmtest.Text(childReport(item))
			})
			r := c.mustRun("-p", "review", "--yolo")
			if r.stdout != "Done.\n" {
				t.Fatalf("stdout %q\nstderr:\n%s", r.stdout, r.stderr)
			}
			last := string(srv.Request(len(srv.Requests()) - 1).Body)
			mu.Lock()
			defer mu.Unlock()
			if len(seen) != tt.children {
				t.Errorf("%d children reached the model, want %d", len(seen), tt.children)
			}
			switch tt.value {
			case "2":
				if most != 2 || !strings.Contains(last, "<summary>completed: 4</summary>") {
					t.Errorf("at most %d children at once, want 2; the parent's last request:\n%s", most, last)
				}
			default:
				if want := `KIMI_CODE_AGENT_SWARM_MAX_CONCURRENCY must be a positive integer, got \"abc\".`; !strings.Contains(last, want) {
					t.Errorf("the parent's last request lacks %s:\n%s", want, last)
				}
			}
		})
	}
}
