package mcp_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kimigo/kimigo/loop"
	"github.com/kimigo/kimigo/mcp"
	"github.com/kimigo/kimigo/mcp/mcptest"
)

// The real npm servers, not kimigo's fakes (issue 21): server-everything
// and server-filesystem over stdio, server-everything over streamable HTTP.

func uniqueMarker() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return "--kimigo-test=" + hex.EncodeToString(b)
}

func everything(t *testing.T, name string, extra ...string) mcp.Server {
	node, script := mcptest.NpmServer(t, mcptest.EverythingPackage)
	return mcp.Server{Name: name, Transport: mcp.TransportStdio, Command: node,
		Args: append([]string{script, "stdio"}, extra...), Trusted: true, StartupTimeout: 30 * time.Second}
}

func TestNpmEverythingOverStdio(t *testing.T) {
	srv := everything(t, "everything")
	// Long enough for node to answer on a loaded machine, short next to
	// the 5 s operation below.
	srv.ToolTimeout = 2 * time.Second
	m := start(t, mcp.Options{}, srv)
	if in := info(t, m, "everything"); in.Status != mcp.StatusConnected || in.ToolCount < 5 {
		t.Fatalf("server-everything = %+v", in)
	}
	res, err := call(t.Context(), t, tool(t, m, "mcp__everything__echo"), `{"message":"hello from kimigo"}`)
	if err != nil || !strings.Contains(res.Output.Text(), "hello from kimigo") {
		t.Errorf("echo = %v, %v", res.Output, err)
	}
	res, err = call(t.Context(), t, tool(t, m, "mcp__everything__get-tiny-image"), `{}`)
	if err != nil {
		t.Fatal(err)
	}
	var images int
	for _, p := range res.Output.Parts() {
		if p.IsMedia() && strings.HasPrefix(p.Media.URL, "data:image/png;base64,") {
			images++
		}
	}
	if images != 1 || !strings.Contains(res.Output.Text(), "MCP logo") {
		t.Errorf("get-tiny-image = %v; want its text and one PNG", res.Output)
	}
	_, err = call(t.Context(), t, tool(t, m, "mcp__everything__trigger-long-running-operation"), `{"duration":5,"steps":5}`)
	if err == nil || !strings.Contains(err.Error(), "timed out after 2000ms") {
		t.Errorf("a slow tool = %v; want the per-call timeout", err)
	}
	if in := info(t, m, "everything"); in.Status != mcp.StatusConnected {
		t.Errorf("after a timeout the server is %s", in.Status)
	}
	if res, err := call(t.Context(), t, tool(t, m, "mcp__everything__get-sum"), `{"a":2,"b":3}`); err != nil ||
		!strings.Contains(res.Output.Text(), "5") {
		t.Errorf("get-sum after the timeout = %v, %v", res.Output, err)
	}
}

// pidsWithArg finds the processes whose command line holds arg.
func pidsWithArg(t *testing.T, arg string) []int {
	t.Helper()
	entries, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range entries {
		var pid int
		if _, err := fmt.Sscan(e.Name(), &pid); err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && strings.Contains(string(b), arg) {
			pids = append(pids, pid)
		}
	}
	return pids
}

