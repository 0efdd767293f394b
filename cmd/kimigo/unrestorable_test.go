package main

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/kimigo/kimigo/agent/records"
	"github.com/kimigo/kimigo/llm/llmtest"
)

// Issue 13 item 7: a record that decodes but could not build a request (a
// tool.call whose toolCallId is null) no longer fails every `kimigo -c`
// with provider.api_error. `kimigo doctor` reports its line without
// touching the log; the resume moves it to wire.jsonl.quarantine with a
// warning naming the line and the reason, and the strict fake accepts the
// next request on both wires. A byte order mark on the first line (an
// editor saved the log) resumes without a warning.
func TestRobustRecordThatCannotBeRestored(t *testing.T) {
	for _, kind := range []string{"openai", "anthropic"} {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			c := newCLI(t)
			srv := c.fake(kind, llmtest.ToolCall("call_1", "Bash", `{"command":"echo hi"}`), llmtest.Text("done"),
				llmtest.Text("still here"), llmtest.Text("again"))
			id := resumeHint(t, c.mustRun("-p", "say hi").stderr)
			wire := mainWire(t, c, id)
			data, err := os.ReadFile(wire)
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.SplitAfter(string(data), "\n")
			lineNo := 0
			for i, l := range lines {
				if strings.Contains(l, `"type":"tool.call"`) {
					lines[i] = strings.Replace(l, `"toolCallId":"call_1"`, `"toolCallId":null`, 1)
					lineNo = i + 1
				}
			}
			lines[0] = "\xef\xbb\xbf" + lines[0]
			edited := strings.Join(lines, "")
			if err := os.WriteFile(wire, []byte(edited), 0o600); err != nil {
				t.Fatal(err)
			}
			side := wire + records.QuarantineSuffix
			const reason = "context.append_loop_event record: tool.call event has no toolCallId"

			r := c.run("doctor", "sessions")
			want := fmt.Sprintf("  Line %d of %s holds a record that cannot be restored (%s); resuming the session moves it to %s.\n",
				lineNo, wire, reason, side)
			if r.code != 0 || !strings.Contains(r.stdout, want) {
				t.Errorf("doctor: want %q in\n%v", want, r)
			}
			if after, _ := os.ReadFile(wire); string(after) != edited {
				t.Errorf("doctor changed the log")
			}

			sent := len(srv.Requests())
			r = c.run("-c", "-p", "are you there?")
			if r.code != 0 || r.stdout != "still here\n" || resumeHint(t, r.stderr) != id {
				t.Fatalf("resume:\n%v", r)
			}
			warning := fmt.Sprintf("Warning: set aside line %d of %s, a record that cannot be restored (%s); its bytes were moved to %s\n",
				lineNo, wire, reason, side)
			if !strings.Contains(r.stderr, warning) || strings.Count(r.stderr, "Warning:") != 1 {
				t.Errorf("stderr: want only %q in\n%s", warning, r.stderr)
			}
			if b, _ := os.ReadFile(side); !strings.Contains(string(b), strings.TrimPrefix(lines[lineNo-1], "\xef\xbb\xbf")) {
				t.Errorf("%s does not keep the line:\n%s", side, b)
			}
			for i, req := range srv.Requests()[sent:] {
				if req.Rejected != 0 {
					t.Errorf("request %d after the resume rejected: %s", i, req.RejectReason)
				}
			}
			if r := c.mustRun("-c", "-p", "once more"); strings.Contains(r.stderr, "Warning") {
				t.Errorf("the second resume warned again:\n%s", r.stderr)
			}
			if r := c.run("doctor", "sessions"); r.code != 0 || strings.Contains(r.stdout, "Line ") {
				t.Errorf("doctor after the resume:\n%v", r)
			}
		})
	}
}
