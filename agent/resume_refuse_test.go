package agent_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/kimigo/kimigo/agent"
	"github.com/kimigo/kimigo/agent/records"
	"github.com/kimigo/kimigo/agent/turn"
	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/llm/llmtest"
	"github.com/kimigo/kimigo/loop"
	"github.com/kimigo/kimigo/loop/looptest"
)

// fileAgent is an agent on the file log in dir whose model is p; the
// quarantine reports go to got.
func fileAgent(t *testing.T, dir string, p llm.Provider, got *[]records.Quarantined) *agent.Agent {
	t.Helper()
	var mu sync.Mutex
	store, err := records.OpenFile(records.FileOptions{Dir: dir, OnQuarantine: func(q records.Quarantined) {
		mu.Lock()
		*got = append(*got, q)
		mu.Unlock()
	}})
	if err != nil {
		t.Fatal(err)
	}
	a := agent.New(agent.Options{Model: agent.ModelBinding{Provider: p}, Persistence: store, HomeDir: dir, Tools: []loop.ExecutableTool{looptest.Echo()},
		Config: agent.Config{SystemPrompt: "You are kimigo."}})
	t.Cleanup(func() { a.Close(context.WithoutCancel(t.Context())) })
	return a
}

// prompt runs one prompt to its end.
func prompt(t *testing.T, a *agent.Agent, text string) turn.Result {
	t.Helper()
	ctx := context.WithoutCancel(t.Context())
	if _, err := a.Prompt(ctx, []llm.ContentPart{llm.TextPart(text)}, nil); err != nil {
		t.Fatal(err)
	}
	res, err := a.WaitForCurrentTurn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// Issue 13 item 7: a log that replays but could not build a request, or
// whose record does not restore, is repaired on resume like a corrupt
// line: the record is set aside (moved to wire.jsonl.quarantine, reported
// with the reason), the resume succeeds, and the next request passes the
// strict fake on every wire, where before every resume failed with
// provider.api_error or a restore error. A byte order mark on the first
// line is not an error at all.
func TestResumeSetsAsideRecordsThatCannotBeRestored(t *testing.T) {
	for _, tt := range []struct {
		name   string
		edit   func(lines []string) []string
		reason string // "" when nothing is set aside
	}{
		{"tool.call with a null toolCallId", replaceIn(`"type":"tool.call"`, `"toolCallId":"call_1"`, `"toolCallId":null`),
			"context.append_loop_event record: tool.call event has no toolCallId"},
		{"tool.call with a number for toolCallId", replaceIn(`"type":"tool.call"`, `"toolCallId":"call_1"`, `"toolCallId":5`),
			"decode context.append_loop_event record"},
		{"content part of a step that never began", insertAfter(`"type":"step.begin"`,
			`{"type":"context.append_loop_event","event":{"type":"content.part","uuid":"p9","turnId":"0","step":1,"stepUuid":"nowhere","part":{"type":"text","text":"lost"}},"time":1}`),
			"received content_part for unknown step_uuid 'nowhere'"},
		{"tool message without an id", insertAfter(`"type":"tool.result"`,
			`{"type":"context.append_message","message":{"role":"tool","content":[{"type":"text","text":"stray"}]},"time":1}`),
			"context.append_message record: tool message has no toolCallId"},
		{"byte order mark on the first line", func(lines []string) []string {
			lines[0] = "\xef\xbb\xbf" + lines[0]
			return lines
		}, ""},
	} {
		for _, kind := range []string{"anthropic", "openai"} {
			t.Run(tt.name+"/"+kind, func(t *testing.T) {
				dir := t.TempDir()
				srv, p := strictProvider(t, kind, 0)
				srv.Add(llmtest.ToolCall("call_1", "echo", `{"text":"hi"}`), llmtest.Text("done"))
				var none []records.Quarantined
				first := fileAgent(t, dir, p, &none)
				if res := prompt(t, first, "say hi"); res.Event.Reason != event.EndCompleted {
					t.Fatalf("first turn: %+v", res.Event)
				}
				first.Close(t.Context())
				path := filepath.Join(dir, records.LogFileName)
				data, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				lines := tt.edit(strings.Split(strings.TrimSuffix(string(data), "\n"), "\n"))
				if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
					t.Fatal(err)
				}

				srv2, p2 := strictProvider(t, kind, 0)
				srv2.Add(llmtest.Text("still here"), llmtest.Text("again"))
				var got []records.Quarantined
				a := fileAgent(t, dir, p2, &got)
				res, err := a.Resume(t.Context(), agent.ResumeOptions{})
				if err != nil {
					t.Fatalf("resume: %v", err)
				}
				want := map[bool]int{true: 1}[tt.reason != ""]
				if res.Refused != want || len(got) != want {
					t.Fatalf("%d records refused, %d reported (%+v); want %d", res.Refused, len(got), got, want)
				}
				if want == 1 {
					q := got[0]
					if !strings.Contains(q.Reason, tt.reason) || !q.Removed || q.SideFile != path+records.QuarantineSuffix {
						t.Errorf("report = %+v; want %q, moved to the side file", q, tt.reason)
					}
					if side, _ := os.ReadFile(q.SideFile); !strings.Contains(string(side), lines[q.Line-1]) {
						t.Errorf("the side file lacks line %d:\n%s", q.Line, side)
					}
				}
				if r := prompt(t, a, "are you there?"); r.Event.Reason != event.EndCompleted {
					t.Fatalf("turn after the resume ended %s (%+v)", r.Event.Reason, r.Event.Error)
				}
				if last := srv2.Request(0); last.Rejected != 0 {
					t.Fatalf("the strict fake rejected the resumed request: %s", last.RejectReason)
				}
				// Nothing is left to set aside: the next resume is clean.
				a.Close(t.Context())
				var again []records.Quarantined
				b := fileAgent(t, dir, p2, &again)
				if res, err := b.Resume(t.Context(), agent.ResumeOptions{}); err != nil || res.Refused != 0 || len(again) != 0 {
					t.Errorf("second resume: %d refused, %v, %+v", res.Refused, err, again)
				}
			})
		}
	}
}

