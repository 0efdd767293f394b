// Command kimigo is a terminal coding agent: `kimigo -p "<prompt>"` runs
// one prompt headless in the current directory (spec 06 §1).
//
// It owns the command line and nothing below it: the grammar and option
// table (flags.go), the validation table of spec 06 §1.3 in its order
// (validate.go), the exit codes and the startup error format (errors.go),
// signals (signals.go), the diagnostic log files (logging.go), and the
// `doctor` (config files, plus the session index, which it repairs) and
// `export` subcommands (doctor.go, export.go), and those of the
// extensions (extensions.go): `mcp list|get|add|remove` (mcpcmd.go),
// `hooks list|test` (hookscmd.go), `login` and `logout` (login.go,
// spec 06 §3.5 on a plain terminal). A print run (printmode.go,
// setup.go) is: read the environment once into config.Env, load the
// configuration, turn the flags into session.Options, session.Open (which
// resolves the model, the profile, the rules and the tools and builds
// the agent), and hand the session to internal/print; after that no code
// of this package runs until the run ends (the error's wording and its
// hints: session.StorageHint, providerHint). It imports no agent, tools
// or profile package (deps_test.go). `kimigo acp` (acp.go) loads the
// configuration the same way and hands stdio to package acp; its logs go
// to the log file only (acp_test.go drives it with the npm ACP client).
// The interactive interface (interactive.go) opens its sessions the
// same way and hands them to ui/tui.
//
// main calls sandbox.MaybeRunTrampoline first: a sandboxed command's
// server is this program started again. safety.go's sandboxFor builds
// the command sandbox of every front end from [sandbox] in config.toml
// and --sandbox / --network: workspace-write unless configured, the
// network off in print mode and on in the interface and ACP, where a
// person approves each command (no spec names a default there). The
// interface (interactive.go) asks, before the session opens, whether to
// trust a project whose own files would widen what kimigo does
// (session.Widening, ERRATA 38). safety.go also holds the headless
// defaults of ERRATA 34: the workspace-write sandbox with the network off
// (--sandbox, --network, [sandbox] in config.toml), the yolo permission
// mode in which whatever the chain would ask about is denied
// (--permission-mode), this run's rules (--allowedTools,
// --disallowedTools) and the --yolo / --dangerously-skip-permissions
// opt-out, warned about at start.
//
// Invariants, and the tests that guard them:
//   - In print mode with the default sandbox, a README's `curl … | sh`
//     reaches no network and writes nothing outside the work dir, rm -rf
//     outside the workspace fails with the sandbox's error in the result
//     the model reads, .git/hooks stays read-only, and Write outside the
//     workspace is refused naming --add-dir; with --yolo all of it runs
//     (safety_test.go TestHeadlessDefaultSandbox, TestHeadlessYolo); the
//     system prompt states the sandbox
//     (TestHeadlessSystemPromptStatesTheSandbox).
//   - The interface and `kimigo acp` run commands in the same sandbox:
//     an approved Bash call and a "!" command writing outside the work
//     dir fail with the sandbox's error, which the model reads; --sandbox
//     off and [sandbox] network apply there too; an ACP session's cwd and
//     additionalDirectories are its writable workspace (sandbox_ui_test.go
//     TestTUISandboxConfinesCommands, TestTUISandboxFlags,
//     TestACPSandboxConfinesCommands). The trust question's default
//     leaves local.toml's outside directory read-only; trusting records
//     the project under KIMIGO_HOME and is not asked again
//     (TestTUITrustQuestion).
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
//   - Sessions cannot be bricked (robust_test.go, through the binary): a
//     records write that fails (the data root on a full tmpfs) exits 1
//     naming wire.jsonl and the errno, never 0, and -c resumes once space
//     returns (TestRobustDiskFullOnTmpfs); a corrupt line in the middle of
//     wire.jsonl or of the session index is skipped with a warning and
//     kept in a side file, the session resumes, and doctor repairs the
//     index (TestRobustCorruptLineInTheMiddle,
//     TestRobustCorruptIndexAndDoctor); a second run on a session in use
//     is refused naming the session and the holder's pid, and a killed
//     holder's lock is taken over (TestRobustOneWriterPerSession); a
//     read-only data root, a session deleted mid-run, a log replaced by a
//     directory and a log of a newer kimigo each fail in the §1.8 format
//     with the path and a hint, and change nothing (TestRobustBadInput).
//   - kill -9 at any stage of a tool round trip (before the request,
//     mid-stream, a call recorded but not run, a tool running, its result
//     recorded) leaves a session that -c resumes under the same id: each
//     call left open gets the "interrupted, outcome unknown" result, the
//     strict fakes of both wires accept the next request, and the work dir
//     is untouched (crash_test.go TestCrashKillAtEveryStage). After
//     SIGINT, SIGTERM or kill -9, -c finds the latest session from the
//     files alone, and a killed session is found by id from anywhere and
//     refused outside its directory (continue_test.go). Listing sessions
//     never opens a record log (listing_test.go).
//
// The end-to-end tests build this command once (TestMain) and run it as a
// child process against the loopback fake services of llm/llmtest,
// configured only through KIMI_MODEL_* variables, with an environment
// built from nothing.
package main
