package goal

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"

	"github.com/kimigo/kimigo/tools"
)

// CommandKind is what a /goal command asks for.
type CommandKind string

// The /goal commands (spec 06 §5.11).
const (
	// CommandStatus shows the goal: "/goal" or "/goal status".
	CommandStatus CommandKind = "status"
	// CommandCreate starts a goal: "/goal <objective>".
	CommandCreate CommandKind = "create"
	// CommandReplace starts a goal in place of the current one.
	CommandReplace CommandKind = "replace"
	// CommandPause, CommandResume and CommandCancel act on the goal.
	CommandPause  CommandKind = "pause"
	CommandResume CommandKind = "resume"
	CommandCancel CommandKind = "cancel"
	// CommandBudget sets a budget: "/goal budget 20 turns".
	CommandBudget CommandKind = "budget"
	// CommandNext queues a goal to start after the current one, and
	// CommandNextManage opens the queue (front ends that have one).
	CommandNext       CommandKind = "next"
	CommandNextManage CommandKind = "next manage"
)

// Command is a parsed /goal command.
type Command struct {
	Kind CommandKind
	// Objective is set for create, replace and next.
	Objective string
	// Budget is set for budget.
	Budget tools.GoalBudgetRequest
}

// Starts reports a command that starts a goal now: create or replace.
func (c Command) Starts() bool { return c.Kind == CommandCreate || c.Kind == CommandReplace }

// commandPrefix is the slash command the grammar reads.
const commandPrefix = "/goal"

// budgetUnits maps the accepted unit words to SetGoalBudget's units.
var budgetUnits = map[string]string{
	"turn": "turns", "turns": "turns", "token": "tokens", "tokens": "tokens",
	"ms": "milliseconds", "millisecond": "milliseconds", "milliseconds": "milliseconds",
	"s": "seconds", "sec": "seconds", "second": "seconds", "seconds": "seconds",
	"m": "minutes", "min": "minutes", "minute": "minutes", "minutes": "minutes",
	"h": "hours", "hour": "hours", "hours": "hours",
}

// ParseCommand reads the /goal grammar shared by print mode and the TUI
// (spec 06 §1.6.1, §5.11). It reports ok false, and no error, for text
// that is not a /goal command (it must start with /goal followed by
// whitespace or the end, after trimming). The words status, pause,
// resume, cancel, replace, next and budget are sub-commands only as the
// first word; "--" makes the rest an objective ("/goal -- cancel the
// rollout"). Errors name the sub-command and what it lacks or does not
// take; objective lengths are checked when the goal is created.
func ParseCommand(text string) (cmd Command, ok bool, err error) {
	text = strings.TrimSpace(text)
	rest, found := strings.CutPrefix(text, commandPrefix)
	if !found || (rest != "" && !unicode.IsSpace(rune(rest[0]))) {
		return Command{}, false, nil
	}
	rest = strings.TrimSpace(rest)
	if rest == "" {
		return Command{Kind: CommandStatus}, true, nil
	}
	word, args := firstWord(rest)
	switch strings.ToLower(word) {
	case "--":
		if args == "" {
			return Command{}, true, fmt.Errorf("/goal -- needs an objective after it")
		}
		return Command{Kind: CommandCreate, Objective: args}, true, nil
	case "status", "pause", "resume", "cancel":
		kind := CommandKind(strings.ToLower(word))
		if args != "" {
			return Command{}, true, fmt.Errorf("/goal %s takes no arguments (to start a goal that begins with %q, "+
				"write /goal -- %s)", kind, word, rest)
		}
		return Command{Kind: kind}, true, nil
	case "replace":
		if args == "" {
			return Command{}, true, fmt.Errorf("/goal replace needs the new objective: /goal replace <objective>")
		}
		return Command{Kind: CommandReplace, Objective: args}, true, nil
	case "next":
		switch {
		case args == "":
			return Command{}, true, fmt.Errorf("/goal next needs an objective: /goal next <objective>, or /goal next manage")
		case strings.EqualFold(args, "manage"):
			return Command{Kind: CommandNextManage}, true, nil
		}
		return Command{Kind: CommandNext, Objective: args}, true, nil
	case "budget":
		b, err := parseBudget(args)
		if err != nil {
			return Command{}, true, err
		}
		return Command{Kind: CommandBudget, Budget: b}, true, nil
	}
	return Command{Kind: CommandCreate, Objective: rest}, true, nil
}

// parseBudget reads "<value> <unit>" ("20 turns", "1.5h", "30 minutes").
func parseBudget(args string) (tools.GoalBudgetRequest, error) {
	const usage = "/goal budget needs a positive value and a unit (turns, tokens, seconds, minutes or hours), " +
		"for example /goal budget 20 turns"
	fields := strings.Fields(args)
	if len(fields) == 1 { // "90m": split the number from its unit
		i := strings.IndexFunc(fields[0], func(r rune) bool { return unicode.IsLetter(r) })
		if i > 0 {
			fields = []string{fields[0][:i], fields[0][i:]}
		}
	}
	if len(fields) != 2 {
		return tools.GoalBudgetRequest{}, fmt.Errorf("%s", usage)
	}
	v, err := strconv.ParseFloat(fields[0], 64)
	if err != nil || !(v > 0) || v > 1e15 {
		return tools.GoalBudgetRequest{}, fmt.Errorf("/goal budget: %q is not a positive number; %s", fields[0], usage)
	}
	unit, known := budgetUnits[strings.ToLower(fields[1])]
	if !known {
		return tools.GoalBudgetRequest{}, fmt.Errorf("/goal budget: %q is not a unit; %s", fields[1], usage)
	}
	return tools.GoalBudgetRequest{Value: v, Unit: unit}, nil
}

// firstWord splits s at its first run of whitespace.
func firstWord(s string) (word, rest string) {
	i := strings.IndexFunc(s, unicode.IsSpace)
	if i < 0 {
		return s, ""
	}
	return s[:i], strings.TrimSpace(s[i:])
}
