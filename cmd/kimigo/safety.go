package main

import (
	"strings"

	"github.com/kimigo/kimigo/config"
	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/sandbox"
	"github.com/kimigo/kimigo/session"
)

// safetyOptions are the flags that say what a run may do without asking
// (issue 16, ERRATA 34): the command sandbox, the network, the permission
// mode and this run's rules.
type safetyOptions struct {
	sandbox        string
	sandboxSet     bool
	network        bool
	permissionMode string
	modeSet        bool
	allowed        []string // --allowedTools, each a list of rules
	disallowed     []string // --disallowedTools
	skip           bool     // --dangerously-skip-permissions
}

// safetyOptionSpecs are the safety flags of the main command.
func safetyOptionSpecs() []optionSpec {
	return []optionSpec{
		{[]string{"--sandbox"}, requiredValue, "--sandbox <mode>", func(o *options, v string) error {
			if _, err := sandbox.ParseMode(v); err != nil {
				return usagef("option '--sandbox <mode>' argument '%s' is invalid. Allowed choices are read-only, workspace-write, off.", v)
			}
			o.safety.sandbox, o.safety.sandboxSet = v, true
			return nil
		}},
		{[]string{"--network"}, noValue, "--network", func(o *options, _ string) error { o.safety.network = true; return nil }},
		{[]string{"--permission-mode"}, requiredValue, "--permission-mode <mode>", func(o *options, v string) error {
			if _, _, err := permissionMode(v); err != nil {
				return err
			}
			o.safety.permissionMode, o.safety.modeSet = v, true
			return nil
		}},
		{[]string{"--allowedTools", "--allowed-tools"}, requiredValue, "--allowedTools <rules>", func(o *options, v string) error {
			o.safety.allowed = append(o.safety.allowed, v)
			return nil
		}},
		{[]string{"--disallowedTools", "--disallowed-tools"}, requiredValue, "--disallowedTools <rules>", func(o *options, v string) error {
			o.safety.disallowed = append(o.safety.disallowed, v)
			return nil
		}},
		{[]string{"--dangerously-skip-permissions"}, noValue, "--dangerously-skip-permissions",
			func(o *options, _ string) error { o.safety.skip = true; return nil }},
	}
}

// permissionMode reads --permission-mode: kimigo's modes and Claude
// Code's names. skip is true for bypassPermissions, which is --yolo.
func permissionMode(v string) (mode event.PermissionMode, skip bool, err error) {
	switch v {
	case "manual", "default", "dontAsk":
		return event.ModeManual, false, nil
	case "yolo", "acceptEdits":
		return event.ModeYolo, false, nil
	case "auto":
		return event.ModeAuto, false, nil
	case "bypassPermissions":
		return event.ModeAuto, true, nil
	case "plan":
		return "", false, usagef("option '--permission-mode <mode>' argument 'plan' is not available in print mode.")
	}
	return "", false, usagef("option '--permission-mode <mode>' argument '%s' is invalid. Allowed choices are "+
		"manual, yolo, auto (or default, dontAsk, acceptEdits, bypassPermissions).", v)
}

// skipsPermissions reports --yolo, --dangerously-skip-permissions or
// --permission-mode bypassPermissions: the explicit opt-out.
func (o *options) skipsPermissions() bool {
	_, bypass, _ := permissionMode(o.safety.permissionMode)
	return o.yolo || o.safety.skip || (o.safety.modeSet && bypass)
}

// validateSafety checks the safety flags before anything is written.
func validateSafety(o *options) error {
	if (o.yolo || o.safety.skip) && o.safety.modeSet {
		return usagef("Cannot combine --yolo with --permission-mode.")
	}
	for _, list := range [][]string{o.safety.allowed, o.safety.disallowed} {
		for _, v := range list {
			if _, err := splitRules(v); err != nil {
				return err
			}
		}
	}
	return nil
}

// headless is what a print run may do without asking (ERRATA 34): by
// default the yolo permission mode, in which whatever the chain would ask
// about is denied because nobody answers, and commands in the
// workspace-write sandbox with the network off. --yolo runs everything
// unconfined (auto mode, sandbox off) unless --sandbox says otherwise.
type headless struct {
	mode    event.PermissionMode
	sandbox session.SandboxOptions
	rules   []config.PermissionRule
	warning string
}

