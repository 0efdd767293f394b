//go:build linux

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/kimigo/kimigo/agent/history"
	"github.com/kimigo/kimigo/agent/records"
	"github.com/kimigo/kimigo/session"
	"github.com/kimigo/kimigo/ui/term/termtest"
)

// tuiOptions shape the interface benchmark.
type tuiOptions struct {
	runs     int
	messages int           // the resumed session's history
	idle     time.Duration // how long the idle CPU is measured
	keys     int           // keystrokes timed per run
}

// tuiBench measures the interactive interface on a pseudo-terminal with
// a session of o.messages messages resumed: the time to the first frame,
// the CPU an idle interface uses, the time from a keystroke to the first
// byte of its frame, the frames per second while an answer streams, the
// keystrokes while a 10,000-line command output arrives, the peak RSS,
// and how long Esc takes to interrupt a long command. The figures are
// medians over o.runs runs.
func tuiBench(bin, tmp string, o tuiOptions) error {
	home, work := filepath.Join(tmp, "home"), filepath.Join(tmp, "work")
	for _, d := range []string{home, work} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	id, n, err := generateMessages(context.Background(), home, work, o.messages)
	if err != nil {
		return err
	}
	fmt.Printf("session %s: %d messages\n", id, n)
	base, err := serveTUIModel()
	if err != nil {
		return err
	}
	env := append(environment(tmp, home, base, wireOpenAI, 1_000_000), "TERM=xterm-256color")
	var first, ready, idleCPU, idleBytes, keyP50, keyP95, fps, outP95, rss, esc []float64
	for i := range o.runs {
		r, err := tuiRun(bin, work, env, id, o)
		if err != nil {
			return fmt.Errorf("run %d: %w", i+1, err)
		}
		first = append(first, ms(r.firstFrame))
		ready = append(ready, ms(r.ready))
		idleCPU = append(idleCPU, r.idleCPU)
		idleBytes = append(idleBytes, float64(r.idleBytes))
		keyP50, keyP95 = append(keyP50, ms(pct(r.keys, 50))), append(keyP95, ms(pct(r.keys, 95)))
		fps = append(fps, r.maxFPS)
		outP95 = append(outP95, ms(pct(r.keysUnderOutput, 95)))
		rss = append(rss, r.rssMiB)
		esc = append(esc, ms(r.escCancel))
		fmt.Printf("run %d: first frame %.1f ms, session shown %.1f ms, idle CPU %.3f%% (%d bytes drawn), keystroke p50 %.2f ms p95 %.2f ms, "+
			"streaming %.0f frames/s at most, keystroke p95 during a 10,000-line output %.2f ms, peak RSS %.1f MiB, "+
			"Esc to interrupted %.1f ms\n",
			i+1, ms(r.firstFrame), ms(r.ready), r.idleCPU, r.idleBytes, ms(pct(r.keys, 50)), ms(pct(r.keys, 95)), r.maxFPS,
			ms(pct(r.keysUnderOutput, 95)), r.rssMiB, ms(r.escCancel))
	}
	fmt.Printf("\nmedians over %d runs, session of %d messages:\n", o.runs, n)
	fmt.Printf("  first frame            %s ms   (target < 50)\n", statsOf(first))
	fmt.Printf("  session shown          %s ms   (the %d messages resumed and the last turns replayed)\n", statsOf(ready), n)
	fmt.Printf("  idle CPU over %v   %s %%    (target < 0.5)\n", o.idle, statsOf(idleCPU))
	fmt.Printf("  bytes drawn while idle %s\n", statsOf(idleBytes))
	fmt.Printf("  keystroke to screen    p50 %s ms, p95 %s ms   (target p95 < 8)\n", statsOf(keyP50), statsOf(keyP95))
	fmt.Printf("  streaming frames/s     %s   (target <= 30)\n", statsOf(fps))
	fmt.Printf("  keystroke p95 while a 10,000-line output arrives  %s ms\n", statsOf(outP95))
	fmt.Printf("  peak RSS               %s MiB   (target < 60)\n", statsOf(rss))
	fmt.Printf("  Esc during a command   %s ms until the turn shows interrupted   (target < 100)\n", statsOf(esc))
	return nil
}

