package acp

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/loop"
	"github.com/kimigo/kimigo/session"
)

// wire is updates as the JSON the client reads, one object per line.
func wire(t *testing.T, us []sdk.SessionUpdate) string {
	t.Helper()
	var lines []string
	for _, u := range us {
		b, err := json.Marshal(u)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, string(b))
	}
	return strings.Join(lines, "\n")
}

// The event → session/update mapping of spec 06 §8.6, event by event.
func TestTranslatorMapping(t *testing.T) {
	tr := newTranslator()
	in := func(ev event.Event) event.Event { return ev }
	steps := []struct {
		name string
		ev   event.Event
		want string
	}{
		{"turn start sends nothing", in(event.TurnStarted{Header: event.InTurn(0), Origin: "user"}), ``},
		{"text", in(event.AssistantDelta{Header: event.InTurn(0), Delta: "Hi"}),
			`{"content":{"text":"Hi","type":"text"},"sessionUpdate":"agent_message_chunk"}`},
		{"thinking", in(event.ThinkingDelta{Header: event.InTurn(0), Delta: "hmm"}),
			`{"content":{"text":"hmm","type":"text"},"sessionUpdate":"agent_thought_chunk"}`},
		{"first delta creates the call", in(event.ToolCallDelta{Header: event.InTurn(0), ToolCallID: "c1", Name: "Edit", ArgumentsPart: `{"pa`}),
			`{"content":[{"content":{"text":"{\"pa","type":"text"},"type":"content"}],"kind":"edit","sessionUpdate":"tool_call","status":"pending","title":"Edit","toolCallId":"1:c1"}`},
		{"later deltas carry all the arguments", in(event.ToolCallDelta{Header: event.InTurn(0), ToolCallID: "c1", ArgumentsPart: `th":"a"}`}),
			`{"content":[{"content":{"text":"{\"path\":\"a\"}","type":"text"},"type":"content"}],"sessionUpdate":"tool_call_update","status":"in_progress","toolCallId":"1:c1"}`},
		{"started after deltas updates, with the diff and location",
			in(event.ToolCallStarted{Header: event.InTurn(0), ToolCallID: "c1", Name: "Edit", Args: json.RawMessage(`{"path":"a"}`),
				Display: &loop.DiffDisplay{Path: "/w/a", Before: "x", After: "y"}}),
			`{"content":[{"newText":"y","oldText":"x","path":"/w/a","type":"diff"},{"content":{"text":"{\"path\":\"a\"}","type":"text"},"type":"content"}],"kind":"edit","locations":[{"path":"/w/a"}],"rawInput":{"path":"a"},"sessionUpdate":"tool_call_update","status":"in_progress","title":"Edit","toolCallId":"1:c1"}`},
		{"started without deltas creates; a description is the title",
			in(event.ToolCallStarted{Header: event.InTurn(0), ToolCallID: "c2", Name: "Bash", Args: json.RawMessage(`{"command":"ls"}`), Description: "List files"}),
			`{"content":[{"content":{"text":"{\"command\":\"ls\"}","type":"text"},"type":"content"}],"kind":"execute","rawInput":{"command":"ls"},"sessionUpdate":"tool_call","status":"in_progress","title":"List files","toolCallId":"1:c2"}`},
		{"a status progress retitles", in(event.ToolProgress{Header: event.InTurn(0), ToolCallID: "c2", Update: loop.ProgressUpdate{Kind: loop.ProgressStatus, Text: "running"}}),
			`{"sessionUpdate":"tool_call_update","title":"running","toolCallId":"1:c2"}`},
		{"other progress is not forwarded", in(event.ToolProgress{Header: event.InTurn(0), ToolCallID: "c2", Update: loop.ProgressUpdate{Kind: loop.ProgressStdout, Text: "out"}}), ``},
		{"a result completes", in(event.ToolResult{Header: event.InTurn(0), ToolCallID: "c2", Output: loop.TextOutput("a\nb")}),
			`{"content":[{"content":{"text":"a\nb","type":"text"},"type":"content"}],"rawOutput":"a\nb","sessionUpdate":"tool_call_update","status":"completed","toolCallId":"1:c2"}`},
		{"an error result fails", in(event.ToolResult{Header: event.InTurn(0), ToolCallID: "c1", Output: loop.TextOutput("no"), IsError: true}),
			`{"content":[{"content":{"text":"no","type":"text"},"type":"content"}],"rawOutput":"no","sessionUpdate":"tool_call_update","status":"failed","toolCallId":"1:c1"}`},
		{"a todo list is also a plan", in(event.ToolCallStarted{Header: event.InTurn(0), ToolCallID: "c3", Name: "TodoWrite", Args: json.RawMessage(`{}`),
			Display: &loop.TodoListDisplay{Items: []loop.TodoItem{{Title: "a", Status: "done"}, {Title: "b", Status: "in_progress"}, {Title: "c", Status: "odd"}}}}),
			`{"content":[{"content":{"text":"{}","type":"text"},"type":"content"}],"kind":"other","rawInput":{},"sessionUpdate":"tool_call","status":"in_progress","title":"TodoWrite","toolCallId":"1:c3"}` + "\n" +
				`{"entries":[{"content":"a","priority":"medium","status":"completed"},{"content":"b","priority":"medium","status":"in_progress"},{"content":"c","priority":"medium","status":"pending"}],"sessionUpdate":"plan"}`},
		{"an empty todo list clears the plan", in(event.ToolCallStarted{Header: event.InTurn(0), ToolCallID: "c4", Name: "TodoWrite", Args: json.RawMessage(`{}`),
			Display: &loop.TodoListDisplay{}}),
			`{"content":[{"content":{"text":"{}","type":"text"},"type":"content"}],"kind":"other","rawInput":{},"sessionUpdate":"tool_call","status":"in_progress","title":"TodoWrite","toolCallId":"1:c4"}` + "\n" +
				`{"entries":[],"sessionUpdate":"plan"}`},
		{"a new turn keeps reused ids apart", in(event.TurnStarted{Header: event.InTurn(1)}), ``},
		{"", in(event.ToolCallDelta{Header: event.InTurn(1), ToolCallID: "c1", ArgumentsPart: `{}`}),
			`{"content":[{"content":{"text":"{}","type":"text"},"type":"content"}],"kind":"other","sessionUpdate":"tool_call","status":"pending","title":"tool","toolCallId":"2:c1"}`},
		{"status is not forwarded", in(event.Status{Model: "m"}), ``},
	}
	for _, s := range steps {
		if got := wire(t, tr.updates(s.ev)); got != s.want {
			t.Errorf("%s:\n got %s\nwant %s", s.name, got, s.want)
		}
	}
}

