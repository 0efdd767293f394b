package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kimigo/kimigo/agent/records"
	"github.com/kimigo/kimigo/llm/llmtest"
	"github.com/kimigo/kimigo/session"
)

// The hostile-conditions tests of issue 9 that run the built binary: a
// full disk, corrupt logs, two runs on one session, and bad input. Each
// failure must be reported in the startup error format (spec 06 §1.8) with
// exit code 1, name the path, say what to do, and leave the user's data as
// it was.

// mountTmpfs mounts a tmpfs of size bytes (with extra mount options) on
// dir, and unmounts it when the test ends. It skips the test, saying why,
// where mounting is not permitted.
func mountTmpfs(t *testing.T, dir string, size int, opts ...string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	o := strings.Join(append([]string{fmt.Sprintf("size=%d", size)}, opts...), ",")
	out, err := exec.Command("mount", "-t", "tmpfs", "-o", o, "tmpfs", dir).CombinedOutput()
	if err != nil {
		t.Skipf("this test needs a size-limited tmpfs, and mounting one is not permitted here "+
			"(mount -t tmpfs -o %s tmpfs %s: %v: %s); run it as root or with CAP_SYS_ADMIN", o, dir, err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", "-l", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v: %s", dir, err, out)
		}
	})
}

// checkStartupError checks the spec 06 §1.8 shape of a failed run: exit 1,
// "error: failed to run prompt: …" naming every want, a hint line, and
// the log line.
func checkStartupError(t *testing.T, r result, want ...string) {
	t.Helper()
	if r.code != 1 || !strings.Contains(r.stderr, "error: failed to run prompt: ") ||
		!strings.Contains(r.stderr, "\nhint: ") || !strings.Contains(r.stderr, "\nSee log: ") {
		t.Errorf("want exit 1 and a startup error with a hint; got %v", r)
	}
	for _, w := range want {
		if !strings.Contains(r.stderr, w) {
			t.Errorf("stderr lacks %q:\n%s", w, r.stderr)
		}
	}
}

// mainWire is the records file of session id's main agent.
func mainWire(t *testing.T, c *cli, id string) string {
	t.Helper()
	return filepath.Join(sessionDir(t, c, id), "agents", session.MainAgentID, records.LogFileName)
}

// rejected lists the requests the strict fake server refused.
func rejected(srv *llmtest.Server) []string {
	var out []string
	for i, req := range srv.Requests() {
		if req.Rejected != 0 {
			out = append(out, fmt.Sprintf("request %d: %d %s", i, req.Rejected, req.RejectReason))
		}
	}
	return out
}

// Point 1: with the data root on a small tmpfs, a tool fills the disk
// mid-turn and prints ten pages, so its result needs blocks the disk no
// longer has. Ten, not one: the result may first fill the spare room of
// wire.jsonl's last page, wherever the records before it happened to end,
// and a page comes free after the filler stopped when the command's own
// task record (agents/main/tasks/bash-*.json, dropped as a foreground
// command ends) was written before the filler took the disk, so a
// result of one or two pages would fit or not depending on the layout
// and the timing. The result's append fails: the run exits 1 at once,
// naming wire.jsonl and ENOSPC and saying what to do. Once space returns, -c
// resumes the same session with everything that was acknowledged: the
// prompt and the tool call, which gets a synthetic interrupted result, and
// the next request passes the strict fake server.
func TestRobustDiskFullOnTmpfs(t *testing.T) {
	c := newCLI(t)
	mountTmpfs(t, c.home, 4<<20)
	filler := filepath.Join(c.home, "filler")
	const printed = 10 * 4096 // under tools.BashOutputLimit, so all of it goes into the result
	srv := c.fake("openai",
		llmtest.ToolCall("call_fill", "Bash", fmt.Sprintf(`{"command":"dd if=/dev/zero of=%s bs=64k 2>/dev/null; head -c %d /dev/zero | tr '\\0' x"}`, filler, printed)),
		llmtest.Text("Resumed after the disk was full."))
	r := c.run("-p", "fill the disk", "--sandbox", "off") // the filler lies outside the work dir
	if r.code == 0 {
		t.Fatalf("a run that could not write its records exited 0:\n%v", r)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("%d requests; want 1: nothing is sent to the model with records not durable", n)
	}
	entries, err := filepath.Glob(filepath.Join(c.home, "sessions", "*", "*"))
	if err != nil || len(entries) != 1 {
		t.Fatalf("sessions = %v, %v", entries, err)
	}
	id := filepath.Base(entries[0])
	wire := mainWire(t, c, id)
	checkStartupError(t, r, "records.write_failed", wire, "no space left on device (ENOSPC)",
		"free space on the file system that holds "+wire, "kimigo -r "+id)

	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	r = c.run("-c", "-p", "go on")
	if r.code != 0 || r.stdout != "Resumed after the disk was full.\n" || resumeHint(t, r.stderr) != id {
		t.Fatalf("resume after the disk recovered:\n%v", r)
	}
	if rej := rejected(srv); len(rej) != 0 {
		t.Errorf("the strict server refused: %v", rej)
	}
	msgs := string(body(t, srv.Request(1))["messages"])
	for _, want := range []string{"fill the disk", "call_fill", "go on"} {
		if !strings.Contains(msgs, want) {
			t.Errorf("the resumed request lacks %q:\n%s", want, msgs)
		}
	}
}

