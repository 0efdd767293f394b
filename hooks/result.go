package hooks

import (
	"encoding/json"
	"strconv"
	"strings"
	"time"
)

// Action is a hook's decision.
type Action string

// Decisions. Only exit status 2 and a JSON "deny" block; everything else,
// failures included, allows (fail-open).
const (
	Allow Action = "allow"
	Block Action = "block"
)

// Result is what one hook command did (spec 06 §6.3).
type Result struct {
	Hook   Hook
	Action Action
	// Reason explains a block: the trimmed stderr of exit 2, or the JSON
	// permissionDecisionReason.
	Reason string
	// Message is the text a hook gave for the user or the model: the
	// trimmed stderr of exit 2, or the JSON "message" (else
	// hookSpecificOutput.message).
	Message string
	// Stdout and Stderr are the command's output (each capped at 1 MiB,
	// keeping the end).
	Stdout string
	Stderr string
	// ExitCode is the exit status; a death by signal N is 128+N, and -1
	// means the command never ran or its status is unknown.
	ExitCode int
	// TimedOut says the timeout killed the command.
	TimedOut bool
	// Structured says stdout was a JSON object.
	Structured bool
	// Err is why the command could not run (spawn failure); the result
	// then allows.
	Err      error
	Duration time.Duration
}

// decide fills the decision fields from the exit status and output.
func (r *Result) decide() {
	r.Action = Allow
	switch r.ExitCode {
	case 2:
		r.Action = Block
		r.Reason = strings.TrimSpace(r.Stderr)
		r.Message = r.Reason
	case 0:
		r.parseJSON()
	}
}

// hookOutput is the JSON a hook may print on exit 0; unknown fields are
// ignored.
type hookOutput struct {
	Message            json.RawMessage `json:"message"`
	HookSpecificOutput json.RawMessage `json:"hookSpecificOutput"`
}

type specificOutput struct {
	PermissionDecision       json.RawMessage `json:"permissionDecision"`
	PermissionDecisionReason json.RawMessage `json:"permissionDecisionReason"`
	Message                  json.RawMessage `json:"message"`
}

func (r *Result) parseJSON() {
	out := strings.TrimSpace(r.Stdout)
	if !strings.HasPrefix(out, "{") {
		return
	}
	var o hookOutput
	if json.Unmarshal([]byte(out), &o) != nil {
		return
	}
	r.Structured = true
	msg, hasMsg := scalarText(o.Message)
	var so specificOutput
	hasSpecific := isObject(o.HookSpecificOutput) && json.Unmarshal(o.HookSpecificOutput, &so) == nil
	if !hasMsg && hasSpecific {
		msg, hasMsg = scalarText(so.Message)
	}
	if hasMsg {
		r.Message = msg
	}
	if hasSpecific {
		if d, _ := scalarText(so.PermissionDecision); d == "deny" {
			r.Action = Block
			r.Reason, _ = scalarText(so.PermissionDecisionReason)
		}
	}
}

func isObject(raw json.RawMessage) bool {
	s := strings.TrimSpace(string(raw))
	return strings.HasPrefix(s, "{")
}

// scalarText reads a JSON string, number or boolean as text.
func scalarText(raw json.RawMessage) (string, bool) {
	if len(raw) == 0 {
		return "", false
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return "", false
	}
	switch x := v.(type) {
	case string:
		return x, true
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64), true
	case bool:
		return strconv.FormatBool(x), true
	}
	return "", false
}