func pct(d []time.Duration, p int) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	return s[min(len(s)-1, len(s)*p/100)]
}

// tuiResult is one run's figures.
type tuiResult struct {
	firstFrame      time.Duration
	ready           time.Duration // until the resumed session shows
	idleCPU         float64       // percent of one CPU
	idleBytes       int
	keys            []time.Duration
	keysUnderOutput []time.Duration
	maxFPS          float64
	rssMiB          float64
	escCancel       time.Duration // Esc during a long command until "Interrupted." shows
}

// screen is kimigo's side of the pseudo-terminal, read as it writes.
type screen struct {
	mu     sync.Mutex
	out    bytes.Buffer
	frames []time.Time   // when each frame (a synchronized update) was read
	wrote  chan struct{} // a token after each read
}

func (s *screen) read(r io.Reader) {
	buf := make([]byte, 64<<10)
	for {
		n, err := r.Read(buf)
		now := time.Now()
		s.mu.Lock()
		s.out.Write(buf[:n])
		for range bytes.Count(buf[:n], []byte(frameStart)) {
			s.frames = append(s.frames, now)
		}
		s.mu.Unlock()
		select {
		case s.wrote <- struct{}{}:
		default:
		}
		if err != nil {
			return
		}
	}
}

func (s *screen) len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.out.Len()
}

func (s *screen) since(off int) []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return bytes.Clone(s.out.Bytes()[off:])
}

// waitFor waits until what was written since off contains text.
func (s *screen) waitFor(off int, text string, limit time.Duration) error {
	deadline := time.After(limit)
	for {
		if bytes.Contains(s.since(off), []byte(text)) {
			return nil
		}
		select {
		case <-s.wrote:
		case <-deadline:
			return fmt.Errorf("no %q on the screen after %v", text, limit)
		}
	}
}

// nextWrite waits for the first bytes written after off and returns when
// they were read.
func (s *screen) nextWrite(off int, limit time.Duration) (time.Time, error) {
	deadline := time.After(limit)
	for {
		if s.len() > off {
			return time.Now(), nil
		}
		select {
		case <-s.wrote:
		case <-deadline:
			return time.Time{}, fmt.Errorf("nothing drawn %v after a keystroke", limit)
		}
	}
}

