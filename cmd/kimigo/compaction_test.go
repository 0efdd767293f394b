package main

import (
	"fmt"
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
	srv := llmtest.FakeChatCompletionsWith(t, llmtest.ChatOptions{ContextWindow: window})
	c.env["KIMI_MODEL_NAME"] = "fake-model"
	c.env["KIMI_MODEL_API_KEY"] = "test-key"
	c.env["KIMI_MODEL_PROVIDER_TYPE"] = "openai"
	c.env["KIMI_MODEL_BASE_URL"] = llmtest.ChatBaseURL(srv)
	c.env["KIMI_MODEL_MAX_CONTEXT_SIZE"] = fmt.Sprint(window)
	line := strings.Repeat("a line of a file that fills the context window ", 2) + "\n"
	for i := range files {
		c.write(fmt.Sprintf("f%02d.txt", i), strings.Repeat(line, 100))
	}
	var (
		mu              sync.Mutex
		calls, compacts int
	)
	srv.Respond(func(r *llmtest.Request) llmtest.Reply {
		mu.Lock()
		defer mu.Unlock()
		usage := llm.TokenUsage{InputOther: r.Tokens(), Output: 20}
		if strings.Contains(string(r.Body), "write a handoff note to yourself") {
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