// Point 3: a line torn in the middle of wire.jsonl (the result of a tool
// call) does not brick the session: -c warns naming the file and the
// line, keeps the line's bytes in wire.jsonl.quarantine, answers the call
// left without its result, and the next request passes the strict fake
// server on both wires.
func TestRobustCorruptLineInTheMiddle(t *testing.T) {
	for _, kind := range []string{"openai", "anthropic"} {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			c := newCLI(t)
			srv := c.fake(kind, llmtest.ToolCall("call_1", "Bash", `{"command":"echo hi"}`), llmtest.Text("done"),
				llmtest.Text("still here"))
			id := resumeHint(t, c.mustRun("-p", "say hi").stderr)
			wire := mainWire(t, c, id)
			data, err := os.ReadFile(wire)
			if err != nil {
				t.Fatal(err)
			}
			lines := bytes.SplitAfter(data, []byte("\n"))
			lineNo := 0
			for i, l := range lines {
				if bytes.Contains(l, []byte(`"type":"tool.result"`)) {
					lines[i] = append(l[:len(l)/2:len(l)/2], '\n')
					lineNo = i + 1
					break
				}
			}
			if lineNo == 0 || lineNo == len(lines) {
				t.Fatalf("no tool.result line in the middle of\n%s", data)
			}
			torn := lines[lineNo-1]
			if err := os.WriteFile(wire, bytes.Join(lines, nil), 0o600); err != nil {
				t.Fatal(err)
			}

			r := c.run("-c", "-p", "are you there?")
			if r.code != 0 || r.stdout != "still here\n" || resumeHint(t, r.stderr) != id {
				t.Fatalf("resume with a corrupt line:\n%v", r)
			}
			side := wire + records.QuarantineSuffix
			if want := fmt.Sprintf("Warning: skipped corrupt line %d of %s; its bytes were moved to %s\n", lineNo, wire, side); !strings.Contains(r.stderr, want) {
				t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
			}
			if b, err := os.ReadFile(side); err != nil || !bytes.Contains(b, torn) {
				t.Errorf("%s does not keep the torn line: %q, %v", side, b, err)
			}
			if rej := rejected(srv); len(rej) != 0 {
				t.Errorf("the strict server refused: %v", rej)
			}
			if msgs := string(body(t, srv.Request(2))["messages"]); !strings.Contains(msgs, "call_1") {
				t.Errorf("the resumed request lost the call:\n%s", msgs)
			}
			// A second resume has nothing left to quarantine.
			c.fake(kind, llmtest.Text("again"))
			if r := c.mustRun("-c", "-p", "once more"); strings.Contains(r.stderr, "corrupt") {
				t.Errorf("the second resume warned again:\n%s", r.stderr)
			}
		})
	}
}

