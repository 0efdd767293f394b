package config_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kimigo/kimigo/config"
	"github.com/kimigo/kimigo/osenv"
	"github.com/kimigo/kimigo/osenv/osenvtest"
)

func TestLoadMissingAndBlankFiles(t *testing.T) {
	for name, content := range map[string]string{"missing": "", "blank": " \n\t\n"} {
		dir, _ := home(t, content)
		cfg, w := mustLoad(t, dir, nil)
		if len(w) != 0 || len(cfg.Providers) != 0 || cfg.DefaultModel != "" {
			t.Errorf("%s file: warnings %q, providers %v; want empty defaults", name, messages(w), cfg.Providers)
		}
	}
}

func TestLoadReadErrorNamesFile(t *testing.T) {
	dir, path := home(t, "")
	if err := os.Mkdir(path, 0o700); err != nil { // a directory where the file should be
		t.Fatal(err)
	}
	_, _, err := load(t, dir, nil)
	if err == nil || !strings.HasPrefix(err.Error(), "Failed to read "+path+": ") {
		t.Errorf("Load = %v; want Failed to read %s", err, path)
	}
}

func TestLoadUnknownAndDeprecatedKeys(t *testing.T) {
	content := `
max_step_per_turn = 3
default_yolo = true

[thinking]
mode = "off"

[loop_control]
max_steps_per_run = 7
max_retries_per_step = 4

[providers.p]
type = "kimi"
api_key = "k"
colour = "blue"
`
	dir, path := home(t, content)
	cfg, w := mustLoad(t, dir, nil)
	want := []string{
		"loop_control.max_retries_per_step is deprecated; use max_attempts_per_step (in " + path + ")",
		"Unknown key max_step_per_turn in " + path,
		"Unknown key providers.p.colour in " + path,
	}
	if d := cmp.Diff(want, messages(w)); d != "" {
		t.Errorf("warnings (-want +got):\n%s", d)
	}
	if cfg.Thinking.Enabled == nil || *cfg.Thinking.Enabled {
		t.Error(`thinking.mode = "off" did not disable thinking`)
	}
	if got := cfg.LoopControl; *got.MaxStepsPerTurn != 7 || *got.MaxAttemptsPerStep != 4 {
		t.Errorf("legacy loop keys: steps %d attempts %d; want 7, 4", *got.MaxStepsPerTurn, *got.MaxAttemptsPerStep)
	}
}

func TestLoopControlAttemptsPrecedence(t *testing.T) {
	dir, _ := home(t, "[loop_control]\nmax_retries_per_step = 4\nmax_attempts_per_step = 6\nreserved_context_size = 0\n")
	for _, tt := range []struct {
		env  config.Env
		want int
	}{
		{nil, 6},
		{config.Env{"KIMI_LOOP_MAX_RETRIES_PER_STEP": "3"}, 3},
		{config.Env{"KIMI_LOOP_MAX_RETRIES_PER_STEP": "3", "KIMI_LOOP_MAX_ATTEMPTS_PER_STEP": "2"}, 2},
		{config.Env{"KIMI_LOOP_MAX_RETRIES_PER_STEP": "3", "KIMI_LOOP_MAX_ATTEMPTS_PER_STEP": "x"}, 3},
	} {
		cfg, _ := mustLoad(t, dir, tt.env)
		if got := *cfg.LoopControl.MaxAttemptsPerStep; got != tt.want {
			t.Errorf("env %v: attempts %d; want %d", tt.env, got, tt.want)
		}
		if r := cfg.LoopControl.ReservedContextSize; r == nil || *r != 0 {
			t.Errorf("reserved_context_size = 0 must stay set, got %v", r)
		}
	}
	empty, _ := home(t, "")
	cfg, _ := mustLoad(t, empty, nil)
	if cfg.LoopControl.ReservedContextSize != nil || cfg.LoopControl.CompactionTriggerRatio != nil {
		t.Error("unset loop_control values must be nil (ERRATA 17)")
	}
}

