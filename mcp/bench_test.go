package mcp_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/kimigo/kimigo/mcp"
	"github.com/kimigo/kimigo/mcp/mcptest"
)

// benchConnect measures Start to Wait for servers, closing them between
// iterations (not timed).
func benchConnect(b *testing.B, servers []mcp.Server) {
	for b.Loop() {
		m := mcp.New(mcp.Options{})
		m.Start(servers)
		if err := m.Wait(context.Background()); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		for _, in := range m.Servers() {
			if in.Status != mcp.StatusConnected {
				b.Fatalf("%s: %s %s", in.Name, in.Status, in.Error)
			}
		}
		_ = m.Close(context.Background())
		b.StartTimer()
	}
}

// BenchmarkConnectThree connects three stdio servers whose start takes
// 100, 200 and 300 ms: connected in parallel the total stays near the
// slowest, 300 ms plus the handshake, not their 600 ms sum.
func BenchmarkConnectThree(b *testing.B) {
	var servers []mcp.Server
	for i, d := range []time.Duration{100, 200, 300} {
		servers = append(servers, mcptest.Stdio(b, fmt.Sprint("s", i), mcptest.Spec{StartDelay: d * time.Millisecond,
			Tools: []mcptest.Tool{{Name: "t", Text: "x"}}}))
	}
	benchConnect(b, servers)
}

// BenchmarkConnectSlowestAlone is the slowest of the three on its own.
func BenchmarkConnectSlowestAlone(b *testing.B) {
	benchConnect(b, []mcp.Server{mcptest.Stdio(b, "s2", mcptest.Spec{StartDelay: 300 * time.Millisecond,
		Tools: []mcptest.Tool{{Name: "t", Text: "x"}}})})
}

// BenchmarkConnectNpmEverything connects one, then three, real
// server-everything processes over stdio.
func BenchmarkConnectNpmEverything(b *testing.B) {
	node, script := mcptest.NpmServer(b, mcptest.EverythingPackage)
	srv := func(name string) mcp.Server {
		return mcp.Server{Name: name, Transport: mcp.TransportStdio, Command: node, Args: []string{script, "stdio"},
			Trusted: true, StartupTimeout: 30 * time.Second}
	}
	b.Run("one", func(b *testing.B) { benchConnect(b, []mcp.Server{srv("a")}) })
	b.Run("three", func(b *testing.B) { benchConnect(b, []mcp.Server{srv("a"), srv("b"), srv("c")}) })
}
