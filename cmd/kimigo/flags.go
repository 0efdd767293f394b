package main

import "strings"

// options is the main command's command line after parsing (spec 06
// §1.2). A field with a Set twin distinguishes "not given" from "given
// empty", which validation needs.
type options struct {
	print        bool   // -p/--print: print mode, the prompt positional
	prompt       string // --prompt <text>, Kimi's form
	promptSet    bool
	model        string
	modelSet     bool
	outputFormat string
	formatSet    bool
	session      string // -S/--session, or its hidden alias -r/--resume
	sessionSet   bool
	resume       string
	resumeSet    bool
	cont         bool
	yolo         bool
	auto         bool
	plan         bool
	agent        string
	agentSet     bool
	agentFiles   []string
	skillsDirs   []string
	addDirs      []string
	version      bool
	help         bool
	// sessionFlag is how the user spelled the session option last given
	// ("-r", "--session", …), for messages.
	sessionFlag string
	// args are the positional arguments: without -p, the prompt the
	// interactive interface starts with (kimigo "fix the tests").
	args   []string
	safety safetyOptions
	printFlags

	// command is the subcommand (doctor, export, …) and commandArgs what
	// follows it; both empty for the main command.
	command     string
	commandArgs []string
}

// promptMode reports print mode: -p/--print or --prompt was given
// (ERRATA 33).
func (o *options) promptMode() bool { return o.print || o.promptSet }

// promptText is the prompt given on the command line: --prompt's value,
// else the positional arguments joined by spaces; "" when none was given
// (standard input may still carry one). "-" means "read standard input".
func (o *options) promptText() string {
	if o.promptSet {
		return o.prompt
	}
	return strings.Join(o.args, " ")
}

// sessionID is the -S/--session value, which wins over -r/--resume.
func (o *options) sessionID() (id string, given bool) {
	switch {
	case o.sessionSet:
		return o.session, true
	case o.resumeSet:
		return o.resume, true
	}
	return "", false
}

// argKind is how an option takes its value.
type argKind int

const (
	noValue       argKind = iota // a switch
	requiredValue                // --opt v, --opt=v, -ov
	optionalValue                // takes the next token unless it starts with "-"
)

// optionSpec is one option of the main command.
type optionSpec struct {
	names []string // "--long" and "-s" spellings, the first one canonical
	kind  argKind
	// usage is how parse errors name the option: "-p, --prompt <prompt>".
	usage string
	set   func(o *options, v string) error
}

// mainOptions is the option table of spec 06 §1.2, hidden aliases
// included.
func mainOptions() []optionSpec {
	return append([]optionSpec{
		{[]string{"--print", "-p"}, noValue, "-p, --print",
			func(o *options, _ string) error { o.print = true; return nil }},
		{[]string{"--prompt"}, requiredValue, "--prompt <prompt>",
			func(o *options, v string) error { o.prompt, o.promptSet = v, true; return nil }},
		{[]string{"--model", "-m"}, requiredValue, "-m, --model <model>",
			func(o *options, v string) error { o.model, o.modelSet = v, true; return nil }},
		{[]string{"--output-format"}, requiredValue, "--output-format <format>", setOutputFormat},
		{[]string{"--session", "-S"}, optionalValue, "-S, --session [id]",
			func(o *options, v string) error { o.session, o.sessionSet = v, true; return nil }},
		{[]string{"--resume", "-r"}, optionalValue, "-r, --resume [id]",
			func(o *options, v string) error { o.resume, o.resumeSet = v, true; return nil }},
		{[]string{"--continue", "-c", "-C"}, noValue, "-c, --continue",
			func(o *options, _ string) error { o.cont = true; return nil }},
		{[]string{"--yolo", "-y", "--yes", "--auto-approve"}, noValue, "-y, --yolo",
			func(o *options, _ string) error { o.yolo = true; return nil }},
		{[]string{"--auto"}, noValue, "--auto", func(o *options, _ string) error { o.auto = true; return nil }},
		{[]string{"--plan"}, noValue, "--plan", func(o *options, _ string) error { o.plan = true; return nil }},
		{[]string{"--skills-dir"}, requiredValue, "--skills-dir <dir>",
			func(o *options, v string) error { o.skillsDirs = append(o.skillsDirs, v); return nil }},
		{[]string{"--agent"}, requiredValue, "--agent <name>", setAgent},
		{[]string{"--agent-file"}, requiredValue, "--agent-file <path>",
			func(o *options, v string) error { o.agentFiles = append(o.agentFiles, v); return nil }},
		{[]string{"--add-dir"}, requiredValue, "--add-dir <dir>",
			func(o *options, v string) error { o.addDirs = append(o.addDirs, v); return nil }},
		{[]string{"--version", "-V"}, noValue, "-V, --version",
			func(o *options, _ string) error { o.version = true; return nil }},
		{[]string{"--help", "-h"}, noValue, "-h, --help",
			func(o *options, _ string) error { o.help = true; return nil }},
	}, append(safetyOptionSpecs(), printOptions()...)...)
}

