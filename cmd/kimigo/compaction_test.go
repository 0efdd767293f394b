package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/llm/llmtest"
)

// A real print run compacts: the window is KIMI_MODEL_MAX_CONTEXT_SIZE, and
// a strict server with the same window rejects nothing while the run reads
// files that add up to more than it.
func TestPrintRunCompactsWithinTheWindow(t *testing.T) {
	const window, files = 32_000, 14
	c := newCLI(t)
	srv := c.windowedFake("openai", window)
	writeFiles(c, files, 100)
	var (
		mu              sync.Mutex
		calls, compacts int
	)
	srv.Respond(func(r *llmtest.Request) llmtest.Reply {
		mu.Lock()
		defer mu.Unlock()
		usage := llm.TokenUsage{InputOther: r.Tokens(), Output: 20}
		if isSummaryRequest(r) {
			compacts++
			return llmtest.Text(fmt.Sprintf("I have read f00.txt to f%02d.txt; next I read the rest.", calls-1)).WithUsage(usage)
		}
		if calls == files {
			return llmtest.Text("all files read").WithUsage(usage)
		}
		calls++
		args := fmt.Sprintf(`{"path":%q}`, filepath.Join(c.dir, fmt.Sprintf("f%02d.txt", calls-1)))
		return llmtest.ToolCall(fmt.Sprintf("call_%d", calls), "Read", args).WithUsage(usage)
	})
	r := c.mustRun("-p", "read every file")
	if !strings.Contains(r.stdout, "all files read") {
		t.Errorf("the run did not finish:\n%v", r)
	}
	for i, req := range srv.Requests() {
		if req.Rejected != 0 {
			t.Errorf("request %d rejected: %d %s", i, req.Rejected, req.RejectReason)
		}
	}
	if compacts == 0 {
		t.Errorf("the run never compacted (%d requests)", len(srv.Requests()))
	}
}

// readingModel answers a run that reads files f00.txt… one per step until
// it has read files of them, then says "all files read"; it answers every
// summary request with a note and counts them. With failSummaries set, it
// refuses summary requests the way a strict service refused the shape
// kimigo sent before ERRATA 28.
type readingModel struct {
	c     *cli
	kind  string
	files int

	mu             sync.Mutex
	calls          int   // files asked for so far
	compacts       int   // summaries written
	summaries      []int // indexes of the summary requests
	failSummaries  bool
	requestsServed int
}

func (m *readingModel) respond(r *llmtest.Request) llmtest.Reply {
	m.mu.Lock()
	defer m.mu.Unlock()
	defer func() { m.requestsServed++ }()
	usage := llm.TokenUsage{InputOther: r.Tokens(), Output: 20}
	if isSummaryRequest(r) {
		m.summaries = append(m.summaries, m.requestsServed)
		if m.failSummaries {
			return firstMessageRefusal(m.kind)
		}
		m.compacts++
		return llmtest.Text(fmt.Sprintf("I have read f00.txt to f%02d.txt; next I read the rest.", m.calls-1)).WithUsage(usage)
	}
	if m.calls == m.files {
		return llmtest.Text("all files read").WithUsage(usage)
	}
	m.calls++
	args := fmt.Sprintf(`{"path":%q}`, filepath.Join(m.c.dir, fmt.Sprintf("f%02d.txt", m.calls-1)))
	return llmtest.ToolCall(fmt.Sprintf("call_%d", m.calls), "Read", args).WithUsage(usage)
}

// firstMessageRefusal is the 400 a strict service of kind answers to a
// conversation that does not start with a user message.
func firstMessageRefusal(kind string) llmtest.Reply {
	if kind == "anthropic" {
		return llmtest.Status(http.StatusBadRequest, llmtest.AnthropicErrorBody("invalid_request_error",
			`messages: first message must use the "user" role`))
	}
	return llmtest.Status(http.StatusBadRequest, `{"error":{"message":"Invalid request: first message must use the user role `+
		`(after system messages), got 'assistant' at position 1","type":"invalid_request_error","param":null,"code":null}}`)
}

// TestScenarioCompactionFiveTimesOnEveryWire (issue 13 item 1, ERRATA 28):
// a 40-step print run in a window that holds about two of its files
// compacts at least five times, on every wire, and the strict fake
// accepts every request: each summary request starts with the task
// prompt, even when the history no longer fits it whole.
func TestScenarioCompactionFiveTimesOnEveryWire(t *testing.T) {
	forEachProvider(t, func(t *testing.T, kind string) {
		const window, files = 16_000, 40 // 12,000 plus the definitions of the plan, goal, task, cron and Agent tools
		c := newCLI(t)
		srv := c.windowedFake(kind, window)
		writeFiles(c, files, 180)
		m := &readingModel{c: c, kind: kind, files: files}
		srv.Respond(m.respond)
		r := c.mustRun("-p", "read every file")
		if r.stdout != "all files read\n" {
			t.Errorf("the run did not finish:\n%v", r)
		}
		reqs := srv.Requests()
		for i, req := range reqs {
			if req.Rejected != 0 {
				t.Errorf("request %d rejected: %d %s", i, req.Rejected, req.RejectReason)
			}
		}
		if m.compacts < 5 || m.calls != files {
			t.Errorf("%d compactions, %d files read in %d requests; want at least 5 and all %d", m.compacts, m.calls, len(reqs), files)
		}
		for _, i := range m.summaries {
			if role, text := firstMessage(t, reqs[i]); role != "user" || !strings.HasPrefix(text, "read every file") {
				t.Errorf("summary request %d starts %s %.80q; want the task prompt", i, role, text)
			}
		}
	})
}

