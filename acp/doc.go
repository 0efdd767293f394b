// Package acp is kimigo's Agent Client Protocol server, `kimigo acp`
// (spec 06 §8): JSON-RPC 2.0 over the process's stdio, one message per
// line, built on github.com/coder/acp-go-sdk. Editors (Zed, JetBrains, …)
// drive kimigo through it.
//
// It owns:
//   - the connection (server.go): initialize with the capabilities and the
//     terminal login entry, the authentication gate, session/new, load
//     (history replayed before the response), resume, list, prompt,
//     cancel, set_mode and set_config_option; one session.Session per ACP
//     session id, any number at once; the available commands pushed after
//     the new/load/resume response (writer.go holds them until the
//     response line is out);
//   - a session's life (live.go): one pump goroutine per session reads its
//     events and sends session/update notifications in event order, and
//     hands the waiting prompt its turn's end;
//   - the event → session/update mapping (translate.go): message and
//     thought chunks, tool calls created by their first argument delta
//     and updated with the cumulative arguments, kinds, locations and
//     diffs, results, plans from todo lists; tool-call ids are
//     "<turn>:<callId>" with turns counted from 1;
//   - prompts (prompt.go, convert.go): content blocks to input, the
//     built-in commands (/compact, /status, /mcp, /help), stop reasons,
//     the modes (default, plan, auto, yolo: permission mode and plan mode
//     together) and the config options (model; thinking, while the model
//     can think: off/on or off and its efforts, always-thinking models
//     without off; mode);
//   - approvals and questions (permission.go) through
//     session/request_permission;
//   - history replay (replay.go);
//   - the client file system (fsbridge.go): when the client offers
//     fs/read_text_file or fs/write_text_file, Read, Write and Edit read
//     the editor's buffers and write through the editor, each direction
//     only when offered, inside the session's directories only; every
//     other tool, and the session's own files, stay on the local disk;
//   - the client's MCP servers (server.go mcpServers): stdio, http and sse
//     entries become the session's caller servers, other types are
//     dropped with a warning; a prompt waits until they connected or
//     failed, each bounded by its startup timeout.
//
// It does not own the sessions, agents and tools (package session builds
// them; acp sees only session and event), the configuration (cmd/kimigo
// loads it) or logging (the command points the logger at the log file:
// nothing but protocol lines ever reaches stdout).
//
// Invariants, and the tests that guard them (server_test.go, with the
// SDK's client over pipes against llm/llmtest fakes; cmd/kimigo's
// acp_test.go and acp_scenarios_test.go with the npm client,
// testdata/client.mjs and testdata/scenarios.mjs, over the real process's
// stdio):
//   - Every line the server writes is a JSON-RPC message (the harness
//     parses each one).
//   - A turn runs on the session's context: a second prompt for a busy
//     session is refused with -32600 and does not cancel the first; only
//     session/cancel does, and the prompt then answers "cancelled" (S62).
//   - An approval is never granted without the client's answer: a client
//     error or a lost connection rejects, a cancelled turn withdraws the
//     request and the tool does not run (S61, S62).
//   - Notifications of a turn go out in event order, and all of them
//     before the prompt's response (S60); a load's replay goes out before
//     the load's response (S64).
//   - Sessions are independent: cancelling one leaves the others running
//     (TestTwoSessionsOneCancelled).
//   - With the client's file system, reads return the unsaved buffer,
//     writes leave the disk untouched, and a path outside the session's
//     directories is a tool error without a request (S63).
//   - The client's MCP servers start with the environment it gave, and
//     their tools reach the model (S66).
package acp
