// Package mcp is kimigo's Model Context Protocol client (spec 06 §7), built
// on the official Go SDK (github.com/modelcontextprotocol/go-sdk).
//
// It owns:
//   - the configuration layers: <KIMIGO_HOME>/mcp.json, the project's
//     .mcp.json (Claude's format, "type" accepted for "transport"),
//     <work dir>/.kimi-code/mcp.json and servers a caller hands over, later
//     winning per name; workspace files count only in a trusted workspace
//     and never shadow a trusted server; every error is a *ConfigError that
//     names the file, server and field (config.go);
//   - the Manager: servers connect in parallel without blocking the caller,
//     each bounded by its startup timeout (connect, initialize, tools/list),
//     with a status (pending, connected, failed with the reason and the
//     stderr tail, disabled), tools that arrive late
//     (notifications/tools/list_changed), unexpected closes, reconnects and
//     shutdown (manager.go, connect.go);
//   - the transports: stdio through osenv (own process group, stderr tail,
//     non-JSON stdout lines set aside, stdin close then SIGTERM then SIGKILL),
//     streamable HTTP and SSE with static headers and a bearer token read
//     from an environment variable at connect time (stdio.go, remote.go);
//   - Tool, an MCP tool as a loop.ExecutableTool: the qualified name
//     (naming.go), the server's description and input schema, calls bound
//     to the tool timeout and the turn's cancellation (which the SDK sends
//     on to the server), and the conversion of results with their limits
//     (tool.go, output.go).
//
// It does not own: registering tools with the tool manager (the session
// subscribes and calls tools.Manager.SetMCPTools), progressive disclosure
// (tools), permission (MCP tools ask by their qualified name), the
// `kimigo mcp` commands or the trust decision (the caller passes Trusted).
// It imports only loop, llm, osenv and internal/bug of kimigo.
//
// Invariants, and the tests that guard them:
//   - Nothing a server does crashes kimigo or stops a turn: a crash mid-call,
//     a timeout, a hang in tools/list, an exit at start, an invalid schema
//     and stdout noise all become an error result or a failed status
//     (TestScenario53…, TestScenario54…, TestScenario55…,
//     TestMisbehavingServers, the npm tests).
//   - Servers connect in parallel: three servers that each wait for the
//     others all connect (TestParallelConnect, BenchmarkConnectThree).
//   - A cancelled or timed-out call tells the server (TestScenario54…,
//     TestTurnCancellationReachesTheServer); Close ends calls in flight and
//     every process (TestCloseStopsEveryServer).
//   - Names, output and configuration follow spec 06 §10 scenarios 52–58
//     (TestScenario52…–TestScenario58…, FuzzQualifiedName, FuzzParseFile).
//   - Untrusted and disabled servers never spawn
//     (TestDisabledAndUntrustedServersNeverStart, TestLayers).
package mcp
