package main

import "runtime/debug"

// version is set with -ldflags "-X main.version=…" in release builds.
var version = ""

// versionString is the version kimigo reports: the linked-in version, else
// the module version of a `go install`ed binary, else "dev".
func versionString() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

const usage = `kimigo — a terminal coding agent

Usage:
  kimigo [options] ["<prompt>"]    open the interactive interface in a terminal,
                                   with this first prompt when given
  kimigo -p "<prompt>" [options]   run one prompt and print the answer
  cat log | kimigo -p "<prompt>"   the prompt, then the piped text
  kimigo -p - < prompt.txt         the prompt from standard input
  kimigo sessions [--all] [--json] list sessions, newest first
  kimigo doctor [config|tui|local|sessions] [path]
                                   check the configuration files and
                                   permission rules, the sandbox; check and
                                   repair the session index
  kimigo export [session-id] [-o path] [-y] [--no-include-global-log]
                                   write a session to a ZIP for a bug report
  kimigo acp                       serve the Agent Client Protocol on stdio
                                   for an editor
  kimigo trust [dir]               let this project's .kimi-code/local.toml add
                                   directories outside it
  kimigo mcp list|get|add|remove   manage the MCP servers
  kimigo hooks [list|test <event>] show the hooks, or try one event's hooks
  kimigo login | logout            set up or remove a Kimi Platform API key

Options:
  -p, --print                  print mode: run the prompt headless, then exit
      --prompt <prompt>        print mode with this prompt (same as -p "<prompt>")
      --output-format <format> text (default: the answer only), json (one
                               result object at the end) or stream-json
  -m, --model <alias>          model alias from config.toml for this run
  -c, --continue               continue the latest session of this directory
  -r, --resume <id>            resume the session with this id (also -S, --session)
      --add-dir <dir>          add a workspace directory (repeatable)
      --agent <name>           agent profile of a new session
      --agent-file <path>      load an agent file and use the agent it defines
      --skills-dir <dir>       use these skill directories instead of discovery
      --sandbox <mode>         command sandbox: workspace-write (the default),
                               read-only or off
      --network                let sandboxed commands reach the network (off by
                               default in print mode, on in the interface)
      --permission-mode <mode> manual, yolo (print mode's default: asks are denied)
                               or auto; Claude's names are accepted too
      --allowedTools <rules>   allow rules for this run, e.g. "Bash(git log:*) Edit"
      --disallowedTools <rules>
                               deny rules for this run
  -y, --yolo                   run every tool call without approval and commands
                               without a sandbox (also --dangerously-skip-permissions)
      --auto                   start in auto permission mode (interactive only)
      --plan                   plan mode: the model plans, changes nothing, and the
                               plan is the answer
      --max-steps <n>          stop the run after n model steps (also --max-turns)
      --append-system-prompt <text>
                               add text to a new session's system prompt
      --verbose                show tool calls, results and retries on stderr
                               also when it is not a terminal
  -V, --version                print the version and exit
  -h, --help                   show this help and exit

With no model configured, kimigo runs on its built-in offline model.
Configuration: ~/.kimigo/config.toml (or $KIMIGO_HOME), or KIMI_MODEL_* variables.
Documentation: https://github.com/kimigo/kimigo#readme
`
