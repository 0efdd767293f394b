package main

import (
	"strings"
	"testing"

	"github.com/kimigo/kimigo/llm/llmtest"
)

// Issue 15 item 11: a prompt larger than the window is refused as such,
// with the amount, and nothing is sent.
func TestS15PromptLargerThanTheWindow(t *testing.T) {
	c := newCLI(t)
	srv := c.fake("openai", llmtest.Text("never"))
	c.env["KIMI_MODEL_MAX_CONTEXT_SIZE"] = "30000"
	r := c.runIn(c.dir, strings.Repeat("word ", 60000), "-p", "summarize")
	if r.code != 1 || !strings.Contains(r.stderr, "error: failed to run prompt: prompt.too_large: the prompt is too large: about ") ||
		!strings.Contains(r.stderr, "over the model's 30000-token window") || strings.Contains(r.stderr, "compaction") {
		t.Errorf("got %v", r)
	}
	if strings.Contains(r.stderr, "hint:") {
		t.Errorf("a hint for a prompt that is too large: %v", r)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("%d requests; want none", n)
	}
}
