package main

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseArgs(t *testing.T) {
	for _, tt := range []struct {
		name string
		args []string
		want options
	}{
		{"S_invocation print switch, prompt positional", []string{"-p", "hi", "--output-format", "stream-json"},
			options{print: true, args: []string{"hi"}, outputFormat: "stream-json", formatSet: true}},
		{"S_invocation -p -c q", []string{"-p", "-c", "q"}, options{print: true, cont: true, args: []string{"q"}}},
		{"S_invocation -c -p q", []string{"-c", "-p", "q"}, options{print: true, cont: true, args: []string{"q"}}},
		{"S_invocation format before the prompt", []string{"-p", "--output-format", "json", "q"},
			options{print: true, outputFormat: "json", formatSet: true, args: []string{"q"}}},
		{"S_invocation --print and grouped switches", []string{"--print", "-cp", "q"},
			options{print: true, cont: true, args: []string{"q"}}},
		{"S_invocation dash reads stdin", []string{"-p", "-"}, options{print: true, args: []string{"-"}}},
		{"S_invocation -- ends the options", []string{"-p", "--", "-x is what?"}, options{print: true, args: []string{"-x is what?"}}},
		{"Kimi's --prompt keeps its value", []string{"--prompt=a=b", "--model=k2"},
			options{prompt: "a=b", promptSet: true, model: "k2", modelSet: true}},
		{"--prompt value may start with a dash", []string{"--prompt", "-x"}, options{prompt: "-x", promptSet: true}},
		{"short value glued", []string{"-mk2"}, options{model: "k2", modelSet: true}},
		{"session takes the next token", []string{"-S", "abc", "-p", "hi"},
			options{session: "abc", sessionSet: true, sessionFlag: "-S", print: true, args: []string{"hi"}}},
		{"session before an option has no id", []string{"-S", "-p", "hi"},
			options{sessionSet: true, sessionFlag: "-S", print: true, args: []string{"hi"}}},
		{"session last has no id", []string{"-p", "hi", "--session"},
			options{sessionSet: true, sessionFlag: "--session", print: true, args: []string{"hi"}}},
		{"print flags", []string{"-p", "--max-turns", "3", "--append-system-prompt", "Be brief.", "--verbose", "q"},
			options{print: true, args: []string{"q"}, printFlags: printFlags{maxSteps: 3, maxStepsFlag: "--max-turns",
				appendPrompt: "Be brief.", appendSet: true, verbose: true}}},
		{"resume alias", []string{"-r", "abc"}, options{resume: "abc", resumeSet: true, sessionFlag: "-r"}},
		{"grouped switches", []string{"-cy"}, options{cont: true, yolo: true}},
		{"hidden aliases", []string{"-C", "--yes", "--auto-approve"}, options{cont: true, yolo: true}},
		{"repeatable dirs", []string{"--add-dir", "a", "--add-dir=b", "--skills-dir", "s"},
			options{addDirs: []string{"a", "b"}, skillsDirs: []string{"s"}}},
		{"agent files are counted", []string{"--agent-file", "a.md", "--agent-file", "b.md"},
			options{agentFiles: []string{"a.md", "b.md"}}},
		{"help stops parsing", []string{"--help", "--frob"}, options{help: true}},
		{"S_invocation -p --help is help", []string{"-p", "--help"}, options{print: true, help: true}},
		{"version stops parsing", []string{"-V", "extra"}, options{version: true}},
		{"subcommand takes the rest", []string{"export", "-o", "x.zip"},
			options{command: "export", commandArgs: []string{"-o", "x.zip"}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseArgs(tt.args)
			if err != nil {
				t.Fatalf("parseArgs(%q): %v", tt.args, err)
			}
			if d := cmp.Diff(tt.want, *got, cmp.AllowUnexported(options{}, safetyOptions{}, printFlags{})); d != "" {
				t.Errorf("parseArgs(%q) (-want +got):\n%s", tt.args, d)
			}
		})
	}
}

// Positional arguments are the interactive interface's first prompt
// (ERRATA 33); print mode refuses them in run.
func TestParseArgsPositional(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want []string
	}{
		{[]string{"fix", "the tests"}, []string{"fix", "the tests"}},
		{[]string{"-c", "go on"}, []string{"go on"}},
		{[]string{"--", "-not an option"}, []string{"-not an option"}},
	} {
		o, err := parseArgs(tt.args)
		if err != nil || !slices.Equal(o.args, tt.want) {
			t.Errorf("parseArgs(%q) = %q, %v; want %q", tt.args, o.args, err, tt.want)
		}
	}
}

func TestParseArgsErrors(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--frob"}, "unknown option '--frob'"},
		{[]string{"-cx"}, "unknown option '-x'"},
		{[]string{"--plan=yes"}, "unknown option '--plan=yes'"},
		{[]string{"--prompt"}, "option '--prompt <prompt>' argument missing"},
		{[]string{"--max-steps", "0"}, "option '--max-steps <n>' argument '0' is invalid: give a whole number from 1 to 100000."},
		{[]string{"--max-turns", "x"}, "option '--max-turns <n>' argument 'x' is invalid: give a whole number from 1 to 100000."},
		{[]string{"--max-turns", "2", "--max-steps", "3"}, "Cannot combine --max-turns with --max-steps: they are the same limit."},
		{[]string{"--model"}, "option '-m, --model <model>' argument missing"},
		{[]string{"--output-format", "xml"},
			"option '--output-format <format>' argument 'xml' is invalid. Allowed choices are text, json, stream-json."},
		{[]string{"--agent", "a", "--agent", "b"}, "--agent may only be specified once."},
	} {
		_, err := parseArgs(tt.args)
		if err == nil || err.Error() != tt.want {
			t.Errorf("parseArgs(%q) = %v; want %q", tt.args, err, tt.want)
		}
	}
}
