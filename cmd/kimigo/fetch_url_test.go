package main

import (
	"strings"
	"testing"

	"github.com/kimigo/kimigo/llm/llmtest"
)

// lastToolResult is the content of the tool message the model read last
// in its request i.
func lastToolResult(t *testing.T, srv *llmtest.Server, i int) string {
	t.Helper()
	msgs, _ := srv.Request(i).JSON(t)["messages"].([]any)
	last, _ := msgs[len(msgs)-1].(map[string]any)
	content, _ := last["content"].(string)
	if last["role"] != "tool" {
		t.Fatalf("request %d ends with %v, not a tool result", i, last)
	}
	return content
}

// Issue 16 item 5 through the binary: print mode's default (yolo) runs a
// fetch; --permission-mode manual denies it naming the host rule
// (ERRATA 34); that rule as --allowedTools lets it run. The host is one the
// fetcher refuses, so no network is touched and the refusal shows the
// fetch ran.
func TestHeadlessFetchURLAsksPerHost(t *testing.T) {
	const url = "http://198.18.0.7/docs/a"
	const refused = "refusing to fetch 198.18.0.7: it is not a public address"
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"print mode default runs it", nil, refused},
		{"manual mode denies it naming the host rule", []string{"--permission-mode", "manual"},
			`nobody is here to approve it. It fetches from a host this session has not approved. An allow rule for FetchURL(http://198.18.0.7/*) (--allowedTools "FetchURL(http://198.18.0.7/*)"`},
		{"the host rule allows it", []string{"--permission-mode", "manual", "--allowedTools", "FetchURL(http://198.18.0.7/*)"}, refused},
		{"another host's rule does not", []string{"--permission-mode", "manual", "--allowedTools", "FetchURL(http://198.18.0.8/*)"},
			"nobody is here to approve it"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := newCLI(t)
			srv := c.fake("openai", llmtest.ToolCall("call_1", "FetchURL", `{"url":"`+url+`"}`), llmtest.Text("ok"))
			c.mustRun(append([]string{"-p", "fetch it"}, tt.args...)...)
			if got := lastToolResult(t, srv, 1); !strings.Contains(got, tt.want) {
				t.Errorf("tool result %q; want it to contain %q", got, tt.want)
			}
		})
	}
}