func TestNpmServerKilledMidCall(t *testing.T) {
	marker := uniqueMarker()
	m := start(t, mcp.Options{}, everything(t, "everything", marker))
	slow := tool(t, m, "mcp__everything__trigger-long-running-operation")
	echo := tool(t, m, "mcp__everything__echo")
	ex, _, _ := slow.ResolveExecution(json.RawMessage(`{"duration":30,"steps":30}`))
	progressed := make(chan loop.ProgressUpdate, 64)
	errc := make(chan error, 1)
	go func() {
		_, err := ex.Execute(t.Context(), loop.ExecCtx{ToolCallID: "c1",
			OnUpdate: func(u loop.ProgressUpdate) { progressed <- u }, OnForegroundTaskStart: func(string) {}})
		errc <- err
	}()
	u := <-progressed // the server is working on the call and reports its progress
	if u.Kind != loop.ProgressProgress || u.Percent == nil {
		t.Errorf("progress = %+v", u)
	}
	pids := pidsWithArg(t, marker)
	if len(pids) == 0 {
		t.Fatal("the server process is not found")
	}
	for _, pid := range pids {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	if err := <-errc; err == nil {
		t.Fatal("the call survived its server")
	}
	waitFor(t, "the server to be failed", func() bool { return info(t, m, "everything").Status == mcp.StatusFailed })
	if in := info(t, m, "everything"); !strings.Contains(in.Error, `MCP server "everything" closed unexpectedly`) {
		t.Errorf("error = %q", in.Error)
	}
	if len(m.Tools()) != 0 {
		t.Errorf("a dead server still offers %v", toolNames(m))
	}
	if _, err := call(t.Context(), t, echo, `{"message":"x"}`); err == nil {
		t.Error("a tool of the dead server worked")
	}
}

func TestNpmFilesystemOverStdio(t *testing.T) {
	node, script := mcptest.NpmServer(t, mcptest.FilesystemPackage)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("kimigo was here\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	m := start(t, mcp.Options{}, mcp.Server{Name: "fs", Transport: mcp.TransportStdio, Command: node,
		Args: []string{script, dir}, Trusted: true, StartupTimeout: 30 * time.Second})
	if in := info(t, m, "fs"); in.Status != mcp.StatusConnected {
		t.Fatalf("server-filesystem = %+v", in)
	}
	res, err := call(t.Context(), t, tool(t, m, "mcp__fs__list_directory"), fmt.Sprintf(`{"path":%q}`, dir))
	if err != nil || !strings.Contains(res.Output.Text(), "notes.txt") {
		t.Errorf("list_directory = %v, %v", res.Output, err)
	}
	res, err = call(t.Context(), t, tool(t, m, "mcp__fs__read_text_file"), fmt.Sprintf(`{"path":%q}`, filepath.Join(dir, "notes.txt")))
	if err != nil || !strings.Contains(res.Output.Text(), "kimigo was here") {
		t.Errorf("read_text_file = %v, %v", res.Output, err)
	}
	res, err = call(t.Context(), t, tool(t, m, "mcp__fs__read_text_file"), `{"path":"/etc/passwd"}`)
	if err != nil || !res.IsError {
		t.Errorf("a path outside the allowed directory = %v, %v; want the server's error result", res.Output, err)
	}
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func TestNpmEverythingOverStreamableHTTP(t *testing.T) {
	node, script := mcptest.NpmServer(t, mcptest.EverythingPackage)
	port := freePort(t)
	cmd := exec.Command(node, script, "streamableHttp")
	cmd.Env = append(os.Environ(), fmt.Sprintf("PORT=%d", port))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); _ = cmd.Wait() })
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	waitFor(t, "the HTTP server to listen", func() bool {
		c, err := net.DialTimeout("tcp", addr, 100*time.Millisecond)
		if err == nil {
			c.Close()
		}
		return err == nil
	})
	m := start(t, mcp.Options{}, mcp.Server{Name: "web", Transport: mcp.TransportHTTP,
		URL: "http://" + addr + "/mcp", Trusted: true, StartupTimeout: 30 * time.Second})
	if in := info(t, m, "web"); in.Status != mcp.StatusConnected {
		t.Fatalf("server-everything over HTTP = %+v", in)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	res, err := call(ctx, t, tool(t, m, "mcp__web__echo"), `{"message":"over the wire"}`)
	if err != nil || !strings.Contains(res.Output.Text(), "over the wire") {
		t.Errorf("echo over HTTP = %v, %v", res.Output, err)
	}
	res, err = call(ctx, t, tool(t, m, "mcp__web__get-tiny-image"), `{}`)
	if err != nil || len(res.Output.Parts()) < 2 {
		t.Errorf("get-tiny-image over HTTP = %v, %v", res.Output, err)
	}
}
