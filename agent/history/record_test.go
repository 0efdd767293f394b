package history_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kimigo/kimigo/agent/history"
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/llm/plainjson"
	"github.com/kimigo/kimigo/loop"
)

func encode(t *testing.T, v any) string {
	t.Helper()
	b, err := plainjson.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestMessageJSON(t *testing.T) {
	for _, tt := range []struct {
		name string
		msg  history.Message
		want string
	}{
		{"tool result with facts", history.Message{Message: llm.ToolMessage("c1", llm.TextPart("<b>")), IsError: true, Note: "<system>n</system>"},
			`{"role":"tool","content":[{"type":"text","text":"<b>"}],"toolCalls":[],"toolCallId":"c1","isError":true,"note":"<system>n</system>"}`},
		{"assistant with displays", history.Message{
			Message:          llm.AssistantMessage("", llm.ToolCall{ID: "c2", Name: "Bash", Arguments: `{"command":"ls"}`}),
			ToolCallDisplays: map[string]loop.Display{"c2": &loop.CommandDisplay{Command: "ls"}}},
			`{"role":"assistant","content":[],"toolCalls":[{"type":"function","id":"c2","name":"Bash","arguments":"{\"command\":\"ls\"}"}],` +
				`"toolCallDisplays":{"c2":{"kind":"command","command":"ls"}}}`},
		{"prompt", U("hi"), `{"role":"user","content":[{"type":"text","text":"hi"}],"toolCalls":[],"origin":{"kind":"user"}}`},
		{"partial named", history.Message{Message: llm.Message{Role: llm.RoleAssistant, Name: "bot", Partial: true}},
			`{"role":"assistant","name":"bot","content":[],"toolCalls":[],"partial":true}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := encode(t, tt.msg)
			if got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
			var back history.Message
			if err := json.Unmarshal([]byte(got), &back); err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.msg, back, cmpEmpty); d != "" {
				t.Errorf("round trip (-want +got):\n%s", d)
			}
		})
	}
}

func TestMessageJSONErrors(t *testing.T) {
	for _, tt := range []struct{ name, in, want string }{
		{"display without kind", `{"role":"assistant","content":[],"toolCalls":[],"toolCallDisplays":{"c":{"path":"a"}}}`, `display of call "c"`},
		{"origin without kind", `{"role":"user","content":[],"toolCalls":[],"origin":{}}`, "missing kind"},
		{"bad part", `{"role":"user","content":[{"type":"smell"}],"toolCalls":[]}`, `unknown type "smell"`},
	} {
		var m history.Message
		if err := json.Unmarshal([]byte(tt.in), &m); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err = %v, want it to mention %q", tt.name, err, tt.want)
		}
	}
}

// A display of a kind history has no type for (a feature's own, or a newer
// kimigo's) survives a read and a rewrite byte for byte.
func TestMessageKeepsUnknownDisplays(t *testing.T) {
	in := `{"role":"assistant","content":[],"toolCalls":[],"toolCallDisplays":{"c":{"kind":"hologram","z":1,"a":[2]}}}`
	var m history.Message
	if err := json.Unmarshal([]byte(in), &m); err != nil {
		t.Fatal(err)
	}
	if got := encode(t, m.ToolCallDisplays["c"]); got != `{"kind":"hologram","z":1,"a":[2]}` {
		t.Errorf("display written back as %s", got)
	}
}

func TestOriginJSON(t *testing.T) {
	for _, tt := range []struct {
		origin history.Origin
		want   string
	}{
		{history.Origin{Kind: history.OriginSkillActivation, ActivationID: "a1", SkillName: "review", Trigger: history.TriggerUserSlash},
			`{"kind":"skill_activation","activationId":"a1","skillName":"review","trigger":"user-slash"}`},
		{history.Origin{Kind: history.OriginPluginCommand, ActivationID: "a2", PluginID: "p", CommandName: "c", CommandArgs: "x", Trigger: history.TriggerUserSlash},
			`{"kind":"plugin_command","activationId":"a2","pluginId":"p","commandName":"c","commandArgs":"x","trigger":"user-slash"}`},
		{history.Origin{Kind: history.OriginShellCommand, Phase: history.ShellOutput, IsError: true},
			`{"kind":"shell_command","phase":"output","isError":true}`},
		{history.Origin{Kind: history.OriginShellCommand, Phase: history.ShellInput}, `{"kind":"shell_command","phase":"input"}`},
		{history.Origin{Kind: history.OriginCronJob, JobID: "j", Cron: "* * * * *"},
			`{"kind":"cron_job","jobId":"j","cron":"* * * * *","recurring":false,"coalescedCount":0,"stale":false}`},
		{history.Origin{Kind: history.OriginCronMissed, Count: 0}, `{"kind":"cron_missed","count":0}`},
		{history.Origin{Kind: history.OriginHookResult, Event: "Stop", Blocked: true}, `{"kind":"hook_result","event":"Stop","blocked":true}`},
		{history.Origin{Kind: history.OriginRetry}, `{"kind":"retry"}`},
		{history.Origin{Kind: history.OriginSystemTrigger, Name: "goal_continuation"}, `{"kind":"system_trigger","name":"goal_continuation"}`},
		{history.Origin{Kind: history.OriginBackgroundTask, TaskID: "t", Status: "failed", NotificationID: "task:t:failed"},
			`{"kind":"background_task","taskId":"t","status":"failed","notificationId":"task:t:failed"}`},
		{history.Origin{Kind: history.OriginCompactionSummary}, `{"kind":"compaction_summary"}`},
	} {
		got := encode(t, tt.origin)
		if got != tt.want {
			t.Errorf("got  %s\nwant %s", got, tt.want)
		}
		var back history.Origin
		if err := json.Unmarshal([]byte(got), &back); err != nil || !back.Equal(&tt.origin) {
			t.Errorf("round trip of %s = %+v, %v", got, back, err)
		}
	}
	const future = `{"kind":"future_kind","x":[1,2],"y":"z"}`
	var o history.Origin
	if err := json.Unmarshal([]byte(future), &o); err != nil {
		t.Fatal(err)
	}
	if got := encode(t, o); got != future {
		t.Errorf("unknown kind re-encoded as %s, want it verbatim", got)
	}
	if history.StartsUserTurn(&o) || history.IsRealUserInput(history.Message{Message: llm.UserMessage("x"), Origin: &o}) {
		t.Error("an unknown kind counts as user input or a turn start")
	}
}

func TestOriginBehaviourTable(t *testing.T) {
	slash := &history.Origin{Kind: history.OriginSkillActivation, Trigger: history.TriggerUserSlash}
	tool := &history.Origin{Kind: history.OriginSkillActivation, Trigger: history.TriggerModelTool}
	shellIn := &history.Origin{Kind: history.OriginShellCommand, Phase: history.ShellInput}
	shellOut := &history.Origin{Kind: history.OriginShellCommand, Phase: history.ShellOutput}
	goal := history.SystemTriggerOrigin(history.TriggerNameGoalContinue)
	for _, tt := range []struct {
		name            string
		origin          *history.Origin
		realInput, turn bool
	}{
		{"absent", nil, true, true},
		{"user", history.UserOrigin(), true, true},
		{"user-slash skill", slash, true, true},
		{"model-tool skill", tool, false, false},
		{"shell input", shellIn, false, true},
		{"shell output", shellOut, false, false},
		{"goal continuation", goal, false, true},
		{"other trigger", history.SystemTriggerOrigin("stop_hook"), false, false},
		{"injection", history.InjectionOrigin("x"), false, false},
		{"summary", history.CompactionSummaryOrigin(), false, false},
	} {
		m := history.Message{Message: llm.UserMessage("x"), Origin: tt.origin}
		if got := history.IsRealUserInput(m); got != tt.realInput {
			t.Errorf("%s: IsRealUserInput = %v", tt.name, got)
		}
		if got := history.StartsUserTurn(tt.origin); got != tt.turn {
			t.Errorf("%s: StartsUserTurn = %v", tt.name, got)
		}
	}
}

func TestRecordJSON(t *testing.T) {
	two, five := 2, 5
	summary := "ctx"
	for _, tt := range []struct {
		p    history.Payload
		want string
	}{
		{history.AppendMessageRecord{Message: U("<hi>")},
			`{"message":{"role":"user","content":[{"type":"text","text":"<hi>"}],"toolCalls":[],"origin":{"kind":"user"}}}`},
		{history.AppendLoopEventRecord{Event: loop.StepBeginEvent{UUID: "u", TurnID: "1", Step: 1}},
			`{"event":{"type":"step.begin","uuid":"u","turnId":"1","step":1}}`},
		{history.UpdateTokenCountRecord{TokenCount: 5}, `{"tokenCount":5}`},
		{history.ClearRecord{}, `{}`},
		{history.UndoRecord{Count: 2}, `{"count":2}`},
		{history.ApplyCompactionRecord{Summary: "s", ContextSummary: &summary, CompactedCount: 3, TokensBefore: 100,
			TokensAfter: &five, KeptUserMessageCount: &two},
			`{"summary":"s","contextSummary":"ctx","compactedCount":3,"tokensBefore":100,"tokensAfter":5,"keptUserMessageCount":2}`},
	} {
		got := encode(t, tt.p)
		if got != tt.want {
			t.Errorf("%s: got  %s\nwant %s", tt.p.RecordType(), got, tt.want)
		}
		// The envelope adds type and time next to the fields.
		line := `{"type":"` + string(tt.p.RecordType()) + `",` + strings.TrimPrefix(got, "{")
		if got == "{}" {
			line = `{"type":"` + string(tt.p.RecordType()) + `","time":1}`
		}
		back, err := history.DecodeRecord(tt.p.RecordType(), []byte(line))
		if err != nil {
			t.Fatalf("decode %s: %v", line, err)
		}
		if d := cmp.Diff(tt.p, back, cmpEmpty); d != "" {
			t.Errorf("%s round trip (-want +got):\n%s", tt.p.RecordType(), d)
		}
	}
}

func TestRecordTypesAreAllApplied(t *testing.T) {
	lines := map[history.RecordType]string{
		history.TypeAppendMessage:    `{"message":{"role":"user","content":[{"type":"text","text":"x"}],"toolCalls":[]}}`,
		history.TypeAppendLoopEvent:  `{"event":{"type":"step.begin","uuid":"s","turnId":"1","step":1}}`,
		history.TypeUpdateTokenCount: `{"tokenCount":1}`,
		history.TypeClear:            `{}`,
		history.TypeUndo:             `{"count":1}`,
		history.TypeApplyCompaction:  `{"summary":"s","compactedCount":0,"tokensBefore":0}`,
	}
	mem := history.New(history.Options{})
	for _, typ := range history.RecordTypes() {
		line, ok := lines[typ]
		if !ok {
			t.Errorf("no test line for %s", typ)
			continue
		}
		p, err := history.DecodeRecord(typ, []byte(line))
		if err != nil {
			t.Errorf("decode %s: %v", typ, err)
			continue
		}
		if _, err := mem.Apply(p); err != nil {
			t.Errorf("apply %s: %v", typ, err)
		}
	}
}

type foreignPayload struct{}

func (foreignPayload) RecordType() history.RecordType { return "plan_mode.enter" }

func TestApplyRejectsForeignPayloads(t *testing.T) {
	if _, err := history.New(history.Options{}).Apply(foreignPayload{}); err == nil {
		t.Error("Apply accepted a payload history does not own")
	}
	if _, err := history.New(history.Options{}).Apply(history.AppendLoopEventRecord{}); err == nil {
		t.Error("Apply accepted a loop event record without an event")
	}
}

func TestDecodeRecordErrors(t *testing.T) {
	for _, tt := range []struct {
		typ  history.RecordType
		in   string
		want string
	}{
		{"context.unknown", `{}`, `"context.unknown" is not a history record`},
		{history.TypeUndo, `{"count":"two"}`, "decode context.undo record"},
		{history.TypeAppendLoopEvent, `{}`, "missing event"},
		{history.TypeAppendLoopEvent, `{"event":{"type":"turn.interrupted"}}`, `unknown type "turn.interrupted"`},
	} {
		if _, err := history.DecodeRecord(tt.typ, []byte(tt.in)); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s %s: err = %v, want %q", tt.typ, tt.in, err, tt.want)
		}
	}
}

// A record that decodes but would put into history what no request can
// carry is refused before it changes anything (issue 13): the agent sets
// it aside on resume instead of failing every request of the session.
func TestApplyRefusesInvalidRecords(t *testing.T) {
	for _, tt := range []struct {
		name   string
		typ    history.RecordType
		record string
		reason string
	}{
		{"tool call without id", history.TypeAppendLoopEvent,
			`{"event":{"type":"tool.call","uuid":"u1","turnId":"0","step":1,"stepUuid":"s1","toolCallId":null,"name":"Bash","args":{}}}`,
			"tool.call event has no toolCallId"},
		{"tool message without id", history.TypeAppendMessage,
			`{"message":{"role":"tool","content":[{"type":"text","text":"out"}]}}`, "tool message has no toolCallId"},
		{"unknown role", history.TypeAppendMessage,
			`{"message":{"role":"robot","content":[{"type":"text","text":"beep"}]}}`, `message role "robot" is not user, assistant, system or tool`},
		{"assistant calling without an id", history.TypeAppendMessage,
			`{"message":{"role":"assistant","content":[],"toolCalls":[{"type":"function","id":"","name":"Read","arguments":"{}"}]}}`,
			"tool call 0 (Read) of the assistant message has no id"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m := history.New(history.Options{})
			begin, err := history.DecodeRecord(history.TypeAppendLoopEvent,
				[]byte(`{"event":{"type":"step.begin","uuid":"s1","turnId":"0","step":1}}`))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := m.Apply(history.AppendMessageRecord{Message: history.Message{Message: llm.UserMessage("hi")}}); err != nil {
				t.Fatal(err)
			}
			if _, err := m.Apply(begin); err != nil {
				t.Fatal(err)
			}
			before := m.History()
			p, err := history.DecodeRecord(tt.typ, []byte(tt.record))
			if err != nil {
				t.Fatalf("the record does not decode: %v", err)
			}
			_, err = m.Apply(p)
			var invalid *history.InvalidRecordError
			if !errors.As(err, &invalid) || invalid.Type != tt.typ || err.Error() != tt.reason {
				t.Errorf("Apply = %v; want an InvalidRecordError %q", err, tt.reason)
			}
			if d := cmp.Diff(before, m.History()); d != "" {
				t.Errorf("a refused record changed history (-before +after):\n%s", d)
			}
		})
	}
}
