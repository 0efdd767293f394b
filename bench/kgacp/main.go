//go:build linux

// Command kgacp measures `kimigo acp` as an editor sees it: it serves a
// loopback fake model (Chat Completions), starts the kimigo binary's ACP
// server N times with a fresh data root, drives it with the ACP Go SDK's
// client over the process's stdio, and reports the median, minimum and
// maximum of: process start → initialize response; session/new sent →
// first session/update; one prompt round trip (session/prompt → its
// response, one model request); and the RSS of the idle server holding
// two sessions. bench/acp.sh builds kimigo and runs it.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/kimigo/kimigo/acp/acptest"
)

func main() {
	bin := flag.String("kimigo", "", "the kimigo binary to measure (required)")
	runs := flag.Int("n", 20, "measured runs")
	flag.Parse()
	if *bin == "" {
		fatal(errors.New("-kimigo is required"))
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fatal(err)
	}
	go http.Serve(ln, http.HandlerFunc(answer))
	base := "http://" + ln.Addr().String() + "/v1"
	var init, first, prompt, rss []float64
	for i := 0; i < *runs+1; i++ { // the first run warms the caches and is not counted
		s, err := runOnce(*bin, base)
		if err != nil {
			fatal(err)
		}
		if i > 0 {
			init, first, prompt, rss = append(init, s.init), append(first, s.first), append(prompt, s.prompt), append(rss, s.rssMiB)
		}
	}
	fmt.Printf("%-40s %10s %10s %10s\n", fmt.Sprintf("kimigo acp (%d runs)", *runs), "median", "min", "max")
	row("start → initialize response (ms)", init)
	row("session/new → first update (ms)", first)
	row("prompt round trip (ms)", prompt)
	row("idle RSS, two sessions (MiB)", rss)
}

func row(name string, v []float64) {
	slices.Sort(v)
	med := v[len(v)/2]
	if len(v)%2 == 0 {
		med = (v[len(v)/2-1] + v[len(v)/2]) / 2
	}
	fmt.Printf("%-40s %10.2f %10.2f %10.2f\n", name, med, v[0], v[len(v)-1])
}

type sample struct{ init, first, prompt, rssMiB float64 }

// client is the editor's side: it notes the first session/update.
type client struct {
	acptest.NoTerminals
	update chan struct{}
}

func (c *client) SessionUpdate(context.Context, sdk.SessionNotification) error {
	select {
	case c.update <- struct{}{}:
	default:
	}
	return nil
}
func (c *client) RequestPermission(context.Context, sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
	return sdk.RequestPermissionResponse{Outcome: sdk.RequestPermissionOutcome{Cancelled: &sdk.RequestPermissionOutcomeCancelled{}}}, nil
}
func (c *client) ReadTextFile(context.Context, sdk.ReadTextFileRequest) (sdk.ReadTextFileResponse, error) {
	return sdk.ReadTextFileResponse{}, errors.New("not offered")
}
func (c *client) WriteTextFile(context.Context, sdk.WriteTextFileRequest) (sdk.WriteTextFileResponse, error) {
	return sdk.WriteTextFileResponse{}, errors.New("not offered")
}

func runOnce(bin, base string) (sample, error) {
	var s sample
	root, err := os.MkdirTemp("", "kgacp-")
	if err != nil {
		return s, err
	}
	defer os.RemoveAll(root)
	home, work := filepath.Join(root, "home"), filepath.Join(root, "work")
	for _, d := range []string{home, work} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return s, err
		}
	}
	cfg := fmt.Sprintf("default_model = \"fake\"\n[providers.fake]\ntype = \"openai\"\nbase_url = %q\n"+
		"[models.fake]\nprovider = \"fake\"\nmodel = \"fake-model\"\nmax_context_size = 100000\n", base)
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(cfg), 0o600); err != nil {
		return s, err
	}
	cmd := exec.Command(bin, "acp")
	cmd.Dir = work
	cmd.Env = []string{"KIMIGO_HOME=" + home, "HOME=" + root, "PATH=" + os.Getenv("PATH")}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return s, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return s, err
	}
	c := &client{update: make(chan struct{}, 1)}
	conn := sdk.NewClientSideConnection(c, stdin, bufio.NewReader(stdout))
	conn.SetLogger(slog.New(slog.DiscardHandler))
	ctx := context.Background()
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return s, err
	}
	defer func() { stdin.Close(); cmd.Wait() }()
	if _, err := conn.Initialize(ctx, sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber}); err != nil {
		return s, fmt.Errorf("initialize: %w", err)
	}
	s.init = ms(time.Since(start))
	t := time.Now()
	ns, err := conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: work, McpServers: []sdk.McpServer{}})
	if err != nil {
		return s, fmt.Errorf("session/new: %w", err)
	}
	<-c.update
	s.first = ms(time.Since(t))
	t = time.Now()
	resp, err := conn.Prompt(ctx, sdk.PromptRequest{SessionId: ns.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock("hi")}})
	if err != nil || resp.StopReason != sdk.StopReasonEndTurn {
		return s, fmt.Errorf("prompt: %v %v", resp.StopReason, err)
	}
	s.prompt = ms(time.Since(t))
	if _, err := conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: work, McpServers: []sdk.McpServer{}}); err != nil {
		return s, fmt.Errorf("second session/new: %w", err)
	}
	kib, err := rssKiB(cmd.Process.Pid)
	s.rssMiB = float64(kib) / 1024
	return s, err
}

// rssKiB is VmRSS of /proc/<pid>/status.
func rssKiB(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			return strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		}
	}
	return 0, errors.New("no VmRSS")
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// answer is the fake model: every request gets a short streamed answer.
func answer(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/event-stream")
	for _, c := range []struct {
		delta  map[string]any
		finish any
	}{{map[string]any{"role": "assistant", "content": "Done."}, nil}, {map[string]any{}, "stop"}} {
		chunk := map[string]any{"id": "chatcmpl-bench", "object": "chat.completion.chunk", "created": 0, "model": "fake-model",
			"choices": []any{map[string]any{"index": 0, "delta": c.delta, "finish_reason": c.finish}}}
		if c.finish != nil {
			chunk["usage"] = map[string]any{"prompt_tokens": 100, "completion_tokens": 5, "total_tokens": 105}
		}
		b, _ := json.Marshal(chunk)
		fmt.Fprintf(w, "data: %s\n\n", b)
	}
	fmt.Fprint(w, "data: [DONE]\n\n")
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "kgacp:", err)
	os.Exit(1)
}
