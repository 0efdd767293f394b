package permission

import "fmt"

// Mode is an agent's permission mode (spec 04 §1). It is persisted in
// permission.set_mode records.
type Mode string

// Permission modes. The mode decides nothing by itself: the chain reads it
// in the auto-mode question deny, auto approve, yolo approve and the
// workspace boundary ask.
const (
	// ModeManual asks before every side effect that no rule, session
	// approval or built-in policy approves. It is the default.
	ModeManual Mode = "manual"
	// ModeAuto never asks: everything the deny policies let through runs.
	ModeAuto Mode = "auto"
	// ModeYolo approves ordinary calls but still asks about sensitive
	// files, git control paths, writes outside the workspace, plan exit
	// and goal start.
	ModeYolo Mode = "yolo"
)

// Modes lists the permission modes in the order the UI offers them.
func Modes() []Mode { return []Mode{ModeManual, ModeAuto, ModeYolo} }

// ParseMode reads a mode name as written in config or a record.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(s); m {
	case ModeManual, ModeAuto, ModeYolo:
		return m, nil
	}
	return "", fmt.Errorf("permission mode %q is not manual, auto or yolo", s)
}

// AgentType tells the main agent from a subagent; denial wording differs
// because a subagent cannot talk to the user (spec 04 §2.8).
type AgentType string

// Agent types.
const (
	AgentMain AgentType = "main"
	AgentSub  AgentType = "sub"
)
