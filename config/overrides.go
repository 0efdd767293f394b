package config

// envOverride lays one environment variable over a config field. apply
// returns false for a value it ignores (spec 06 §1.10: an invalid value
// falls back to config or the default).
type envOverride struct {
	name  string
	apply func(c *Config, v string) bool
}

// envOverrides is the one table of variables that override config keys,
// in the order they are applied: a later entry for the same field wins.
func envOverrides() []envOverride {
	nonNeg := func(set func(*Config, int)) func(*Config, string) bool {
		return func(c *Config, v string) bool {
			n, ok := parseDecimal(v)
			if ok {
				set(c, n)
			}
			return ok
		}
	}
	positive := func(limit int, set func(*Config, int)) func(*Config, string) bool {
		return func(c *Config, v string) bool {
			n, ok := parseDecimal(v)
			if ok = ok && n >= 1 && n <= limit; ok {
				set(c, n)
			}
			return ok
		}
	}
	maxInt := int(^uint(0) >> 1)
	return []envOverride{
		{envLoopMaxSteps, nonNeg(func(c *Config, n int) { c.LoopControl.MaxStepsPerTurn = &n })},
		// The v2 name is applied last so it wins when both are set.
		{envLoopMaxRetries, nonNeg(func(c *Config, n int) { c.LoopControl.MaxAttemptsPerStep = &n })},
		{envLoopMaxAttempts, nonNeg(func(c *Config, n int) { c.LoopControl.MaxAttemptsPerStep = &n })},
		{envMCPStartupTimeout, positive(maxMCPTimeout, func(c *Config, n int) { c.MCP.StartupTimeoutMs = &n })},
		{envMCPToolTimeout, positive(maxMCPTimeout, func(c *Config, n int) { c.MCP.ToolTimeoutMs = &n })},
		{envBackgroundKeepAlive, func(c *Config, v string) bool {
			b, ok := parseBool(v)
			if ok {
				c.Background.KeepAliveOnExit = &b
			}
			return ok
		}},
		{envBackgroundMaxRunning, positive(maxInt, func(c *Config, n int) { c.Background.MaxRunningTasks = &n })},
		{envSubagentTimeout, nonNeg(func(c *Config, n int) { c.Subagent.TimeoutMs = &n })},
		{envImageMaxEdge, positive(maxInt, func(c *Config, n int) { c.Image.MaxEdgePx = &n })},
		{envImageReadBudget, positive(maxInt, func(c *Config, n int) { c.Image.ReadByteBudget = &n })},
		{envThinkingKeep, func(c *Config, v string) bool { c.Thinking.Keep = v; return true }},
	}
}

// applyEnvOverrides lays the set variables of env over c.
func applyEnvOverrides(c *Config, env Env) {
	for _, o := range envOverrides() {
		if v := env.get(o.name); v != "" {
			o.apply(c, v)
		}
	}
}

// WithPrintDefaults returns a copy with print mode's defaults for what the
// user left unset (spec 06 §1.6.1 step 3): no step cap, no background Bash
// timeout, no subagent timeout. Environment values count as set. c is not
// changed.
func (c *Config) WithPrintDefaults() *Config {
	cp := *c
	zero := func() *int { n := 0; return &n }
	if cp.LoopControl.MaxStepsPerTurn == nil {
		cp.LoopControl.MaxStepsPerTurn = zero()
	}
	if cp.Background.BashTaskTimeoutS == nil {
		cp.Background.BashTaskTimeoutS = zero()
	}
	if cp.Subagent.TimeoutMs == nil {
		cp.Subagent.TimeoutMs = zero()
	}
	return &cp
}
