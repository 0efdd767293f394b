package loop

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/llm/plainjson"
)

const fuzzEchoSchema = `{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`

type fuzzEcho struct{}

func (fuzzEcho) Definition() llm.Tool {
	return llm.Tool{Name: "echo", Parameters: json.RawMessage(fuzzEchoSchema)}
}

func (fuzzEcho) ResolveExecution(json.RawMessage) (Execution, *ToolResult, error) {
	return Execution{Execute: func(context.Context, ExecCtx) (ToolResult, error) { return ToolResult{}, nil }}, nil, nil
}

// FuzzToolArgs feeds arbitrary argument bytes through the preflight: it
// never panics, a call is either runnable with valid JSON arguments or
// rejected with an error result, and the recorded args are always valid
// JSON (the model's exact text when it parsed, compacted).
func FuzzToolArgs(f *testing.F) {
	for _, seed := range []string{`{"text":"hi"}`, `{"text":"hi",}`, `{}{`, ``, `null`, `"x"`, `[1]`, `{"text":1}`,
		`{"text":"a","extra":true}`, "{\"text\":\"\xff\"}", " {\"text\" : \"x\" ,\n\"b\":[1, 2]} ", `{"te`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		tr := newTurn(t.Context(), RunTurnInput{TurnID: "turn-1"})
		s := &stepState{n: 1, uuid: "s1", trace: &RequestTrace{}}
		s.tools = []ExecutableTool{fuzzEcho{}}
		s.defs = []llm.Tool{fuzzEcho{}.Definition()}
		p := tr.preflight(s, []llm.ToolCall{{ID: "c1", Name: "echo", Arguments: string(raw)}})[0]

		if !json.Valid(p.args) {
			t.Fatalf("args %q are not valid JSON (raw %q)", p.args, raw)
		}
		parsed := len(raw) == 0 || (utf8.Valid(raw) && json.Valid(raw))
		if parsed {
			var want bytes.Buffer
			if len(raw) == 0 {
				want.WriteString("{}")
			} else if err := json.Compact(&want, raw); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(p.args, want.Bytes()) || p.rawArgs != "" {
				t.Fatalf("args %s rawArgs %q; want %s", p.args, p.rawArgs, want.Bytes())
			}
		} else if string(p.args) != "{}" || p.rawArgs != string(raw) {
			t.Fatalf("unparseable %q gave args %s rawArgs %q", raw, p.args, p.rawArgs)
		}
		switch {
		case p.tool != nil && p.reject == nil:
			var a struct {
				Text *string `json:"text"`
			}
			if err := json.Unmarshal(p.args, &a); err != nil || a.Text == nil {
				t.Fatalf("runnable call with args %s (%v)", p.args, err)
			}
		case p.tool == nil && p.reject != nil:
			if !p.reject.IsError || !strings.HasPrefix(p.reject.Output.Text(), `Invalid args for tool "echo": `) {
				t.Fatalf("rejection %+v", p.reject)
			}
		default:
			t.Fatalf("plan is neither runnable nor rejected: %+v", p)
		}
		ev := ToolCallEvent{UUID: "c1", TurnID: "turn-1", Step: 1, StepUUID: "s1", ToolCallID: "c1", Name: "echo",
			Args: p.args, RawArgs: p.rawArgs}
		b, err := plainjson.Marshal(ev)
		if err != nil || !json.Valid(b) {
			t.Fatalf("recorded tool.call %s is not valid JSON: %v", b, err)
		}
		back, err := DecodeRecordedEvent(b)
		if err != nil {
			t.Fatal(err)
		}
		if got := back.(ToolCallEvent); !bytes.Equal(got.Args, p.args) {
			t.Fatalf("args changed in a round trip: %s → %s", p.args, got.Args)
		}
	})
}