func TestToolKinds(t *testing.T) {
	for name, want := range map[string]sdk.ToolKind{"Read": "read", "Glob": "read", "Grep": "read", "Write": "edit",
		"Edit": "edit", "Bash": "execute", "FetchURL": "fetch", "WebSearch": "fetch", "Think": "think",
		"Agent": "other", "mcp__x__y": "other", "": "other"} {
		if got := toolKind(name); got != want {
			t.Errorf("%q: %q, want %q", name, got, want)
		}
	}
}

// History replay (spec 06 §8.12): synthetic turns from 1, results on
// their calls, orphans and system messages skipped.
func TestReplayUpdates(t *testing.T) {
	msg := func(role llm.Role, parts ...llm.ContentPart) session.HistoryMessage {
		return session.HistoryMessage{Message: llm.Message{Role: role, Content: parts}}
	}
	call := msg(llm.RoleAssistant, llm.ThinkPart("plan", ""), llm.TextPart("Writing."))
	call.ToolCalls = []llm.ToolCall{{ID: "w", Name: "Write", Arguments: `{"path":"b.txt"}`}}
	result := msg(llm.RoleTool, llm.TextPart("wrote b.txt"))
	result.ToolCallID = "w"
	orphan := msg(llm.RoleTool, llm.TextPart("?"))
	orphan.ToolCallID = "gone"
	failed := msg(llm.RoleAssistant)
	failed.ToolCalls = []llm.ToolCall{{ID: "w", Name: "Bash", Arguments: `{}`}}
	failedResult := msg(llm.RoleTool, llm.TextPart("exit 1"))
	failedResult.ToolCallID, failedResult.IsError = "w", true
	got := wire(t, replayUpdates([]session.HistoryMessage{
		msg(llm.RoleSystem, llm.TextPart("sys")),
		msg(llm.RoleUser, llm.TextPart("create b.txt"), llm.TextPart("")),
		call, result, orphan,
		msg(llm.RoleAssistant, llm.TextPart("Done.")),
		msg(llm.RoleUser, llm.TextPart("again")),
		failed, failedResult,
	}))
	want := strings.Join([]string{
		`{"content":{"text":"create b.txt","type":"text"},"sessionUpdate":"user_message_chunk"}`,
		`{"content":{"text":"plan","type":"text"},"sessionUpdate":"agent_thought_chunk"}`,
		`{"content":{"text":"Writing.","type":"text"},"sessionUpdate":"agent_message_chunk"}`,
		`{"content":[{"content":{"text":"{\"path\":\"b.txt\"}","type":"text"},"type":"content"}],"kind":"edit","rawInput":{"path":"b.txt"},"sessionUpdate":"tool_call","status":"in_progress","title":"Write","toolCallId":"1:w"}`,
		`{"content":[{"content":{"text":"wrote b.txt","type":"text"},"type":"content"}],"rawOutput":"wrote b.txt","sessionUpdate":"tool_call_update","status":"completed","toolCallId":"1:w"}`,
		`{"content":{"text":"Done.","type":"text"},"sessionUpdate":"agent_message_chunk"}`,
		`{"content":{"text":"again","type":"text"},"sessionUpdate":"user_message_chunk"}`,
		`{"content":[{"content":{"text":"{}","type":"text"},"type":"content"}],"kind":"execute","rawInput":{},"sessionUpdate":"tool_call","status":"in_progress","title":"Bash","toolCallId":"3:w"}`,
		`{"content":[{"content":{"text":"exit 1","type":"text"},"type":"content"}],"rawOutput":"exit 1","sessionUpdate":"tool_call_update","status":"failed","toolCallId":"3:w"}`,
	}, "\n")
	if got != want {
		t.Errorf("replay:\n got %s\nwant %s", got, want)
	}
}

