package config_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kimigo/kimigo/config"
	"github.com/kimigo/kimigo/osenv"
)

// TestValidationMessages pins the strict check's "key.path: message" line
// for each kind of schema fault.
func TestValidationMessages(t *testing.T) {
	for _, tt := range []struct {
		name, content string
		want          []string
	}{
		{"enum", `default_permission_mode = "bold"`,
			[]string{`default_permission_mode: expected one of "manual", "yolo", "auto", got string "bold"`}},
		{"bool", `default_plan_mode = "yes"`, []string{`default_plan_mode: expected a boolean, got string "yes"`}},
		{"string list", `extra_skill_dirs = ["a", 3]`, []string{`extra_skill_dirs[1]: expected a string, got integer 3`}},
		{"fraction is not an integer", "[loop_control]\nmax_steps_per_turn = 1.5",
			[]string{`loop_control.max_steps_per_turn: expected an integer ≥ 0, got number 1.5`}},
		{"ratio range", "[loop_control]\ncompaction_trigger_ratio = 0.3",
			[]string{`loop_control.compaction_trigger_ratio: expected a number from 0.5 to 0.99, got number 0.3`}},
		{"stream idle timeout is milliseconds ≥ 0", "[loop_control]\nstream_idle_timeout_ms = -5",
			[]string{`loop_control.stream_idle_timeout_ms: expected an integer from 0 to 2147483647, got integer -5`}},
		{"response timeout is an integer", "[loop_control]\nresponse_timeout_ms = \"30m\"",
			[]string{`loop_control.response_timeout_ms: expected an integer from 0 to 2147483647, got string "30m"`}},
		{"stall timeout upper bound", "[loop_control]\nstep_stall_timeout_ms = 2147483648",
			[]string{`loop_control.step_stall_timeout_ms: expected an integer from 0 to 2147483647, got integer 2147483648`}},
		{"retry-after cap", "[loop_control]\nmax_retry_after_ms = 1.5",
			[]string{`loop_control.max_retry_after_ms: expected an integer from 0 to 2147483647, got number 1.5`}},
		{"mcp upper bound", "[mcp]\nstartup_timeout_ms = 2147483648",
			[]string{`mcp.startup_timeout_ms: expected an integer from 1 to 2147483647, got integer 2147483648`}},
		{"background minimum", "[background]\nmax_running_tasks = 0",
			[]string{`background.max_running_tasks: expected an integer ≥ 1, got integer 0`}},
		{"print mode enum", "[background]\nprint_background_mode = \"wait\"",
			[]string{`background.print_background_mode: expected one of "exit", "drain", "steer", got string "wait"`}},
		{"provider type required", "[providers.p]\napi_key = \"k\"", []string{`providers.p.type: is required`}},
		{"env values are strings", "[providers.p]\ntype = \"kimi\"\nenv = { KIMI_API_KEY = 1 }",
			[]string{`providers.p.env.KIMI_API_KEY: expected a string, got integer 1`}},
		{"oauth key", "[providers.p]\ntype = \"kimi\"\noauth = { storage = \"disk\", key = \"\" }",
			[]string{`providers.p.oauth.storage: expected one of "file", "keyring", got string "disk"`,
				`providers.p.oauth.key: must not be empty`}},
		{"quoted alias", "[models.\"gpt-4.1\"]\nprovider = \"p\"\nmodel = \"gpt-4.1\"\nmax_context_size = 0",
			[]string{`models."gpt-4.1".max_context_size: Model "gpt-4.1" must define a positive max_context_size in config.toml.`}},
		{"model requires provider", "[models.m]\nmodel = \"x\"\nmax_context_size = 1", []string{`models.m.provider: is required`}},
		{"protocol", "[models.m]\nprovider = \"p\"\nmodel = \"x\"\nmax_context_size = 1\nprotocol = \"grpc\"",
			[]string{`models.m.protocol: expected one of "anthropic", got string "grpc"`}},
		{"override field", "[models.m]\nprovider = \"p\"\nmodel = \"x\"\nmax_context_size = 1\n[models.m.overrides]\nmax_output_size = -1",
			[]string{`models.m.overrides.max_output_size: expected an integer ≥ 1, got integer -1`}},
		{"reserved alias", "[models.offline]\nprovider = \"p\"\nmodel = \"x\"\nmax_context_size = 1",
			[]string{`models.offline: the name is reserved for the built-in offline model`}},
		{"hook timeout", "[[hooks]]\nevent = \"Stop\"\ncommand = \"x\"\ntimeout = 601",
			[]string{`hooks[0].timeout: expected an integer from 1 to 600, got integer 601`}},
		{"hook command", "[[hooks]]\nevent = \"Stop\"", []string{`hooks[0].command: is required`}},
		{"experimental", "[experimental]\nfoo = \"on\"", []string{`experimental.foo: expected a boolean, got string "on"`}},
		{"section is a table", `thinking = 3`, []string{`thinking: expected a table, got integer 3`}},
		{"rule decision", "[[permission.rules]]\ndecision = \"maybe\"\npattern = \"Bash\"",
			[]string{`permission.rules[0]: decision: expected one of "allow", "deny", "ask", got "maybe"`}},
		{"rule pattern", "[[permission.deny]]\npattern = \"\"",
			[]string{`permission.deny[0]: pattern: is required and must not be empty`}},
		{"rule scope", "[[permission.rules]]\ndecision = \"ask\"\npattern = \"Read\"\nscope = \"global\"",
			[]string{`permission.rules[0]: scope: expected one of "turn-override", "session-runtime", "project", "user", got "global"`}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, path := home(t, tt.content+"\n")
			r := config.Check(osenv.LocalFS{}, path, true)
			var got []string
			for _, is := range r.Issues {
				got = append(got, is.String())
			}
			if d := cmp.Diff(tt.want, got); d != "" || r.Status != config.CheckError {
				t.Errorf("status %s, issues (-want +got):\n%s", r.Status, d)
			}
		})
	}
}