// TestContinueAfterACompactionTheServiceRefused: a session whose run
// ended in a refused summary request (its log ends with the compaction's
// begin and cancel, as every session bricked before ERRATA 28 does)
// continues with `kimigo -c`: the next summary request is accepted and
// the task completes.
func TestContinueAfterACompactionTheServiceRefused(t *testing.T) {
	for _, kind := range []string{"anthropic", "openai"} {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			const window, files = 16_000, 6 // room for the default tools, Agent included
			c := newCLI(t)
			srv := c.windowedFake(kind, window)
			writeFiles(c, files, 180)
			m := &readingModel{c: c, kind: kind, files: files, failSummaries: true}
			srv.Respond(m.respond)
			r := c.run("-p", "read every file")
			if r.code != 1 || !strings.Contains(r.stderr, "compaction.failed") || !strings.Contains(r.stderr, "first message must use") {
				t.Fatalf("the first run did not fail at its compaction:\n%v", r)
			}
			log := strings.TrimSpace(c.wire())
			if !strings.HasSuffix(log, `"type":"full_compaction.cancel"`+log[strings.LastIndex(log, `,"time":`):]) {
				t.Fatalf("the log does not end with the cancelled compaction:\n%s", log[max(0, len(log)-400):])
			}
			sent := len(srv.Requests())
			m.mu.Lock()
			m.failSummaries = false
			m.mu.Unlock()

			r = c.mustRun("-c", "-p", "continue")
			if r.stdout != "all files read\n" || m.compacts == 0 {
				t.Errorf("the continued run (%d compactions):\n%v", m.compacts, r)
			}
			for i, req := range srv.Requests()[sent:] {
				if req.Rejected != 0 {
					t.Errorf("request %d of the continued run rejected: %d %s", i, req.Rejected, req.RejectReason)
				}
			}
		})
	}
}

// windowedFake is fake with a strict context window on the server and the
// same window declared to kimigo.
func (c *cli) windowedFake(kind string, window int) *llmtest.Server {
	c.t.Helper()
	var srv *llmtest.Server
	switch kind {
	case "kimi":
		srv = llmtest.FakeChatCompletionsWith(c.t, llmtest.ChatOptions{Flavour: llmtest.ChatKimi, ContextWindow: window})
		c.env["KIMI_MODEL_BASE_URL"] = llmtest.ChatBaseURL(srv)
	case "openai":
		srv = llmtest.FakeChatCompletionsWith(c.t, llmtest.ChatOptions{ContextWindow: window})
		c.env["KIMI_MODEL_BASE_URL"] = llmtest.ChatBaseURL(srv)
	case "anthropic":
		srv = llmtest.FakeAnthropicWith(c.t, llmtest.AnthropicOptions{ContextWindow: window})
		c.env["KIMI_MODEL_BASE_URL"] = srv.URL
	default:
		c.t.Fatalf("unknown provider kind %q", kind)
	}
	c.env["KIMI_MODEL_NAME"] = "fake-model"
	c.env["KIMI_MODEL_API_KEY"] = "test-key"
	c.env["KIMI_MODEL_PROVIDER_TYPE"] = kind
	c.env["KIMI_MODEL_MAX_CONTEXT_SIZE"] = fmt.Sprint(window)
	return srv
}

// writeFiles writes f00.txt… of lines lines each (about 25 tokens a line
// as Read shows it).
func writeFiles(c *cli, n, lines int) {
	line := strings.Repeat("a line of a file that fills the context window ", 2) + "\n"
	for i := range n {
		c.write(fmt.Sprintf("f%02d.txt", i), strings.Repeat(line, lines))
	}
}

// isSummaryRequest reports a compaction's summary request: it carries the
// instruction.
func isSummaryRequest(r *llmtest.Request) bool {
	return strings.Contains(string(r.Body), "write a handoff note to yourself")
}

// firstMessage is the role and text of a request's first message after
// any system or developer messages.
func firstMessage(t *testing.T, r *llmtest.Request) (role, text string) {
	t.Helper()
	var b struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(r.Body, &b); err != nil {
		t.Fatalf("request body: %v", err)
	}
	for _, m := range b.Messages {
		if m.Role == "system" || m.Role == "developer" {
			continue
		}
		if json.Unmarshal(m.Content, &text) != nil {
			var parts []struct {
				Text string `json:"text"`
			}
			_ = json.Unmarshal(m.Content, &parts) // content without text parts has no text
			for _, p := range parts {
				text += p.Text
			}
		}
		return m.Role, text
	}
	return "", ""
}
