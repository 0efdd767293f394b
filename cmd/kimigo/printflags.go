package main

import (
	"strconv"
	"strings"
)

// printFlags are the print-mode options users bring from other agents
// (Claude Code's names where they exist): a step limit for the run, text
// appended to a new session's system prompt, and progress on stderr.
type printFlags struct {
	maxSteps     int    // --max-steps / --max-turns; 0 when not given
	maxStepsFlag string // the spelling given, for messages
	appendPrompt string // --append-system-prompt
	appendSet    bool
	verbose      bool
}

// printOptions are the option specs of printFlags.
func printOptions() []optionSpec {
	return []optionSpec{
		{[]string{"--max-steps"}, requiredValue, "--max-steps <n>", setMaxSteps("--max-steps")},
		{[]string{"--max-turns"}, requiredValue, "--max-turns <n>", setMaxSteps("--max-turns")},
		{[]string{"--append-system-prompt"}, requiredValue, "--append-system-prompt <text>",
			func(o *options, v string) error { o.appendPrompt, o.appendSet = v, true; return nil }},
		{[]string{"--verbose"}, noValue, "--verbose",
			func(o *options, _ string) error { o.verbose = true; return nil }},
	}
}

// maxStepsLimit bounds --max-steps: far more than any run needs, small
// enough that a typo of many digits is caught.
const maxStepsLimit = 100_000

func setMaxSteps(flag string) func(o *options, v string) error {
	return func(o *options, v string) error {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || n < 1 || n > maxStepsLimit {
			return usagef("option '%s <n>' argument '%s' is invalid: give a whole number from 1 to %d.",
				flag, v, maxStepsLimit)
		}
		if o.maxStepsFlag != "" && o.maxStepsFlag != flag {
			return usagef("Cannot combine %s with %s: they are the same limit.", o.maxStepsFlag, flag)
		}
		o.maxSteps, o.maxStepsFlag = n, flag
		return nil
	}
}

// printOnly is the first print-mode option given without print mode, ""
// when none was.
func (o *options) printOnly() string {
	switch {
	case o.maxStepsFlag != "":
		return o.maxStepsFlag
	case o.appendSet:
		return "--append-system-prompt"
	case o.verbose:
		return "--verbose"
	}
	return ""
}
