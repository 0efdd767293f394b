// Command kimigo is a terminal coding agent: `kimigo -p "<prompt>"` runs
// one prompt headless in the current directory (spec 06 §1).
//
// It owns the command line and nothing below it: the grammar and option
// table (flags.go), the validation table of spec 06 §1.3 in its order
// (validate.go), the exit codes and the startup error format (errors.go),
// signals (signals.go), the diagnostic log files (logging.go), and the
// `doctor` and `export` subcommands (doctor.go, export.go). A print run
// (printmode.go, setup.go) reads the environment once into config.Env,
// loads the configuration, resolves the model, the profile and the
// permission rules before any session file is written (agent.go), opens
// or creates the session (spec 06 §1.4), binds the model (model.go),
// switches the run to auto permission mode, and hands the rest to
// internal/print. The interactive interface and `acp` are not here yet.
//
// Invariants, and the tests that guard them:
//   - --version and --help read no configuration and touch no file
//     (main_test.go TestVersionAndHelpTouchNothing); option errors are
//     reported before anything touches the disk (scenarios_test.go
//     TestScenario1…TestScenario9, flags_test.go, validate_test.go).
//   - A failed startup exits 1 in the spec 06 §1.8 format and leaves
//     config.toml and the sessions as they were (badinput_test.go,
//     TestScenario10).
//   - A signal ends a run with 128+n after the session was closed and its
//     records flushed, so -c resumes it (e2e_test.go TestE2ESigintResumes,
//     TestScenario16).
//   - A continued session's first request carries the previous run's
//     conversation exactly, for every provider type (TestE2EContinue).
//
// The end-to-end tests build this command once (TestMain) and run it as a
// child process against the loopback fake services of llm/llmtest,
// configured only through KIMI_MODEL_* variables, with an environment
// built from nothing.
package main
