package main

import (
	"fmt"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kimigo/kimigo/config"
	"github.com/kimigo/kimigo/llm/llmtest"
)

// The resume-budget bug of issue 14, through the binary: model a (the
// default, max_output_size 1000) and model b (5000). `-m b -p one` sends
// model b capped at 5000; `-r <id> -p two` must send model b capped at
// 5000 again, not at the default model's 1000. A -m given with -r
// switches the session for good: the next plain -r keeps it.
func TestResumeKeepsTheSavedModelAndItsBudget(t *testing.T) {
	c := newCLI(t)
	srv := llmtest.FakeChatCompletionsWith(t, llmtest.ChatOptions{Flavour: llmtest.ChatKimi},
		llmtest.Text("one"), llmtest.Text("two"), llmtest.Text("three"), llmtest.Text("four"))
	if err := os.MkdirAll(c.home, 0o700); err != nil {
		t.Fatal(err)
	}
	cfg := fmt.Sprintf(`default_model = "a"

[providers.fake]
type = "kimi"
base_url = %q
api_key = "test-key"

[models.a]
provider = "fake"
model = "model-a"
max_context_size = 100000
max_output_size = 1000

[models.b]
provider = "fake"
model = "model-b"
max_context_size = 100000
max_output_size = 5000
`, llmtest.ChatBaseURL(srv))
	if err := os.WriteFile(config.ConfigFile(c.home), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}

	id := resumeHint(t, c.mustRun("-m", "b", "-p", "one").stderr)
	c.mustRun("-r", id, "-p", "two")
	c.mustRun("-r", id, "-m", "a", "-p", "three")
	c.mustRun("-r", id, "-p", "four")

	var got []string
	for _, r := range srv.Requests() {
		body := r.JSON(t)
		got = append(got, fmt.Sprintf("%v %v", body["model"], body["max_completion_tokens"])) // the Kimi wire's max_tokens
	}
	want := []string{"model-b 5000", "model-b 5000", "model-a 1000", "model-a 1000"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("model and max_tokens of each request (-want +got):\n%s", d)
	}
}