func TestValidConfigPassesStrictCheck(t *testing.T) {
	content := `
default_model = "deepseek-chat"
default_permission_mode = "auto"
default_plan_mode = true
extra_skill_dirs = ["~/skills"]
plan_mode = false

[providers.deepseek]
type = "openai"
base_url = "https://api.deepseek.com/v1"
api_key = "sk-x"

[models.deepseek-chat]
provider = "deepseek"
model = "deepseek-chat"
max_context_size = 128000
capabilities = ["tool_use"]

[models.deepseek-chat.overrides]
max_context_size = 64000

[thinking]
enabled = true
effort = "high"
keep = "all"

[loop_control]
max_steps_per_turn = 50
max_attempts_per_step = 3
reserved_context_size = 0
compaction_trigger_ratio = 0.9

[background]
keep_alive_on_exit = true
print_background_mode = "drain"

[subagent]
timeout_ms = 0

[mcp]
startup_timeout_ms = 1000

[image]
max_edge_px = 1000

[services.moonshot_search]
base_url = "https://search.example.com"

[experimental]
feature = true

[[permission.rules]]
decision = "deny"
pattern = "Bash(rm -rf*)"
`
	_, path := home(t, content)
	r := config.Check(osenv.LocalFS{}, path, true)
	if r.Status != config.CheckOK || len(r.Messages) != 0 {
		t.Errorf("Check = %s %q; want OK without messages", r.Status, r.Messages)
	}
}

func TestFormatIssues(t *testing.T) {
	got := config.FormatIssues("/h/config.toml", []config.Issue{
		{Path: []string{"hooks", "[0]", "event"}, Message: "bad"},
		{Path: []string{"models", "a.b", "model"}, Message: "worse"},
	})
	want := "Invalid configuration in /h/config.toml.\nValidation issues:\n  hooks[0].event: bad\n  models.\"a.b\".model: worse"
	if got != want {
		t.Errorf("FormatIssues =\n%s\nwant\n%s", got, want)
	}
}
