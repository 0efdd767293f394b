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
		{"prompt and format", []string{"-p", "hi", "--output-format", "stream-json"},
			options{prompt: "hi", promptSet: true, outputFormat: "stream-json", formatSet: true}},
		{"equals form", []string{"--prompt=a=b", "--model=k2"},
			options{prompt: "a=b", promptSet: true, model: "k2", modelSet: true}},
		{"short value glued", []string{"-phi", "-mk2"}, options{prompt: "hi", promptSet: true, model: "k2", modelSet: true}},
		{"a required value may start with a dash", []string{"-p", "-x"}, options{prompt: "-x", promptSet: true}},
		{"session takes the next token", []string{"-S", "abc", "-p", "hi"},
			options{session: "abc", sessionSet: true, prompt: "hi", promptSet: true}},
		{"session before an option has no id", []string{"-S", "-p", "hi"},
			options{sessionSet: true, prompt: "hi", promptSet: true}},
		{"session last has no id", []string{"-p", "hi", "--session"}, options{sessionSet: true, prompt: "hi", promptSet: true}},
		{"resume alias", []string{"-r", "abc"}, options{resume: "abc", resumeSet: true}},
		{"grouped switches", []string{"-cy"}, options{cont: true, yolo: true}},
		{"hidden aliases", []string{"-C", "--yes", "--auto-approve"}, options{cont: true, yolo: true}},
		{"repeatable dirs", []string{"--add-dir", "a", "--add-dir=b", "--skills-dir", "s"},
			options{addDirs: []string{"a", "b"}, skillsDirs: []string{"s"}}},
		{"agent files are counted", []string{"--agent-file", "a.md", "--agent-file", "b.md"},
			options{agentFiles: []string{"a.md", "b.md"}}},
		{"help stops parsing", []string{"--help", "--frob"}, options{help: true}},
		{"version stops parsing", []string{"-V", "extra"}, options{version: true}},
		{"subcommand takes the rest", []string{"export", "-o", "x.zip"},
			options{command: "export", commandArgs: []string{"-o", "x.zip"}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseArgs(tt.args)
			if err != nil {
				t.Fatalf("parseArgs(%q): %v", tt.args, err)
			}
			if d := cmp.Diff(tt.want, *got, cmp.AllowUnexported(options{}, safetyOptions{})); d != "" {
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
		{[]string{"-p"}, "option '-p, --prompt <prompt>' argument missing"},
		{[]string{"--model"}, "option '-m, --model <model>' argument missing"},
		{[]string{"--output-format", "xml"},
			"option '--output-format <format>' argument 'xml' is invalid. Allowed choices are text, stream-json."},
		{[]string{"--agent", "a", "--agent", "b"}, "--agent may only be specified once."},
	} {
		_, err := parseArgs(tt.args)
		if err == nil || err.Error() != tt.want {
			t.Errorf("parseArgs(%q) = %v; want %q", tt.args, err, tt.want)
		}
	}
}
