package llmtest

import "github.com/kimigo/kimigo/llm/scripted"

// Replies that imitate provider quirks seen on real services: answers that
// are well-formed on the wire but not a valid conversation as they stand.

// RepeatedToolCallID is a reply whose parallel calls all carry id, the way
// some services repeat a call id within one response. A client that
// replays the calls as given sends that id twice in its next request, which
// the strict fakes, like the real services, reject.
func RepeatedToolCallID(id string, calls ...scripted.Call) Reply {
	for i := range calls {
		calls[i].ID = id
	}
	return ToolCalls(calls...)
}

// NamelessToolCall is a reply with one call that has an id and arguments
// but no tool name: on the Chat Completions wire its function.name never
// arrives, on the Anthropic wire the tool_use block's name is empty.
func NamelessToolCall(id, args string) Reply {
	return ToolCalls(scripted.Call{ID: id, Arguments: args})
}