// Prompt content blocks (spec 06 §8.5 step 1).
func TestConvert(t *testing.T) {
	blob := sdk.ContentBlock{Resource: &sdk.ContentBlockResource{Resource: sdk.EmbeddedResourceResource{
		BlobResourceContents: &sdk.BlobResourceContents{Blob: "AAAA", Uri: "file:///x.bin"}}}}
	text := sdk.ContentBlock{Resource: &sdk.ContentBlockResource{Resource: sdk.EmbeddedResourceResource{
		TextResourceContents: &sdk.TextResourceContents{Text: "body", Uri: `file:///a"b.md`}}}}
	parts, warnings := convert([]sdk.ContentBlock{
		sdk.TextBlock("look"),
		sdk.ImageBlock("iVBO", "image/png"),
		sdk.AudioBlock("AAAA", "audio/wav"),
		sdk.ResourceLinkBlock("a.go", "file:///w/a.go#L10-20"),
		sdk.ResourceLinkBlock("a.go", "file:///w/a.go?line=7"),
		sdk.ResourceLinkBlock("a.go", "file:///C:/w/a.go#l3-L4"),
		sdk.ResourceLinkBlock("a.go", "file:///w/a%20b.go"),
		sdk.ResourceLinkBlock(`n<&>'"`, "https://x.test/?a=1&b=2"),
		text, blob,
	})
	var got []string
	for _, p := range parts {
		if p.Media != nil {
			got = append(got, p.Media.URL)
		} else {
			got = append(got, p.Text)
		}
	}
	want := []string{"look", "data:image/png;base64,iVBO", "/w/a.go:10-20", "/w/a.go:7", "C:/w/a.go:3-4", "/w/a b.go",
		`<resource_link uri="https://x.test/?a=1&amp;b=2" name="n&lt;&amp;&gt;&apos;&quot;" />`,
		`<resource uri="file:///a&quot;b.md">body</resource>`}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("parts:\n%q\nwant\n%q", got, want)
	}
	if len(warnings) != 2 || !strings.Contains(warnings[0], "block 2: audio") || !strings.Contains(warnings[1], "block 9: binary") {
		t.Errorf("warnings: %q", warnings)
	}
}

