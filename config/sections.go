package config

import (
	"math"
	"strings"
)

// Reserved names: entries the runtime adds and never writes (spec 06 §1.5,
// §3.8). A file may not define them.
const (
	OfflineAlias       = "offline"
	EnvModelAlias      = "__kimi_env_model__"
	EnvModelProviderID = "__kimi_env__"
)

// maxMCPTimeout is the largest MCP timeout in milliseconds.
const maxMCPTimeout = 2147483647

// decodeConfig reads every section of raw into a Config. Problems go to d.
func decodeConfig(d *decoder, raw map[string]any) *Config {
	c := &Config{Path: d.file, Providers: map[string]Provider{}, Models: map[string]ModelEntry{}}
	t := &table{d: d, m: raw, seen: map[string]bool{}}
	c.DefaultModel = t.str("default_model")
	c.DefaultProvider = t.str("default_provider")
	c.DefaultPermissionMode = PermissionMode(t.enum("default_permission_mode",
		[]string{string(ModeManual), string(ModeYolo), string(ModeAuto)}))
	c.DefaultPlanMode = deref(t.boolean("default_plan_mode"))
	c.MergeAllAvailableSkills = t.boolean("merge_all_available_skills")
	c.ExtraSkillDirs = t.strList("extra_skill_dirs")
	c.ExtraAgentDirs = t.strList("extra_agent_dirs")
	c.Telemetry = t.boolean("telemetry")
	t.boolean("plan_mode") // legacy: checked, then ignored
	t.boolean("yolo")
	t.accept("default_yolo", "default_thinking") // deprecated: removed on rewrite

	if p := t.sub("providers"); p != nil {
		decodeProviders(p, c)
	}
	if m := t.sub("models"); m != nil {
		decodeModels(m, c)
	}
	if s := t.sub("thinking"); s != nil {
		c.Thinking = decodeThinking(s)
	}
	if s := t.sub("loop_control"); s != nil {
		c.LoopControl = decodeLoopControl(s)
	}
	if s := t.sub("background"); s != nil {
		c.Background = decodeBackground(s)
	}
	if s := t.sub("subagent"); s != nil {
		c.Subagent.TimeoutMs = s.integer("timeout_ms", 0, math.MaxInt)
		s.finish(false)
	}
	if s := t.sub("mcp"); s != nil {
		c.MCP.StartupTimeoutMs = s.integer("startup_timeout_ms", 1, maxMCPTimeout)
		c.MCP.ToolTimeoutMs = s.integer("tool_timeout_ms", 1, maxMCPTimeout)
		s.finish(false)
	}
	if s := t.sub("image"); s != nil {
		c.Image.MaxEdgePx = s.integer("max_edge_px", 1, math.MaxInt)
		c.Image.ReadByteBudget = s.integer("read_byte_budget", 1, math.MaxInt)
		s.finish(false)
	}
	if s := t.sub("sandbox"); s != nil {
		c.Sandbox.Mode = s.enum("mode", []string{"read-only", "workspace-write", "off"})
		c.Sandbox.Network = s.boolean("network")
		s.finish(false)
	}
	if s := t.sub("services"); s != nil {
		c.Services.MoonshotSearch = decodeService(s.sub("moonshot_search"))
		c.Services.MoonshotFetch = decodeService(s.sub("moonshot_fetch"))
		s.finish(false)
	}
	if s := t.sub("model_catalog"); s != nil {
		c.ModelCatalog.RefreshIntervalMs = s.integer("refresh_interval_ms", 0, math.MaxInt)
		c.ModelCatalog.RefreshOnStart = s.boolean("refresh_on_start")
		s.finish(false)
	}
	if s := t.sub("experimental"); s != nil {
		c.Experimental = decodeExperimental(s)
	}
	if s := t.sub("secondary_model"); s != nil {
		c.SecondaryModel = s.m // Tier 2: kept as written
	}
	if s := t.sub("permission"); s != nil {
		c.Permission = decodePermission(s, OriginUser)
	}
	if v, ok := t.take("hooks"); ok {
		c.Hooks = decodeHooks(d, v)
	}
	t.finish(false)
	return c
}

func decodeProviders(t *table, c *Config) {
	for _, name := range sortedKeys(t.m) {
		e := t.sub(name)
		if e == nil {
			continue
		}
		if name == EnvModelProviderID {
			t.issuef(name, "the name is reserved for the KIMI_MODEL_* provider")
			continue
		}
		p := Provider{
			Type:          ProviderType(e.enum("type", fileProviderTypes())),
			APIKey:        e.str("api_key"),
			BaseURL:       e.str("base_url"),
			Env:           e.strMap("env"),
			CustomHeaders: e.strMap("custom_headers"),
			OAuth:         decodeOAuth(e.sub("oauth")),
			DefaultModel:  e.str("default_model"),
		}
		if _, ok := e.m["type"]; !ok {
			e.issuef("type", "is required")
		}
		if s := e.sub("source"); s != nil {
			s.accept(sortedKeys(s.m)...) // registry metadata, preserved as is
		}
		e.finish(false)
		c.Providers[name] = p
	}
}