func tuiRun(bin, work string, env []string, id string, o tuiOptions) (tuiResult, error) {
	var r tuiResult
	ctl, tty, err := termtest.OpenPTY(100, 40)
	if err != nil {
		return r, err
	}
	defer ctl.Close()
	cmd := exec.Command(bin, "-r", id)
	cmd.Dir, cmd.Env = work, env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true}
	scr := &screen{wrote: make(chan struct{}, 1)}
	go scr.read(ctl)
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return r, err
	}
	tty.Close()
	defer cmd.Process.Kill()
	if err := scr.waitFor(0, "Type a message", 20*time.Second); err != nil {
		return r, err
	}
	r.firstFrame = time.Since(start)
	if err := scr.waitFor(0, "context:", 60*time.Second); err != nil { // the session is open
		return r, err
	}
	r.ready = time.Since(start)
	time.Sleep(time.Second) // let the start-up settle (the background colour reply, the git branch)

	// Idle: no input, no timer.
	cpu0, err := cpuTime(cmd.Process.Pid)
	if err != nil {
		return r, err
	}
	off := scr.len()
	t0 := time.Now()
	time.Sleep(o.idle)
	cpu1, _ := cpuTime(cmd.Process.Pid)
	r.idleCPU = 100 * float64(cpu1-cpu0) / float64(time.Since(t0))
	r.idleBytes = scr.len() - off

	// Keystrokes: type and erase, one key at a time.
	r.keys, err = keystrokes(ctl, scr, o.keys)
	if err != nil {
		return r, err
	}

	// A streamed answer: frames per second.
	off = scr.len()
	if _, err := io.WriteString(ctl, "stream:1500\r"); err != nil {
		return r, err
	}
	if err := scr.waitFor(off, "word1", 20*time.Second); err != nil {
		return r, err
	}
	streamStart := time.Now() // the typing's own frames are not streaming
	if err := scr.waitFor(off, "streamed-end", 60*time.Second); err != nil {
		return r, err
	}
	r.maxFPS = maxFrameRate(scr, streamStart)
	if err := scr.waitFor(off, "Type a message · / commands", 20*time.Second); err != nil {
		return r, err
	}

	// A 10,000-line command output while typing.
	off = scr.len()
	if _, err := io.WriteString(ctl, "bigoutput\r"); err != nil {
		return r, err
	}
	if err := scr.waitFor(off, "Running a command", 20*time.Second); err != nil {
		return r, err
	}
	r.keysUnderOutput, err = keystrokes(ctl, scr, 20)
	if err != nil {
		return r, err
	}
	if err := scr.waitFor(off, "big-end", 60*time.Second); err != nil {
		return r, err
	}
	r.rssMiB = peakRSSMiB(cmd.Process.Pid, 0)

	// Esc during a long command: until the turn shows as interrupted.
	if err := scr.waitFor(off, "Type a message · / commands", 20*time.Second); err != nil {
		return r, err
	}
	off = scr.len()
	if _, err := io.WriteString(ctl, "longcommand\r"); err != nil {
		return r, err
	}
	if err := scr.waitFor(off, "Running a command", 20*time.Second); err != nil {
		return r, err
	}
	time.Sleep(200 * time.Millisecond)
	off = scr.len()
	t := time.Now()
	if _, err := io.WriteString(ctl, "\x1b"); err != nil {
		return r, err
	}
	if err := scr.waitFor(off, "Interrupted.", 20*time.Second); err != nil {
		return r, err
	}
	r.escCancel = time.Since(t)

	io.WriteString(ctl, "\x03")
	time.Sleep(50 * time.Millisecond)
	io.WriteString(ctl, "\x03")
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			return r, fmt.Errorf("kimigo exited: %w", err)
		}
	case <-time.After(20 * time.Second):
		return r, fmt.Errorf("kimigo did not exit after Ctrl-C twice")
	}
	return r, nil
}

// keystrokes types n keys (a letter, then its erasure) and times each
// from the write to the first byte of the frame that shows it.
func keystrokes(ctl *os.File, scr *screen, n int) ([]time.Duration, error) {
	var out []time.Duration
	for i := range n {
		key := "a"
		if i%2 == 1 {
			key = "\x7f"
		}
		off := scr.len()
		t := time.Now()
		if _, err := io.WriteString(ctl, key); err != nil {
			return nil, err
		}
		at, err := scr.nextWrite(off, 5*time.Second)
		if err != nil {
			return nil, err
		}
		out = append(out, at.Sub(t))
		time.Sleep(time.Duration(20+rand.IntN(20)) * time.Millisecond) // not in step with any frame timer
	}
	return out, nil
}

// frameStart begins each frame kimigo draws (synchronized output).
const frameStart = "\x1b[?2026h"

// maxFrameRate is the most frames drawn in any one second from since.
func maxFrameRate(scr *screen, since time.Time) float64 {
	scr.mu.Lock()
	defer scr.mu.Unlock()
	var fs []time.Time
	for _, f := range scr.frames {
		if !f.Before(since) {
			fs = append(fs, f)
		}
	}
	most := 0
	for i := range fs {
		j := i
		for j < len(fs) && fs[j].Sub(fs[i]) < time.Second {
			j++
		}
		most = max(most, j-i)
	}
	return float64(most)
}

