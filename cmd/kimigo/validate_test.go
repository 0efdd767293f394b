package main

import (
	"testing"

	"github.com/kimigo/kimigo/config"
)

// The checks of spec 06 §1.3, each alone and in the order that decides
// which of several failures is reported.
func TestValidate(t *testing.T) {
	const (
		rule11 = "Cannot combine --agent/--agent-file with --session/--continue: the agent is bound at session " +
			"creation and the bound agent is restored automatically on resume."
	)
	for _, tt := range []struct {
		name string
		args []string
		env  config.Env
		want string
	}{
		{"1 blank prompt", []string{"--prompt", "  "}, nil, "Prompt cannot be empty."},
		{"--prompt has no positional", []string{"--prompt", "a", "b"}, nil, "unknown command 'b'. See 'kimigo --help'."},
		{"2 blank model", []string{"-p", "hi", "-m", " "}, nil, "Model cannot be empty."},
		{"3 format without prompt", []string{"--output-format", "text"}, nil, "Output format is only supported in prompt mode."},
		{"5 prompt with auto", []string{"-p", "hi", "--auto"}, nil, "Cannot combine -p with --auto."},
		{"6 prompt with plan is allowed (issue 20)", []string{"-p", "hi", "--plan"}, nil, ""},
		{"7 blank agent", []string{"--agent", ""}, nil, "Agent cannot be empty."},
		{"8 two agent files", []string{"--agent-file", "a", "--agent-file", "b"}, nil, "--agent-file may only be specified once."},
		{"9 blank agent file", []string{"--agent-file", " "}, nil, "Agent file path cannot be empty."},
		{"10 agent and agent file", []string{"--agent", "a", "--agent-file", "x.md"}, nil, "Cannot combine --agent with --agent-file."},
		{"11 agent with session", []string{"--agent", "a", "-S", "s"}, nil, rule11},
		{"11 agent file with continue", []string{"--agent-file", "x.md", "-c"}, nil, rule11},
		{"11 agent with resume alias", []string{"--agent", "a", "-r", "s"}, nil, rule11},
		{"12 session without id in prompt mode", []string{"-p", "hi", "-S"}, nil,
			"-S needs a session id in print mode; 'kimigo sessions' lists this directory's sessions."},
		{"12 names the flag typed", []string{"-r", "-p", "x"}, nil,
			"-r needs a session id in print mode; 'kimigo sessions' lists this directory's sessions."},
		{"print flags need print mode", []string{"--max-steps", "3"}, nil, "--max-steps is only supported in print mode (-p)."},
		{"verbose needs print mode", []string{"--verbose"}, nil, "--verbose is only supported in print mode (-p)."},
		{"--prompt names itself", []string{"--prompt", "x", "--auto"}, nil, "Cannot combine --prompt with --auto."},
		{"13 continue and session", []string{"-c", "-S", "abc"}, nil, "Cannot combine --continue, --session."},
		{"14 yolo and auto", []string{"--yolo", "--auto"}, nil, "Cannot combine --yolo with --auto."},
		{"15 bad env format", []string{"-p", "hi"}, config.Env{"KIMI_MODEL_OUTPUT_FORMAT": " xml "},
			`Invalid KIMI_MODEL_OUTPUT_FORMAT value "xml". Expected one of: text, json, stream-json.`},
		{"1 before 4", []string{"--prompt", " ", "--yolo"}, nil, "Prompt cannot be empty."},
		{"3 before 14", []string{"--output-format", "text", "--yolo", "--auto"}, nil,
			"Output format is only supported in prompt mode."},
		{"5 before 6", []string{"-p", "hi", "--plan", "--auto", "--yolo"}, nil, "Cannot combine -p with --auto."},
		{"12 before 13", []string{"-p", "hi", "-c", "-S"}, nil,
			"-S needs a session id in print mode; 'kimigo sessions' lists this directory's sessions."},
		{"5 before 14 and 15", []string{"-y", "--auto", "-p", "x"}, config.Env{"KIMI_MODEL_OUTPUT_FORMAT": "xml"},
			"Cannot combine -p with --auto."},
		{"yolo with permission mode", []string{"-p", "x", "--yolo", "--permission-mode", "manual"}, nil,
			"Cannot combine --yolo with --permission-mode."},
		{"unbalanced rule list", []string{"-p", "x", "--allowedTools", "Bash(ls"}, nil, `rule list "Bash(ls": unclosed '('`},
		{"15 only in prompt mode", []string{}, config.Env{"KIMI_MODEL_OUTPUT_FORMAT": "xml"}, ""},
		{"15 not with a flag", []string{"-p", "hi", "--output-format", "text"}, config.Env{"KIMI_MODEL_OUTPUT_FORMAT": "xml"}, ""},
		{"valid print run", []string{"-p", "hi", "-S", "abc", "-m", "k2"}, config.Env{"KIMI_MODEL_OUTPUT_FORMAT": "stream-json"}, ""},
		{"resume with yolo is allowed", []string{"-c", "--yolo"}, nil, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			o, err := parseArgs(tt.args)
			if err != nil {
				t.Fatalf("parseArgs(%q): %v", tt.args, err)
			}
			got := ""
			if err := validate(o, tt.env); err != nil {
				got = err.Error()
			}
			if got != tt.want {
				t.Errorf("validate(%q) = %q; want %q", tt.args, got, tt.want)
			}
		})
	}
}

func TestOutputFormat(t *testing.T) {
	for _, tt := range []struct {
		args []string
		env  config.Env
		want string
	}{
		{[]string{"-p", "x"}, nil, "text"},
		{[]string{"-p", "x"}, config.Env{"KIMI_MODEL_OUTPUT_FORMAT": " stream-json "}, "stream-json"},
		{[]string{"-p", "x", "--output-format", "text"}, config.Env{"KIMI_MODEL_OUTPUT_FORMAT": "stream-json"}, "text"},
	} {
		o, _ := parseArgs(tt.args)
		if got := outputFormat(o, tt.env); string(got) != tt.want {
			t.Errorf("outputFormat(%q, %v) = %q; want %q", tt.args, tt.env, got, tt.want)
		}
	}
}