func decodeOAuth(t *table) *OAuthRef {
	if t == nil {
		return nil
	}
	o := &OAuthRef{
		Storage:   t.enum("storage", []string{"file", "keyring"}),
		Key:       t.nonEmpty("key"),
		OAuthHost: t.nonEmpty("oauth_host"),
	}
	for _, k := range []string{"storage", "key"} {
		if _, ok := t.m[k]; !ok {
			t.issuef(k, "is required")
		}
	}
	t.finish(false)
	return o
}

func decodeService(t *table) *Service {
	if t == nil {
		return nil
	}
	s := &Service{
		BaseURL:       t.str("base_url"),
		APIKey:        t.str("api_key"),
		OAuth:         decodeOAuth(t.sub("oauth")),
		CustomHeaders: t.strMap("custom_headers"),
	}
	t.finish(false)
	return s
}

func decodeThinking(t *table) Thinking {
	th := Thinking{Enabled: t.boolean("enabled"), Effort: t.str("effort"), Keep: t.str("keep")}
	if mode := t.enum("mode", []string{"auto", "on", "off"}); mode == "off" && th.Enabled == nil {
		off := false
		th.Enabled = &off // deprecated mode = "off" means enabled = false
	}
	t.finish(false)
	return th
}

// maxMillis bounds the millisecond keys (about 24.8 days), as [mcp] does.
const maxMillis = math.MaxInt32

func decodeLoopControl(t *table) LoopControl {
	lc := LoopControl{
		MaxStepsPerTurn:        t.integer("max_steps_per_turn", 0, math.MaxInt),
		ReservedContextSize:    t.integer("reserved_context_size", 0, math.MaxInt),
		CompactionTriggerRatio: t.number("compaction_trigger_ratio", 0.5, 0.99),
		MaxRalphIterations:     t.integer("max_ralph_iterations", -1, math.MaxInt),
		StreamIdleTimeoutMs:    t.integer("stream_idle_timeout_ms", 0, maxMillis),
		ResponseTimeoutMs:      t.integer("response_timeout_ms", 0, maxMillis),
		StepStallTimeoutMs:     t.integer("step_stall_timeout_ms", 0, maxMillis),
		MaxRetryAfterMs:        t.integer("max_retry_after_ms", 0, maxMillis),
	}
	if legacy := t.integer("max_steps_per_run", 0, math.MaxInt); lc.MaxStepsPerTurn == nil {
		lc.MaxStepsPerTurn = legacy
	}
	retries := t.integer("max_retries_per_step", 0, math.MaxInt)
	lc.MaxAttemptsPerStep = t.integer("max_attempts_per_step", 0, math.MaxInt)
	if _, ok := t.m["max_retries_per_step"]; ok {
		t.d.notes = append(t.d.notes, Warning{File: t.d.file,
			Message: "loop_control.max_retries_per_step is deprecated; use max_attempts_per_step (in " + t.d.file + ")"})
	}
	if lc.MaxAttemptsPerStep == nil {
		lc.MaxAttemptsPerStep = retries
	}
	t.finish(false)
	return lc
}

func decodeBackground(t *table) Background {
	b := Background{
		MaxRunningTasks:             t.integer("max_running_tasks", 1, math.MaxInt),
		KeepAliveOnExit:             t.boolean("keep_alive_on_exit"),
		KillGracePeriodMs:           t.integer("kill_grace_period_ms", 0, math.MaxInt),
		BashAutoBackgroundOnTimeout: t.boolean("bash_auto_background_on_timeout"),
		BashTaskTimeoutS:            t.integer("bash_task_timeout_s", 0, math.MaxInt),
		PrintBackgroundMode:         t.enum("print_background_mode", []string{"exit", "drain", "steer"}),
		PrintWaitCeilingS:           t.integer("print_wait_ceiling_s", 1, math.MaxInt),
		PrintMaxTurns:               t.integer("print_max_turns", 1, math.MaxInt),
	}
	t.finish(false)
	return b
}

func decodeExperimental(t *table) map[string]bool {
	out := map[string]bool{}
	for _, k := range sortedKeys(t.m) {
		if b := t.boolean(k); b != nil {
			out[k] = *b
		}
	}
	return out
}

func decodeHooks(d *decoder, v any) []Hook {
	items, ok := asList(v)
	if !ok {
		d.issuef([]string{"hooks"}, "expected an array of tables, got %s", describe(v))
		return nil
	}
	var hooks []Hook
	for i, it := range items {
		t := d.asTable([]string{"hooks", index(i)}, it)
		if t == nil {
			continue
		}
		h := Hook{
			Event:   t.enum("event", hookEvents()),
			Matcher: t.str("matcher"),
			Command: t.nonEmpty("command"),
			Timeout: deref(t.integer("timeout", 1, 600)),
		}
		for _, k := range []string{"event", "command"} {
			if _, ok := t.m[k]; !ok {
				t.issuef(k, "is required")
			}
		}
		t.finish(true) // [[hooks]] is strict: any other key is an error
		hooks = append(hooks, h)
	}
	return hooks
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

// lowerAll lower-cases and trims every element.
func lowerAll(list []string) []string {
	out := make([]string, 0, len(list))
	for _, s := range list {
		out = append(out, strings.ToLower(strings.TrimSpace(s)))
	}
	return out
}