// cpuTime is a process's user and system time (Linux /proc).
func cpuTime(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+2:]))
	u, _ := strconv.ParseInt(f[11], 10, 64)
	s, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(u+s) * (time.Second / 100), nil // USER_HZ is 100 on Linux
}

// generateMessages writes a session of at least n messages (turns of
// three tool round trips with short outputs, no compaction) through the
// real records writer.
func generateMessages(ctx context.Context, home, workDir string, n int) (id string, count int, err error) {
	store := session.NewStore(session.StoreOptions{Root: home})
	sum, err := store.Create("", workDir, nil)
	if err != nil {
		return "", 0, err
	}
	p, err := records.OpenFile(records.FileOptions{Dir: filepath.Join(sum.Dir, "agents", "main")})
	if err != nil {
		return "", 0, err
	}
	g := &generator{log: records.NewLog(records.LogOptions{Persistence: p}), mem: history.New(history.Options{}),
		rnd: rand.New(rand.NewPCG(1, 2)), workDir: workDir,
		shape: hugeShape{stepsPerTurn: 3, outputBytes: 300, imageBytes: 0, imageEvery: 1 << 30}}
	err = g.header()
	for turn := 0; err == nil && len(g.mem.History()) < n; turn++ {
		err = g.turn(turn, false)
	}
	count = len(g.mem.History())
	if cerr := g.log.Close(ctx); err == nil {
		err = cerr
	}
	if err == nil {
		err = store.UpdateState(sum.Dir, func(st *session.State) error {
			st.Title, st.LastPrompt = "five thousand messages", g.lastPrompt
			return nil
		})
	}
	return sum.ID, count, err
}

// serveTUIModel starts a Chat Completions fake for the interface
// benchmark: "stream:N" is answered with N pieces of text 2 ms apart,
// ending "streamed-end"; "bigoutput" with a Bash call printing 10,000
// lines in 20 bursts, and its result with "big-end"; "longcommand" with a
// Bash call sleeping 30 s; anything else with "ok".
func serveTUIModel() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Messages []struct {
				Role    string          `json:"role"`
				Content json.RawMessage `json:"content"`
			} `json:"messages"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.Messages) == 0 {
			http.Error(w, `{"error":{"message":"bad json","type":"invalid_request_error"}}`, http.StatusBadRequest)
			return
		}
		out := newReplyWriter(w, wireOpenAI, 100)
		// The prompt is the last message that is not a reminder: a
		// session resumed in auto mode gets the mode's reminder after it.
		last := req.Messages[len(req.Messages)-1]
		for i := len(req.Messages) - 1; i > 0 && last.Role == "user" && bytes.Contains(last.Content, []byte("<system-reminder>")); i-- {
			last = req.Messages[i-1]
		}
		switch {
		case last.Role == "tool":
			out.text("big-end")
			out.finish(false)
		case bytes.Contains(last.Content, []byte("longcommand")):
			out.toolCall("call_long", "Bash", `{"command":"sleep 30"}`)
			out.finish(true)
		case bytes.Contains(last.Content, []byte("bigoutput")):
			// 10,000 lines in 20 bursts over about two seconds
			out.toolCall("call_big", "Bash", `{"command":"for i in $(seq 0 19); do seq $((i*500+1)) $((i*500+500)); sleep 0.1; done"}`)
			out.finish(true)
		case bytes.Contains(last.Content, []byte("stream:")):
			for i := range 1500 {
				out.text(fmt.Sprintf("word%d ", i))
				time.Sleep(2 * time.Millisecond)
			}
			out.text("streamed-end")
			out.finish(false)
		default:
			out.text("ok")
			out.finish(false)
		}
	})
	go func() { _ = http.Serve(ln, h) }()
	return "http://" + ln.Addr().String() + "/v1", nil
}