// Point 3, the index: a garbled line in the middle of session_index.jsonl
// is skipped (its bytes copied to the side file) and sessions still
// resume; `kimigo doctor` reports the line and the entry it cost, moves the
// line out and rebuilds the entry from the session directory; a second
// doctor has nothing to do.
func TestRobustCorruptIndexAndDoctor(t *testing.T) {
	c := newCLI(t)
	c.fake("openai", llmtest.Text("one"), llmtest.Text("two"), llmtest.Text("three"))
	first := resumeHint(t, c.mustRun("-p", "first").stderr)
	second := resumeHint(t, c.mustRun("-p", "second").stderr)
	index := filepath.Join(c.home, session.IndexFileName)
	data, err := os.ReadFile(index)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	if len(lines) != 3 || !strings.Contains(lines[0], first) { // two entries and the empty rest
		t.Fatalf("index = %q", data)
	}
	garbled := lines[0][:len(lines[0])/3] + "\x00\n"
	if err := os.WriteFile(index, []byte(garbled+lines[1]), 0o600); err != nil {
		t.Fatal(err)
	}

	r := c.mustRun("-S", first, "-p", "third")
	if resumeHint(t, r.stderr) != first {
		t.Errorf("resumed the wrong session:\n%v", r)
	}
	side := index + session.IndexQuarantineSuffix
	if b, _ := os.ReadFile(side); !strings.Contains(string(b), garbled) {
		t.Errorf("side file = %q; want the garbled line", b)
	}
	if want := fmt.Sprintf("Warning: skipped corrupt line 1 of %s; its bytes were copied to %s\n", index, side); !strings.Contains(r.stderr, want) {
		t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
	}

	r = c.run("doctor", "sessions")
	want := fmt.Sprintf("OK sessions     %s\n  Line 1 was corrupt; moved it to %s.\n  Rebuilt 1 missing entry from the session directories.\n", index, side)
	if r.code != 0 || !strings.Contains(r.stdout, want) {
		t.Errorf("doctor sessions: want %q in\n%v", want, r)
	}
	after, _ := os.ReadFile(index)
	if strings.Contains(string(after), "\x00") || !strings.Contains(string(after), first) || !strings.Contains(string(after), second) {
		t.Errorf("index after doctor = %q", after)
	}
	if r := c.run("doctor", "sessions"); r.code != 0 || !strings.Contains(r.stdout, "OK sessions     "+index+"\n\n") {
		t.Errorf("second doctor:\n%v", r)
	}
	// Found by id from another directory, through the rebuilt index.
	other := filepath.Join(c.root, "elsewhere")
	os.MkdirAll(other, 0o755)
	if r := c.runIn(other, "", "-S", first, "-p", "x"); r.code != 1 ||
		!strings.Contains(r.stderr, fmt.Sprintf("Session %q was created under a different directory.", first)) {
		t.Errorf("-S from another directory:\n%v", r)
	}
}