// isSubcommand reports the names the main command dispatches on.
func isSubcommand(name string) bool {
	switch name {
	case "doctor", "export", "sessions", "trust", "acp", "login", "provider", "mcp", "hooks", "logout":
		return true
	}
	return false
}

func setOutputFormat(o *options, v string) error {
	if v != "text" && v != "json" && v != "stream-json" {
		return usagef("option '--output-format <format>' argument '%s' is invalid. "+
			"Allowed choices are text, json, stream-json.", v)
	}
	o.outputFormat, o.formatSet = v, true
	return nil
}

func setAgent(o *options, v string) error {
	if o.agentSet {
		return usagef("--agent may only be specified once.")
	}
	o.agent, o.agentSet = v, true
	return nil
}

func lookupOption(name string) *optionSpec {
	specs := mainOptions()
	for i := range specs {
		for _, n := range specs[i].names {
			if n == name {
				return &specs[i]
			}
		}
	}
	return nil
}

// parseArgs parses the main command's argv (spec 06 §1.1). It stops at the
// first --help or --version, so those never fail on what follows them.
// A first argument naming a subcommand hands the rest to it. Errors are
// the option error messages, without the "error: " prefix.
func parseArgs(args []string) (*options, error) {
	o := &options{}
	if len(args) > 0 && isSubcommand(args[0]) {
		o.command, o.commandArgs = args[0], args[1:]
		return o, nil
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		var err error
		switch {
		case a == "--":
			o.args = append(o.args, args[i+1:]...)
			i = len(args)
		case strings.HasPrefix(a, "--"):
			i, err = parseLong(o, args, i)
		case strings.HasPrefix(a, "-") && len(a) > 1:
			i, err = parseShort(o, args, i)
		default:
			o.args = append(o.args, a)
		}
		if err != nil {
			return nil, err
		}
		if o.help || o.version {
			return o, nil
		}
	}
	return o, nil
}

func unknownCommand(arg string) error {
	return usagef("unknown command '%s'. See 'kimigo --help'.", arg)
}

// parseLong parses args[i], a "--name" or "--name=value" option, and
// returns the index of the last token it used.
func parseLong(o *options, args []string, i int) (int, error) {
	name, value, hasValue := strings.Cut(args[i], "=")
	spec := lookupOption(name)
	if spec == nil || (spec.kind == noValue && hasValue) {
		return i, usagef("unknown option '%s'", args[i])
	}
	switch {
	case spec.kind == noValue || hasValue:
	case spec.kind == requiredValue:
		if i+1 >= len(args) {
			return i, usagef("option '%s' argument missing", spec.usage)
		}
		i++
		value = args[i]
	case i+1 < len(args) && !strings.HasPrefix(args[i+1], "-"):
		i++
		value = args[i]
	}
	o.noteSpelling(spec, name)
	return i, spec.set(o, value)
}

// noteSpelling remembers how the user spelled the session option, so
// messages name the flag they typed.
func (o *options) noteSpelling(spec *optionSpec, spelled string) {
	if n := spec.names[0]; n == "--session" || n == "--resume" {
		o.sessionFlag = spelled
	}
}

// parseShort parses args[i], one or more single-letter options: switches
// may be grouped (-cy), and an option that takes a value takes the rest of
// the token (-pvalue) or the next token.
func parseShort(o *options, args []string, i int) (int, error) {
	tok := args[i]
	for j := 1; j < len(tok); j++ {
		spec := lookupOption("-" + tok[j:j+1])
		if spec == nil {
			return i, usagef("unknown option '-%s'", tok[j:j+1])
		}
		if spec.kind == noValue {
			if err := spec.set(o, ""); err != nil {
				return i, err
			}
			continue
		}
		value, rest := "", tok[j+1:]
		switch {
		case rest != "":
			value = rest
		case spec.kind == requiredValue && i+1 >= len(args):
			return i, usagef("option '%s' argument missing", spec.usage)
		case spec.kind == requiredValue || (i+1 < len(args) && !strings.HasPrefix(args[i+1], "-")):
			i++
			value = args[i]
		}
		o.noteSpelling(spec, "-"+tok[j:j+1])
		return i, spec.set(o, value)
	}
	return i, nil
}