func TestEnvOverridesTable(t *testing.T) {
	dir, _ := home(t, "[background]\nmax_running_tasks = 4\nkeep_alive_on_exit = false\n[mcp]\ntool_timeout_ms = 5\n[thinking]\nkeep = \"all\"\n")
	cfg, _ := mustLoad(t, dir, config.Env{
		"KIMI_CODE_BACKGROUND_MAX_RUNNING_TASKS":  "9",
		"KIMI_CODE_BACKGROUND_KEEP_ALIVE_ON_EXIT": "Yes",
		"KIMI_MCP_TOOL_TIMEOUT_MS":                "2147483648", // out of range: ignored
		"KIMI_MCP_STARTUP_TIMEOUT_MS":             "100",
		"KIMI_SUBAGENT_TIMEOUT_MS":                "0",
		"KIMI_IMAGE_MAX_EDGE_PX":                  "0", // not positive: ignored
		"KIMI_IMAGE_READ_BYTE_BUDGET":             "1024",
		"KIMI_MODEL_THINKING_KEEP":                "off",
		"KIMI_DISABLE_CRON":                       "1",
		"KIMI_LOG_LEVEL":                          "DEBUG",
		"KIMI_CODE_AGENT_SWARM_MAX_CONCURRENCY":   "3",
		"KIMI_MODEL_OUTPUT_FORMAT":                " stream-json ",
		"HTTPS_PROXY":                             "http://proxy:3128",
		"no_proxy":                                "internal",
		"KIMI_CRON_MANUAL_TICK":                   "1",
		"KIMI_CRON_NO_JITTER":                     "1",
		"KIMI_CRON_CLOCK":                         "file:/tmp/clock",
	})
	got := []any{*cfg.Background.MaxRunningTasks, *cfg.Background.KeepAliveOnExit, *cfg.MCP.ToolTimeoutMs,
		*cfg.MCP.StartupTimeoutMs, *cfg.Subagent.TimeoutMs, cfg.Image.MaxEdgePx == nil, *cfg.Image.ReadByteBudget,
		cfg.Thinking.Keep, cfg.Env.DisableCron, cfg.Env.LogLevel, cfg.Env.SwarmMaxConcurrency, cfg.Env.OutputFormat,
		cfg.Env.Proxy, cfg.Env.Cron}
	want := []any{9, true, 5, 100, 0, true, 1024, "off", true, "debug", 3, "stream-json",
		config.ProxySettings{HTTPSProxy: "http://proxy:3128", NoProxy: "internal"},
		config.CronSettings{ManualTick: true, NoJitter: true, ClockFile: "/tmp/clock"}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("overrides (-want +got):\n%s", d)
	}
}

func TestKimiSamplingEnvErrors(t *testing.T) {
	dir, _ := home(t, "")
	_, _, err := load(t, dir, config.Env{"KIMI_MODEL_TEMPERATURE": "warm"})
	if want := `KIMI_MODEL_TEMPERATURE must be a number, got "warm".`; err == nil || err.Error() != want {
		t.Errorf("Load = %v; want %q", err, want)
	}
	cfg, _ := mustLoad(t, dir, config.Env{"KIMI_MODEL_TEMPERATURE": "0.3", "KIMI_MODEL_TOP_P": "0.9"})
	if *cfg.Env.Temperature != 0.3 || *cfg.Env.TopP != 0.9 {
		t.Errorf("sampling = %v %v", *cfg.Env.Temperature, *cfg.Env.TopP)
	}
}

// TestMalformedRuleDroppedAlone: ERRATA 13 — a bad rule goes alone, with a
// warning naming the file, the line and the rule; the rest loads.
func TestMalformedRuleDroppedAlone(t *testing.T) {
	content := `default_model = "m"

[[permission.rules]]
decision = "deny"
pattern = "Bash(rm -rf*)"

[[permission.rules]]
decision = "perhaps"
pattern = "Write"

[[permission.ask]]
tool = "Bash"
match = "git push*"

[[permission.allow]]
pattern = "Read"
`
	dir, path := home(t, content)
	cfg, w := mustLoad(t, dir, nil)
	want := []config.PermissionRule{
		{Decision: config.DecisionDeny, Pattern: "Bash(rm -rf*)", Origin: config.OriginUser, Source: path, Line: 3},
		{Decision: config.DecisionAllow, Pattern: "Read", Origin: config.OriginUser, Source: path, Line: 15},
		{Decision: config.DecisionAsk, Pattern: "Bash(git push*)", Origin: config.OriginUser, Source: path, Line: 11},
	}
	if d := cmp.Diff(want, cfg.Permission); d != "" {
		t.Errorf("rules (-want +got):\n%s", d)
	}
	wantWarn := []string{`Ignored permission rule permission.rules[1] "Write" in ` + path +
		`:7: decision: expected one of "allow", "deny", "ask", got "perhaps"`}
	if d := cmp.Diff(wantWarn, messages(w)); d != "" || cfg.DefaultModel != "m" {
		t.Errorf("default %q, warnings (-want +got):\n%s", cfg.DefaultModel, d)
	}
	// A reload keeps the new configuration: one bad rule is not a file error.
	if got, _ := config.Reload(nil, config.LoadOptions{Home: dir}); got == nil {
		t.Error("Reload dropped the configuration over one malformed rule")
	}
}