// Point 4: while one `kimigo -c -p` waits for its model, a second one in
// the same directory is refused with the session id and the first one's
// pid, and writes nothing. The first is then killed with SIGKILL: its lock
// is stale, and the next -c takes the session over and continues it.
func TestRobustOneWriterPerSession(t *testing.T) {
	c := newCLI(t)
	srv := c.fake("openai", llmtest.Text("first answer"),
		llmtest.Text("too late").WithFault(llmtest.Fault{FirstByteDelay: time.Minute}),
		llmtest.Text("taken over"))
	id := resumeHint(t, c.mustRun("-p", "first").stderr)
	wire := mainWire(t, c, id)

	a := c.command(c.dir, "-c", "-p", "slow")
	var aOut, aErr bytes.Buffer
	a.Stdout, a.Stderr = &aOut, &aErr
	if err := a.Start(); err != nil {
		t.Fatal(err)
	}
	killed := false
	defer func() {
		if !killed {
			a.Process.Kill()
			a.Wait()
		}
	}()
	deadline := time.Now().Add(30 * time.Second)
	for len(srv.Requests()) < 2 {
		if time.Now().After(deadline) {
			t.Fatalf("the first run never asked the model:\n%s%s", aOut.String(), aErr.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	before, err := os.ReadFile(wire)
	if err != nil {
		t.Fatal(err)
	}

	b := c.run("-c", "-p", "second")
	checkStartupError(t, b, fmt.Sprintf("session %s is open in another process (pid %d)", id, a.Process.Pid),
		fmt.Sprintf("wait for the other kimigo (pid %d) to finish", a.Process.Pid))
	if after, _ := os.ReadFile(wire); !bytes.Equal(before, after) {
		t.Errorf("the refused run changed %s", wire)
	}
	if n := len(srv.Requests()); n != 2 {
		t.Errorf("%d requests; the refused run must not call the model", n)
	}

	if err := a.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	a.Wait()
	killed = true
	lock := filepath.Join(sessionDir(t, c, id), session.LockFileName)
	if b, err := os.ReadFile(lock); err != nil || strings.TrimSpace(string(b)) != fmt.Sprint(a.Process.Pid) {
		t.Fatalf("the killed run's lock file = %q, %v; want its pid (a stale lock)", b, err)
	}
	r := c.run("-c", "-p", "third")
	if r.code != 0 || r.stdout != "taken over\n" || resumeHint(t, r.stderr) != id {
		t.Fatalf("taking over the stale lock:\n%v", r)
	}
	msgs := string(body(t, srv.Request(2))["messages"])
	for _, want := range []string{"first", "slow", "third"} {
		if !strings.Contains(msgs, want) {
			t.Errorf("the request after the takeover lacks %q:\n%s", want, msgs)
		}
	}
	if rej := rejected(srv); len(rej) != 0 {
		t.Errorf("the strict server refused: %v", rej)
	}
	checkWholeLines(t, wire)
}

// checkWholeLines fails unless every line of the log is one JSON object:
// no interleaved or torn writes.
func checkWholeLines(t *testing.T, wire string) {
	t.Helper()
	data, err := os.ReadFile(wire)
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		var v map[string]any
		if err := json.Unmarshal([]byte(l), &v); err != nil {
			t.Errorf("line %d of %s is not a record: %v\n%s", i+1, wire, err, l)
		}
	}
}

// Bad input: each case fails with exit 1 in the startup error format,
// naming the path and saying what to do, and leaves the user's data
// byte for byte as it was.
func TestRobustBadInput(t *testing.T) {
	t.Run("data root not writable", func(t *testing.T) {
		c := newCLI(t)
		if os.Geteuid() == 0 { // root writes through permission bits: make it read-only for real
			mountTmpfs(t, c.home, 1<<20, "ro")
		} else {
			if err := os.MkdirAll(c.home, 0o500); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.Chmod(c.home, 0o700) })
		}
		c.fake("openai", llmtest.Text("never"))
		r := c.run("-p", "hi")
		// No "See log": the log could not be written either (issue 15
		// item 11).
		if r.code != 1 || !strings.Contains(r.stderr, "error: failed to run prompt: ") ||
			!strings.Contains(r.stderr, "\nhint: ") || strings.Contains(r.stderr, "See log") {
			t.Errorf("want exit 1 and a startup error with a hint and no log; got %v", r)
		}
		for _, w := range []string{c.home + string(filepath.Separator), "read-only file system", "kimigo cannot write",
			"make the data root " + c.home + " writable, or set KIMIGO_HOME to a writable directory"} {
			if !strings.Contains(r.stderr, w) {
				t.Errorf("stderr lacks %q:\n%s", w, r.stderr)
			}
		}
		if files := tree(t, c.home); len(files) != 0 {
			t.Errorf("files appeared in the read-only root: %v", files)
		}
	})

	t.Run("session directory deleted while kimigo runs", func(t *testing.T) {
		c := newCLI(t)
		sessions := filepath.Join(c.home, "sessions")
		srv := c.fake("openai", llmtest.ToolCall("call_rm", "Bash", fmt.Sprintf(`{"command":"rm -rf %s"}`, sessions)),
			llmtest.Text("never"))
		r := c.run("-p", "delete my sessions", "--sandbox", "off") // the sessions lie outside the work dir
		checkStartupError(t, r, "records.write_failed", filepath.Join("agents", "main", records.LogFileName),
			"was deleted or replaced while kimigo ran; kimigo recreated nothing")
		if _, err := os.Stat(sessions); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("the deleted sessions directory came back: %v", err)
		}
		if n := len(srv.Requests()); n != 1 {
			t.Errorf("%d requests; want 1", n)
		}
	})

	t.Run("log replaced by a directory", func(t *testing.T) {
		c := newCLI(t)
		c.fake("openai", llmtest.Text("one"), llmtest.Text("never"))
		id := resumeHint(t, c.mustRun("-p", "first").stderr)
		wire := mainWire(t, c, id)
		if err := os.Rename(wire, wire+".bak"); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(wire, "keep"), 0o700); err != nil {
			t.Fatal(err)
		}
		before := tree(t, c.home)
		r := c.run("-c", "-p", "second")
		checkStartupError(t, r, wire, "must be a file but is a directory", "kimigo deletes nothing")
		after := tree(t, c.home)
		for p, data := range before {
			if strings.HasPrefix(p, filepath.Join(c.home, "logs")) || strings.HasSuffix(p, session.LockFileName) ||
				strings.Contains(p, filepath.Join(sessionDir(t, c, id), "logs")) {
				continue // diagnostic logs and lock pids
			}
			if after[p] != data {
				t.Errorf("%s changed", p)
			}
		}
		if fi, err := os.Stat(filepath.Join(wire, "keep")); err != nil || !fi.IsDir() {
			t.Errorf("the directory's content is gone: %v", err)
		}
	})

	t.Run("log from a newer kimigo", func(t *testing.T) {
		c := newCLI(t)
		c.fake("openai", llmtest.Text("one"), llmtest.Text("never"))
		id := resumeHint(t, c.mustRun("-p", "first").stderr)
		wire := mainWire(t, c, id)
		newer := `{"type":"metadata","protocol_version":"2.0","created_at":1}` + "\n" + `{"type":"turn.future","x":1,"time":2}` + "\n"
		if err := os.WriteFile(wire, []byte(newer), 0o600); err != nil {
			t.Fatal(err)
		}
		for _, args := range [][]string{{"-c", "-p", "second"}, {"-S", id, "-p", "second"}} {
			r := c.run(args...)
			checkStartupError(t, r, fmt.Sprintf("session %s was written by a newer kimigo", id), wire,
				"records protocol 2.0", "upgrade kimigo to resume this session")
		}
		if b, _ := os.ReadFile(wire); string(b) != newer {
			t.Errorf("the newer log changed to %q", b)
		}
		if _, err := os.Stat(wire + records.QuarantineSuffix); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("the newer log got a quarantine file: %v", err)
		}
	})
}
