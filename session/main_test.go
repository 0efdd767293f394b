package session_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/kimigo/kimigo/config"
	"github.com/kimigo/kimigo/mcp/mcptest"
	"github.com/kimigo/kimigo/session"
)

// The lock test re-runs this test binary as a child process; helperEnv
// selects what the child does instead of running tests.
const (
	helperEnv        = "KIMIGO_SESSION_TEST_HELPER"
	helperRootEnv    = "KIMIGO_SESSION_TEST_ROOT"
	helperWorkDirEnv = "KIMIGO_SESSION_TEST_WORKDIR"
	helperIDEnv      = "KIMIGO_SESSION_TEST_ID"
	helperConfigEnv  = "KIMIGO_SESSION_TEST_CONFIG"
)

// childEnv is the environment of a helper child. The race detector's exit
// delay is turned off so that children end promptly.
func childEnv(mode string, r *rig, id string) []string {
	env := append(os.Environ(), helperEnv+"="+mode, helperRootEnv+"="+r.root,
		helperWorkDirEnv+"="+r.workDir, helperIDEnv+"="+id, helperConfigEnv+"="+r.cfgHome)
	return append(env, "GORACE="+strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
}

func TestMain(m *testing.M) {
	mcptest.Serve() // the MCP test servers re-execute this binary
	switch os.Getenv(helperEnv) {
	case "":
		os.Exit(m.Run())
	case "hold":
		os.Exit(helperHold())
	default:
		fmt.Fprintf(os.Stderr, "unknown %s=%q\n", helperEnv, os.Getenv(helperEnv))
		os.Exit(2)
	}
}

// helperHold resumes the session, says "locked" and keeps it open until
// stdin closes.
func helperHold() int {
	ctx := context.Background()
	cfg, _, err := config.Load(config.LoadOptions{Home: os.Getenv(helperConfigEnv), Env: config.Env{}})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	s, err := session.Open(ctx, session.Options{Config: cfg, Home: os.Getenv(helperRootEnv),
		WorkDir: os.Getenv(helperWorkDirEnv), Resume: os.Getenv(helperIDEnv)})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Println("locked")
	_, _ = bufio.NewReader(os.Stdin).ReadString('\n') // returns at EOF
	if err := s.Close(ctx); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}
