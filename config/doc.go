// Package config turns kimigo's configuration files and environment into
// typed values, and resolves a model alias into a working llm.Provider
// (spec 06 §2–3, §1.5, §1.10).
//
// It owns:
//   - the data root ($KIMIGO_HOME, else ~/.kimigo) and the first-run
//     config.toml scaffold (paths.go);
//   - the lenient load pipeline: read, parse (syntax errors name file, line
//     and column), per-field schema checks, salvage of invalid entries and
//     sections, unknown-key warnings (load.go, decode.go, sections.go,
//     entry.go, rules.go);
//   - the environment: Env is filled by cmd/kimigo and is the only way
//     variables reach kimigo's settings (env.go); overrides of config keys
//     are one table (overrides.go); the KIMI_MODEL_* synthetic model
//     (envmodel.go);
//   - model resolution and the built-in offline model (models.go,
//     claude.go) and provider construction, including the proxy-aware HTTP
//     client (provider.go);
//   - write-back: strict re-read, patch, atomic replace with mode 0600,
//     the "always" allow rule appended as text (write.go), and
//     UserRuleWriter, the permission manager's RuleWriter over it
//     (rule_writer.go);
//   - the project's .kimi-code/local.toml (local.go) and doctor's strict
//     check (check.go).
//
// It does not own: the meaning of permission patterns (agent/permission
// parses them; config only hands over {decision, scope, pattern, file,
// line}), hook execution, MCP server files, tui.toml, command-line
// parsing, or where a Config is kept. There is no package state: Load
// returns a value, and callers pass what they need down explicitly.
//
// Invariants:
//   - Nothing here reads the process environment or global state; every
//     variable comes through an Env.
//   - A file is only ever written by writeAtomic, after a strict re-read
//     that found it valid; a file that does not parse or has schema issues
//     is left byte-identical. Load never writes.
//   - The offline model and the KIMI_MODEL_* entries exist only in memory:
//     write-back starts from the file's own content, and a patch that names
//     them is refused.
//   - Every user-facing error is an *Error whose message names the file
//     (and, for schema issues, the snake_case key path).
//
// Guarded by scenarios_test.go (spec 06 §10 scenarios 19–32, one test per
// id), sections_test.go (validation messages), load_fuzz_test.go
// (FuzzLoadConfig: no panic, failing files untouched), provider_test.go
// (KIMI_MODEL_* alone drives each provider type against llm/llmtest fakes)
// write_test.go (atomicity, modes, comment preservation) and
// rule_writer_test.go (concurrent "always" answers keep every rule).
package config
