// Package profile owns kimigo's agent personas and the system prompt
// (spec 05 §8): what an agent is told, which tools it may use and whom it
// may delegate to.
//
// It owns:
//   - Profile, a resolved persona: name, description, whenToUse, the tool
//     allow- and deny-lists (tool names as strings), subagent names, model
//     preference, and SystemPrompt, its renderer (profile.go);
//   - Catalog, a set of profiles with a default, Resolve for --agent and
//     Delegates for the Agent tool (catalog.go);
//   - the YAML profile schema and its loading, with prompt text read from
//     .md files beside the YAML (load.go), and extends resolution and the
//     merge rules (extends.go);
//   - the four built-in profiles agent, coder, explore and plan, written
//     in builtin/; their YAML is compiled in already decoded (go generate
//     writes builtin_gen.go) and their .md files are embedded, so start-up
//     decodes no YAML (Builtin, Resolve);
//   - the template engine: text/template over the spec's variables,
//     {{.KIMI_OS}}, with every name checked when the catalog is built so a
//     typo fails at startup, naming file, line and column (template.go);
//     the variables and their shared prose in prose/ (vars.go);
//   - the runtime prompt context: PrepareContext gathers OS, shell, date,
//     the work-dir listing (listing.go), AGENTS.md files and their 32 KiB
//     warning (agents_md.go), additional directories and git state
//     (git.go, git_exec.go, git_cache.go) through osenv, never package os.
//
// It does not own: custom agent files (profile/agentfile), skills and
// their listing (profile/skill; the caller puts the listing into
// PromptContext.Skills), the tools themselves (package tools; profiles know
// only names, and the tool manager ignores names it does not know), when
// to re-render (the agent, after compaction) or where the rendered prompt
// is recorded (session). It imports no agent, session, config or tools
// package.
//
// Invariants, and the tests that guard them:
//   - Rendering is a pure function of profile and context: the same inputs
//     give the same bytes, so the system prompt is a byte-stable cache
//     prefix for a session (TestRenderIsByteStable); the date is
//     day-granular and every listing is sorted (TestScenario79).
//   - The default prompt for a small repository stays under 8 KiB
//     (TestDefaultPromptSize) and its text is reviewed as a golden file
//     (TestDefaultPromptGolden, testdata/*.md).
//   - Merge rules, errors and the prompt sections follow spec 05 §12
//     scenarios 73–79 (TestScenario73…TestScenario79).
//   - The git state comes from git through osenv within a 15 ms deadline
//     for the whole probe; a status not done by then is killed and the
//     prompt says the changed files were not gathered (TestGitSlowStatus).
//     No .git means no git call, a missing git means no git section
//     (git_test.go). What does not depend on the work tree (commits,
//     remote, a slow verdict) is cached per work dir under
//     <home>/cache/git while HEAD, the index, the config and the refs keep
//     their mtime and size; a slow verdict holds for an hour across a
//     new HEAD or index, which only asks for the commits and the remote
//     again (TestGitSlowVerdictOutlivesANewHead); the changed files are
//     never cached; a broken or unwritable cache is ignored (TestGitCache,
//     git_cache.go). An index of 1 MiB or more (some 10,000 files) is a
//     slow verdict from the first start, without running git status
//     (TestGitLargeIndexIsSlowWithoutStatus). The origin's URL is read from
//     the repository's config, and git is asked only where a config it
//     reads could rewrite it; where the file answers, it answers as git
//     does (TestOriginURLAgreesWithGit, git_remote.go).
//   - builtin_gen.go is what decoding builtin/*.yaml gives, and Builtin
//     equals Load on builtin/ (TestBuiltinGenerated). Profiles that
//     inherit a template share one parse of it
//     (TestInheritedTemplateParsedOnce).
package profile
