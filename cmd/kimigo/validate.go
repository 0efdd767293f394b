package main

import (
	"fmt"
	"strings"

	"github.com/kimigo/kimigo/config"
	"github.com/kimigo/kimigo/internal/print"
)

// validate applies the checks of spec 06 §1.3 in their order; the first
// failing one is the error. --plan may go with --prompt: the plan is the
// run's answer (issue 20 overrules §1.3 rule 6). It reads nothing but o and the environment.
func validate(o *options, env config.Env) error {
	pm := o.promptMode()
	pf := "-p"
	if o.promptSet && !o.print {
		pf = "--prompt"
	}
	blank := func(s string) bool { return strings.TrimSpace(s) == "" }
	agentFile := len(o.agentFiles) > 0
	id, sessionGiven := o.sessionID()
	if o.promptSet && len(o.args) > 0 { // --prompt took the prompt: Kimi's form has no positional
		return unknownCommand(o.args[0])
	}
	for _, rule := range []struct {
		failed bool
		msg    string
	}{
		{o.promptSet && blank(o.prompt), "Prompt cannot be empty."},
		{o.modelSet && blank(o.model), "Model cannot be empty."},
		{o.formatSet && !pm, "Output format is only supported in prompt mode."},
		{pm && o.auto, "Cannot combine " + pf + " with --auto."},
		{o.agentSet && blank(o.agent), "Agent cannot be empty."},
		{len(o.agentFiles) > 1, "--agent-file may only be specified once."},
		{agentFile && blank(o.agentFiles[0]), "Agent file path cannot be empty."},
		{o.agentSet && agentFile, "Cannot combine --agent with --agent-file."},
		{(o.agentSet || agentFile) && (sessionGiven || o.cont),
			"Cannot combine --agent/--agent-file with --session/--continue: the agent is bound at session " +
				"creation and the bound agent is restored automatically on resume."},
		{pm && sessionGiven && blank(id), fmt.Sprintf("%s needs a session id in print mode; "+
			"'kimigo sessions' lists this directory's sessions.", o.sessionFlag)},
		{o.cont && sessionGiven, "Cannot combine --continue, --session."},
		{o.appendSet && blank(o.appendPrompt), "--append-system-prompt cannot be empty."},
		{o.appendSet && (sessionGiven || o.cont), "Cannot combine --append-system-prompt with --session/--continue: " +
			"the system prompt is set when a session is created, and a resumed session keeps its own."},
		{o.yolo && o.auto, "Cannot combine --yolo with --auto."},
	} {
		if rule.failed {
			return &usageError{msg: rule.msg}
		}
	}
	if err := validateSafety(o); err != nil {
		return err
	}
	if v := strings.TrimSpace(env["KIMI_MODEL_OUTPUT_FORMAT"]); pm && !o.formatSet && v != "" {
		if _, ok := print.ParseFormat(v); !ok {
			return usagef("Invalid KIMI_MODEL_OUTPUT_FORMAT value %q. Expected one of: text, json, stream-json.", v)
		}
	}
	if f := o.printOnly(); f != "" && !pm {
		return usagef("%s is only supported in print mode (-p).", f)
	}
	return nil
}

// outputFormat resolves print mode's format: the flag, else
// KIMI_MODEL_OUTPUT_FORMAT, else text (spec 06 §1.6.1 step 1).
func outputFormat(o *options, env config.Env) print.Format {
	v := o.outputFormat
	if !o.formatSet {
		v = strings.TrimSpace(env["KIMI_MODEL_OUTPUT_FORMAT"])
	}
	if f, ok := print.ParseFormat(v); ok {
		return f
	}
	return print.FormatText
}
