// Package tools holds kimigo's built-in tools and the infrastructure they
// share (spec 05 §1–4, §11). Every tool implements loop.ExecutableTool,
// the one tool contract; results are loop.ToolResult values, display
// blocks loop.Display values, and declared resource accesses loop.Access
// values.
//
// It owns:
//   - the shared pieces other tools build on: ResultBuilder (output under a
//     total and a per-line limit, §1.9) and DetectFileType (§3.3); the path
//     access policy, the sensitive-file rules and the rule matchers (§1.8,
//     §3.1–3.2) are package workspace's, shared with agent/permission;
//   - the built-in tools, one file each with its model-facing description
//     in a .md file beside it, rendered with text/template from the same
//     constants the code uses;
//   - Manager, the tool table of one agent (§2): registration, profile
//     activation, MCP allow/deny, progressive disclosure and the table
//     order, FollowMCP (an MCP manager's servers register and drop their
//     tools as they connect and fail); and Store, the tool key/value store
//     whose updates the agent records (§1.10);
//   - select_tools (§2.6, §4.17), which loads announced tools' schemas into
//     history, and Skill (§9.5), which loads a skill's rendered
//     instructions; both append through ContextAppender, which the agent
//     implements.
//
// It does not own: argument parsing, schema validation, scheduling, hooks,
// the grace timeout or result normalisation (package loop does those); the
// permission chain (agent/permission); files and processes (package osenv:
// every tool gets an osenv.Env and its workspace.Dirs when it is built, never
// per call); background tasks, questions to the user, subagents, cron,
// skills, plan and goal modes, swarm mode and the running of a swarm
// (reached through the small interfaces in collaborators.go, plan_mode.go,
// goal.go and agent_swarm.go, implemented elsewhere). Grep and Glob (grep.go,
// glob.go) run on the native engine in tools/search.
//
// Invariants, and the tests that guard them:
//   - Bad input never panics and never writes half a file: every refusal is
//     an error result naming the argument or the path, and Write and Edit
//     replace files through a temporary file and a rename (write_file_test.go,
//     edit_file_test.go, S14–S24).
//   - Path refusals happen in ResolveExecution, before any I/O
//     (path_policy_test.go, S17, S19).
//   - Read streams: memory does not grow with the file (read_file_test.go,
//     BenchmarkReadNearEndOf100MB).
//   - A Bash command never outlives its call: timeouts and cancellation kill
//     the whole process group, and output is bounded with its head and tail
//     kept (bash_test.go).
//   - The default tool definitions stay under 20 KB on the wire
//     (manager_test.go TestDefaultDefinitionsSize); with 200 MCP tools and
//     progressive disclosure the first request stays under 40 KB
//     (agent's TestMCP200ToolsFirstRequestSize).
//   - A definition is rendered once per process for its template, schema
//     and data (later tables and subagents' take the kept one), and a
//     table is rebuilt only when what it depends on changed: a profile
//     rebuilds it only when it changes whether background runs are
//     offered; a kept or reused definition is the one a fresh table holds
//     (manager_test.go TestActivationDecidesBackgroundRuns, agent_test.go
//     TestAgentDefinitionFollowsItsInputs).
//   - select_tools and Skill follow spec 05 §12 scenarios 84–86, through
//     the real agent (agent's TestScenario84…, TestScenario85…,
//     TestScenario86…).
//   - AgentSwarm rejects a bad call before anything starts, builds resumes
//     then items with every {{item}} replaced, and answers with the
//     <agent_swarm_result> block in input order even when children failed
//     (agent_swarm_test.go, S58, S61).
package tools