// Permission answers (spec 06 §8.7, ERRATA 10): "always" means this
// session; cancelled dismisses; an unknown option rejects.
func TestApprovalAnswer(t *testing.T) {
	sel := func(id string) sdk.RequestPermissionResponse {
		return sdk.RequestPermissionResponse{Outcome: sdk.RequestPermissionOutcome{
			Selected: &sdk.RequestPermissionOutcomeSelected{OptionId: sdk.PermissionOptionId(id)}}}
	}
	for _, tc := range []struct {
		resp sdk.RequestPermissionResponse
		want event.Choice
	}{
		{sel("approve_once"), event.ApproveOnce},
		{sel("approve_always"), event.ApproveSession},
		{sel("reject"), event.Reject},
		{sel("approve"), event.ApproveOnce},
		{sel("approve_for_session"), event.ApproveSession},
		{sel("something_else"), event.Reject},
		{sdk.RequestPermissionResponse{Outcome: sdk.RequestPermissionOutcome{Cancelled: &sdk.RequestPermissionOutcomeCancelled{}}}, event.Dismiss},
	} {
		if got := approvalAnswer(event.ApprovalRequested{}, tc.resp).Choice; got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.resp.Outcome.Selected, got, tc.want)
		}
	}
}

// A plan review's answers (spec 04 §4.2): an approach picked by index
// carries its label; approve (whatever the client calls it, "always"
// included) approves this plan once; revise keeps planning; anything else
// rejects.
func TestPlanReviewAnswer(t *testing.T) {
	review := event.ApprovalRequested{Display: &session.PlanReviewDisplay{Plan: "# P",
		Options: []session.PlanOption{{Label: "Fast"}, {Label: "Safe"}}}, OnceOnly: true}
	sel := func(id string) sdk.RequestPermissionResponse {
		return sdk.RequestPermissionResponse{Outcome: sdk.RequestPermissionOutcome{
			Selected: &sdk.RequestPermissionOutcomeSelected{OptionId: sdk.PermissionOptionId(id)}}}
	}
	for _, tc := range []struct {
		id   string
		want event.ApprovalAnswer
	}{
		{"plan_opt_1", event.ApprovalAnswer{Choice: event.ApproveOnce, SelectedLabel: "Safe"}},
		{"approve_once", event.ApprovalAnswer{Choice: event.ApproveOnce, SelectedLabel: "Approve"}},
		{"approve_always", event.ApprovalAnswer{Choice: event.ApproveOnce, SelectedLabel: "Approve"}},
		{"revise", event.ApprovalAnswer{Choice: event.Reject, SelectedLabel: "Revise"}},
		{"reject", event.ApprovalAnswer{Choice: event.Reject, SelectedLabel: "Reject"}},
		{"plan_opt_7", event.ApprovalAnswer{Choice: event.Reject, SelectedLabel: "Reject"}},
	} {
		if got := approvalAnswer(review, sel(tc.id)); got != tc.want {
			t.Errorf("%s: %+v, want %+v", tc.id, got, tc.want)
		}
	}
	var ids []string
	for _, o := range requestOptions(review) {
		ids = append(ids, string(o.OptionId))
	}
	if want := []string{"plan_opt_0", "plan_opt_1", "revise", "reject"}; !slices.Equal(ids, want) {
		t.Errorf("options %q, want %q", ids, want)
	}
}
