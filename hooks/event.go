package hooks

// Event names a lifecycle event (spec 06 §6.4). The names are what users
// write in config.toml and what hooks receive as hook_event_name.
type Event string

// The v1 events, in the order of spec 06 §6.4.
const (
	SessionStart       Event = "SessionStart"
	SessionEnd         Event = "SessionEnd"
	UserPromptSubmit   Event = "UserPromptSubmit"
	PreToolUse         Event = "PreToolUse"
	PermissionRequest  Event = "PermissionRequest"
	PermissionResult   Event = "PermissionResult"
	PostToolUse        Event = "PostToolUse"
	PostToolUseFailure Event = "PostToolUseFailure"
	Stop               Event = "Stop"
	StopFailure        Event = "StopFailure"
	Interrupt          Event = "Interrupt"
	SubagentStart      Event = "SubagentStart"
	SubagentStop       Event = "SubagentStop"
	PreCompact         Event = "PreCompact"
	PostCompact        Event = "PostCompact"
	Notification       Event = "Notification"
)

// Mode says whether the trigger site waits for an event's hooks.
type Mode string

// Trigger modes.
const (
	// Await: the caller waits (Trigger, TriggerBlock).
	Await Mode = "await"
	// Fire: the caller starts the hooks and goes on (FireAndForget).
	Fire Mode = "fire"
)

// EventInfo describes one event for `kimigo hooks list`, `kimigo hooks
// test` and the trigger sites.
type EventInfo struct {
	Event Event
	// When says when the event fires.
	When string
	// Matcher says what a hook's matcher is tested against.
	Matcher string
	Mode    Mode
	// Blocks says what a block does; "" means a block has no effect.
	Blocks string
}

var events = []EventInfo{
	{SessionStart, "a session's main agent was created or resumed", "startup | resume", Await, ""},
	{SessionEnd, "the session closes", "exit", Await, ""},
	{UserPromptSubmit, "a user prompt starts a turn, before the model is called", "the prompt text", Await,
		"the turn ends blocked and the model is not called"},
	{PreToolUse, "before the permission check of a tool call", "the tool name", Await,
		"the call is denied with the reason as its result"},
	{PermissionRequest, "an approval request is about to be shown", "the tool name", Fire, ""},
	{PermissionResult, "an approval request was answered", "the tool name", Fire, ""},
	{PostToolUse, "a tool call succeeded", "the tool name", Fire, ""},
	{PostToolUseFailure, "a tool call failed, was denied or blocked", "the tool name", Fire, ""},
	{Stop, "the model finished a turn without tool calls (once per turn)", "", Await,
		"the reason is sent to the model and the turn goes on"},
	{StopFailure, "a turn failed with an error", "the error name", Fire, ""},
	{Interrupt, "the user cancelled a turn", "", Fire, ""},
	{SubagentStart, "before a subagent runs", "the subagent's profile name", Await, ""},
	{SubagentStop, "a subagent completed", "the subagent's profile name", Fire, ""},
	{PreCompact, "before a compaction", "manual | auto", Await, ""},
	{PostCompact, "after a compaction", "manual | auto", Fire, ""},
	{Notification, "a background notification reached the model", "the notification type", Fire, ""},
}

// Events lists every v1 event, in the order of spec 06 §6.4.
func Events() []EventInfo { return append([]EventInfo(nil), events...) }

// Info describes e; ok is false for a name that is not an event.
func Info(e Event) (info EventInfo, ok bool) {
	for _, i := range events {
		if i.Event == e {
			return i, true
		}
	}
	return EventInfo{}, false
}

// Valid reports whether e is a v1 event (names are case-sensitive).
func (e Event) Valid() bool {
	_, ok := Info(e)
	return ok
}