// headlessSettings resolves the safety of a print run from the flags and
// the [sandbox] section of the configuration.
func headlessSettings(o *options, cfg *config.Config) headless {
	h := headless{mode: event.ModeYolo}
	if o.safety.modeSet {
		h.mode, _, _ = permissionMode(o.safety.permissionMode)
	}
	if o.skipsPermissions() {
		h.mode = event.ModeAuto
		h.warning = "--yolo: every tool call runs without approval and commands run without a sandbox; " +
			"only deny rules still apply."
	}
	h.sandbox = sandboxFor(cfg, o, true)
	h.rules = flagRules(o)
	return h
}

// flagRules are the rules of --allowedTools and --disallowedTools, for
// this run only, in every front end that takes flags.
func flagRules(o *options) []config.PermissionRule {
	var rules []config.PermissionRule
	for _, v := range o.safety.allowed {
		rules = append(rules, runRules(config.DecisionAllow, "--allowedTools", v)...)
	}
	for _, v := range o.safety.disallowed {
		rules = append(rules, runRules(config.DecisionDeny, "--disallowedTools", v)...)
	}
	return rules
}

// sandboxFor resolves the command sandbox of a run for every front end
// (issue 16, ERRATA 34): [sandbox] in config.toml, then the flags of o
// (nil for `kimigo acp`, which has none). The policy is workspace-write
// unless configured. The network is off by default in a headless run
// (ERRATA 34) and on where a person approves each command (the
// interactive interface, ACP): spec 04 and 06 name no default for them,
// and there the approval is the guard. `network = true|false` in
// [sandbox] decides for both; --network turns it on. --yolo and its
// aliases turn the sandbox off unless --sandbox names a policy.
func sandboxFor(cfg *config.Config, o *options, headless bool) session.SandboxOptions {
	mode := sandbox.ModeWorkspaceWrite
	network := !headless
	if cfg != nil {
		if cfg.Sandbox.Mode != "" {
			mode = sandbox.Mode(cfg.Sandbox.Mode)
		}
		if cfg.Sandbox.Network != nil {
			network = *cfg.Sandbox.Network
		}
	}
	if o == nil {
		return session.SandboxOptions{Mode: mode, Network: network}
	}
	if o.skipsPermissions() {
		mode = sandbox.ModeOff
	}
	if o.safety.sandboxSet {
		mode = sandbox.Mode(o.safety.sandbox)
	}
	return session.SandboxOptions{Mode: mode, Network: network || o.safety.network}
}

// runRules turns one flag value into rules for this run; validateSafety
// has split it once already.
func runRules(d config.RuleDecision, flag, v string) []config.PermissionRule {
	patterns, _ := splitRules(v)
	out := make([]config.PermissionRule, 0, len(patterns))
	for _, p := range patterns {
		out = append(out, config.PermissionRule{Decision: d, Pattern: p, Origin: config.OriginUser, Source: flag})
	}
	return out
}

// splitRules splits a flag value into rules at commas and spaces outside
// parentheses, as Claude Code reads "Bash(git log:*) Edit,Read".
func splitRules(v string) ([]string, error) {
	var out []string
	depth, start := 0, 0
	flush := func(end int) {
		if p := strings.TrimSpace(v[start:end]); p != "" {
			out = append(out, p)
		}
	}
	for i := 0; i < len(v); i++ {
		switch v[i] {
		case '(':
			depth++
		case ')':
			if depth == 0 {
				return nil, usagef("rule list %q: unmatched ')' at column %d", v, i+1)
			}
			depth--
		case ',', ' ':
			if depth == 0 {
				flush(i)
				start = i + 1
			}
		}
	}
	if depth != 0 {
		return nil, usagef("rule list %q: unclosed '('", v)
	}
	flush(len(v))
	if len(out) == 0 {
		return nil, usagef("rule list %q names no rule", v)
	}
	return out, nil
}

// printSafetyWarning prints the start warning of --yolo, if any.
func (r *printRun) printSafetyWarning(h headless) {
	if h.warning != "" {
		r.warn(h.warning, true)
	}
}
