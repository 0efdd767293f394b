package swarm

import (
	_ "embed"

	"github.com/kimigo/kimigo/agent/history"
)

// The variants of swarm mode's reminders (spec 04 §7.1).
const (
	VariantEnter = "swarm_mode"
	VariantExit  = "swarm_mode_exit"
)

var (
	//go:embed text/enter.md
	enterMD string
	//go:embed text/exit.md
	exitMD string
)

// EnterReminder is the reminder a user-triggered enter appends.
func EnterReminder() history.Message {
	return history.SystemReminder(enterMD, history.InjectionOrigin(VariantEnter))
}

// ExitReminder is the reminder an exit appends unless it could take the
// enter reminder back.
func ExitReminder() history.Message {
	return history.SystemReminder(exitMD, history.InjectionOrigin(VariantExit))
}

// IsEnterReminder reports the origin of the enter reminder: an exit right
// after it removes it instead of adding the exit reminder.
func IsEnterReminder(o *history.Origin) bool {
	return o.Is(history.OriginInjection) && o.Variant == VariantEnter
}
