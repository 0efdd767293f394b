package hooks

// SampleInput is an example of event's fields (camelCase keys, as trigger
// sites pass them) and its matcher value, for `kimigo hooks test <event>`
// to try a hook without a real session. ok is false for an unknown event.
func SampleInput(event Event) (matcher string, input map[string]any, ok bool) {
	switch event {
	case SessionStart:
		return "startup", map[string]any{"source": "startup"}, true
	case SessionEnd:
		return "exit", map[string]any{"reason": "exit"}, true
	case UserPromptSubmit:
		return "fix the failing test", map[string]any{
			"prompt": []map[string]any{{"type": "text", "text": "fix the failing test"}}}, true
	case PreToolUse:
		return "Bash", toolFields(), true
	case PermissionRequest:
		f := toolFields()
		f["turnId"], f["action"], f["display"] = 1, "run command", map[string]any{"kind": "command", "command": "go test ./..."}
		return "Bash", f, true
	case PermissionResult:
		f := toolFields()
		f["turnId"], f["action"], f["decision"], f["scope"] = 1, "run command", "approved", "once"
		return "Bash", f, true
	case PostToolUse:
		f := toolFields()
		f["toolOutput"] = "ok  \texample.com/pkg\t0.012s"
		return "Bash", f, true
	case PostToolUseFailure:
		f := toolFields()
		f["error"] = map[string]any{"code": "internal", "message": "exit status 1", "retryable": false}
		return "Bash", f, true
	case Stop:
		return "", map[string]any{"stopHookActive": false}, true
	case StopFailure:
		return "provider.api_error", map[string]any{"errorType": "provider.api_error", "errorMessage": "HTTP 500"}, true
	case Interrupt:
		return "", map[string]any{"turnId": 1, "reason": "cancelled"}, true
	case SubagentStart:
		return "explore", map[string]any{"agentName": "explore", "prompt": "find where the config is parsed"}, true
	case SubagentStop:
		return "explore", map[string]any{"agentName": "explore", "response": "config/load.go parses it."}, true
	case PreCompact:
		return "manual", map[string]any{"trigger": "manual", "tokenCount": 120000}, true
	case PostCompact:
		return "manual", map[string]any{"trigger": "manual", "estimatedTokenCount": 9000}, true
	case Notification:
		return "task.completed", map[string]any{"sink": "context", "notificationType": "task.completed",
			"title": "Background task completed", "body": "go test ./... exited 0", "severity": "info",
			"sourceKind": "background_task", "sourceId": "bash-1"}, true
	}
	return "", nil, false
}

func toolFields() map[string]any {
	return map[string]any{"toolName": "Bash", "toolInput": map[string]any{"command": "go test ./..."},
		"toolCallId": "call_sample"}
}