// replaceIn replaces old by new in the first line that contains marker.
func replaceIn(marker, old, new string) func([]string) []string {
	return func(lines []string) []string {
		for i, l := range lines {
			if strings.Contains(l, marker) && strings.Contains(l, old) {
				lines[i] = strings.Replace(l, old, new, 1)
				return lines
			}
		}
		panic("no line with " + marker)
	}
}

// insertAfter inserts line after the first line that contains marker.
func insertAfter(marker, line string) func([]string) []string {
	return func(lines []string) []string {
		for i, l := range lines {
			if strings.Contains(l, marker) {
				return append(lines[:i+1:i+1], append([]string{line}, lines[i+1:]...)...)
			}
		}
		panic("no line with " + marker)
	}
}

// TestCheckLogReportsWithoutWriting: the check doctor runs finds what a
// resume would set aside and changes nothing.
func TestCheckLogReportsWithoutWriting(t *testing.T) {
	dir := t.TempDir()
	srv, p := strictProvider(t, "openai", 0)
	srv.Add(llmtest.ToolCall("call_1", "echo", `{"text":"hi"}`), llmtest.Text("done"))
	var none []records.Quarantined
	a := fileAgent(t, dir, p, &none)
	prompt(t, a, "say hi")
	a.Close(t.Context())
	path := filepath.Join(dir, records.LogFileName)
	data, _ := os.ReadFile(path)
	lines := replaceIn(`"type":"tool.call"`, `"toolCallId":"call_1"`, `"toolCallId":null`)(strings.Split(strings.TrimSuffix(string(data), "\n"), "\n"))
	edited := strings.Join(lines, "\n") + "\n"
	if err := os.WriteFile(path, []byte(edited), 0o600); err != nil {
		t.Fatal(err)
	}
	in := records.Inspect(nil, path)
	refused, err := agent.CheckLog(t.Context(), in)
	if err != nil || refused != 1 || len(in.Problems()) != 1 ||
		!strings.Contains(in.Problems()[0].Reason, "tool.call event has no toolCallId") {
		t.Errorf("CheckLog = %d, %v, %+v", refused, err, in.Problems())
	}
	if after, _ := os.ReadFile(path); string(after) != edited {
		t.Errorf("the check changed the log")
	}
	if _, err := os.Stat(path + records.QuarantineSuffix); err == nil {
		t.Errorf("the check wrote the side file")
	}
}