func TestReloadKeepsPreviousOnErrors(t *testing.T) {
	dir, path := home(t, goodProvider)
	prev, _ := mustLoad(t, dir, nil)
	if err := os.WriteFile(path, []byte(goodProvider+"\n[loop_control]\nmax_steps_per_turn = -1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	got, w := config.Reload(prev, config.LoadOptions{Home: dir})
	if got != prev || len(w) != 2 || w[1].Message != "config.toml has errors; keeping the previously loaded configuration." {
		t.Errorf("Reload = kept %v, %q", got == prev, messages(w))
	}
	if err := os.WriteFile(path, []byte("default_model = \"fake\"\n"+goodProvider), 0o600); err == nil {
		got, w = config.Reload(prev, config.LoadOptions{Home: dir})
		if got == prev || len(w) != 0 {
			t.Errorf("Reload of a fixed file kept the previous config (warnings %q)", messages(w))
		}
	}
}

func TestHomeDirAndEnsureHome(t *testing.T) {
	if got, _ := config.HomeDir(config.Env{"KIMIGO_HOME": " /data/k "}, "/home/u"); got != "/data/k" {
		t.Errorf("HomeDir with KIMIGO_HOME = %q", got)
	}
	if got, _ := config.HomeDir(config.Env{"KIMIGO_HOME": " ", "KIMI_CODE_HOME": "/x"}, "/home/u"); got != "/home/u/.kimigo" {
		t.Errorf("HomeDir default = %q", got)
	}
	if _, err := config.HomeDir(nil, ""); err == nil {
		t.Error("HomeDir with no home and no KIMIGO_HOME succeeded")
	}
	root := filepath.Join(t.TempDir(), "root")
	if err := config.EnsureHome(osenv.LocalFS{}, root); err != nil {
		t.Fatal(err)
	}
	di, _ := os.Stat(root)
	fi, _ := os.Stat(config.ConfigFile(root))
	if di.Mode().Perm() != 0o700 || fi.Mode().Perm() != 0o600 {
		t.Errorf("modes: dir %v file %v; want 0700, 0600", di.Mode().Perm(), fi.Mode().Perm())
	}
	cfg, w := mustLoad(t, root, nil)
	if len(w) != 0 || len(cfg.Models) != 0 {
		t.Errorf("scaffold loads with warnings %q", messages(w))
	}
	if err := os.WriteFile(config.ConfigFile(root), []byte("default_model = \"x\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := config.EnsureHome(osenv.LocalFS{}, root); err != nil || readFile(t, config.ConfigFile(root)) != "default_model = \"x\"\n" {
		t.Errorf("EnsureHome touched an existing config (err %v)", err)
	}
}

func TestLoadThroughMemFS(t *testing.T) {
	fsys := osenvtest.NewMemFS("/")
	if err := config.EnsureHome(fsys, "/home/.kimigo"); err != nil {
		t.Fatal(err)
	}
	cfg, w, err := config.Load(config.LoadOptions{FS: fsys, Home: "/home/.kimigo"})
	if err != nil || len(w) != 0 || cfg.Path != "/home/.kimigo/config.toml" {
		t.Errorf("Load on a MemFS = %v, %q, %v", cfg, messages(w), err)
	}
}

func TestEnvFromList(t *testing.T) {
	got := config.EnvFromList([]string{"A=1", "B=x=y", "bad", "A=2", "=z"})
	if d := cmp.Diff(config.Env{"A": "2", "B": "x=y"}, got); d != "" {
		t.Errorf("EnvFromList (-want +got):\n%s", d)
	}
}
