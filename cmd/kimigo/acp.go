package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/kimigo/kimigo/acp"
	"github.com/kimigo/kimigo/config"
	"github.com/kimigo/kimigo/osenv"
)

const acpUsage = `Usage: kimigo acp [--login]

Serve the Agent Client Protocol on stdin/stdout for an editor (Zed,
JetBrains, …). Logs go to $KIMIGO_HOME/logs/kimigo.log; stdout carries
protocol messages only.
`

// runACP is `kimigo acp` (spec 06 §8.1): the ACP server on the process's
// stdio until stdin ends or a signal arrives; then every session closes
// normally and the exit code is 0. A fatal error is reported as
// "acp server: fatal error: <err>" with exit code 1.
func runACP(args []string, env config.Env, p proc) int {
	for _, a := range args {
		switch a {
		case "-h", "--help":
			fmt.Fprint(p.stdout, acpUsage)
			return exitOK
		case "--login":
			fmt.Fprintln(p.stderr, "acp server: fatal error: the login flow is not available yet; set default_model and a provider in config.toml")
			return exitFailure
		default:
			return printUsageError(p.stderr, usagef("unknown option '%s' for 'acp'", a))
		}
	}
	fatal := func(err error) int {
		fmt.Fprintf(p.stderr, "acp server: fatal error: %v\n", err)
		return exitFailure
	}
	userHome, _ := p.userHome()
	home, err := config.HomeDir(env, userHome)
	if err != nil {
		return fatal(err)
	}
	wd, err := p.getwd()
	if err != nil {
		return fatal(fmt.Errorf("find the working directory: %w", err))
	}
	home = absolute(wd, home)
	logs := &logFile{}
	defer logs.Close()
	logs.switchTo(filepath.Join(home, "logs", "kimigo.log"))
	level := &slog.LevelVar{}
	logger := newLogger(logs, level)
	if err := config.EnsureHome(osenv.LocalFS{}, home); err != nil {
		return fatal(err)
	}
	cfg, warnings, err := config.Load(config.LoadOptions{Home: home, Env: env, Logger: logger})
	for _, w := range warnings {
		logger.Warn("config: " + w.Message)
	}
	if err != nil {
		return fatal(err)
	}
	level.Set(logLevel(cfg.Env.LogLevel))
	exe, err := os.Executable()
	if err != nil {
		exe = "kimigo"
	}
	ctx, _, stop := watchSignals(context.Background())
	defer stop()
	err = acp.Serve(ctx, acp.Options{Config: cfg, Home: home, HomeEnv: env["KIMIGO_HOME"], UserHome: userHome,
		Sandbox: sandboxFor(cfg, nil, false), Executable: exe, Version: versionString(), Logger: logger}, p.stdin, p.stdout)
	if err != nil {
		logger.Error("acp server: closing sessions", "err", err)
	}
	return exitOK
}
