package hooks_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kimigo/kimigo/hooks"
	"github.com/kimigo/kimigo/osenv"
)

// engine builds an engine over the local OS for the given hooks, with
// session "s1" and cwd dir.
func engine(t *testing.T, dir string, hs ...hooks.Hook) *hooks.Engine {
	t.Helper()
	e := hooks.New(hooks.Options{Hooks: hs, SessionID: "s1", Cwd: dir,
		Env: osenv.NewLocal(osenv.LocalOptions{Cwd: dir})})
	t.Cleanup(func() { _ = e.Close(context.Background()) })
	return e
}

func toolInput(name, args string) map[string]any {
	return map[string]any{"toolName": name, "toolInput": json.RawMessage(args), "toolCallId": "c1"}
}

// groupGone reports whether the process group pgid has no live member,
// waiting up to five seconds for one: a member the engine killed may still
// be exiting when the call that killed it returns (the engine waits for
// the group's leader only). A killed member stays a zombie until its new
// parent reaps it, which in a container may take a while, so zombies
// count as gone (Linux /proc).
func groupGone(pgid int) bool {
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if gone := groupGoneNow(pgid); gone || time.Now().After(deadline) {
			return gone
		}
	}
}

func groupGoneNow(pgid int) bool {
	if errors.Is(syscall.Kill(-pgid, 0), syscall.ESRCH) {
		return true
	}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return false
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue // not a process, or gone meanwhile
		}
		// pid (comm) state ppid pgrp …; comm may hold spaces and parentheses.
		rest := string(b[strings.LastIndexByte(string(b), ')')+1:])
		f := strings.Fields(rest)
		if len(f) >= 3 && f[2] == strconv.Itoa(pgid) && f[0] != "Z" {
			return false
		}
	}
	return true
}

func readPid(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("the hook did not record its pid: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatalf("pid file %q: %v", b, err)
	}
	return pid
}

func TestDecisionTable(t *testing.T) {
	for _, tt := range []struct {
		name    string
		command string
		want    hooks.Result // only the decision fields are compared
	}{
		{"exit 2 blocks with stderr", `echo "  no way " >&2; exit 2`,
			hooks.Result{Action: hooks.Block, Reason: "no way", Message: "no way", ExitCode: 2}},
		{"exit 2 with empty stderr blocks", `exit 2`,
			hooks.Result{Action: hooks.Block, ExitCode: 2}},
		{"json deny on exit 0 blocks", `echo '{"hookSpecificOutput":{"permissionDecision":"deny","permissionDecisionReason":"use rg"}}'`,
			hooks.Result{Action: hooks.Block, Reason: "use rg", Structured: true}},
		{"json deny on exit 1 allows", `echo '{"hookSpecificOutput":{"permissionDecision":"deny"}}'; exit 1`,
			hooks.Result{Action: hooks.Allow, ExitCode: 1}},
		{"json message wins over the specific one", `echo '{"message":"top","hookSpecificOutput":{"message":"inner"}}'`,
			hooks.Result{Action: hooks.Allow, Message: "top", Structured: true}},
		{"specific message when no top-level one", `echo '{"hookSpecificOutput":{"message":"inner"}}'`,
			hooks.Result{Action: hooks.Allow, Message: "inner", Structured: true}},
		{"numbers and booleans are stringified", `echo '{"message":42.5}'`,
			hooks.Result{Action: hooks.Allow, Message: "42.5", Structured: true}},
		{"a non-object hookSpecificOutput is ignored", `echo '{"hookSpecificOutput":"deny"}'`,
			hooks.Result{Action: hooks.Allow, Structured: true}},
		{"plain stdout allows", `echo branch: main`,
			hooks.Result{Action: hooks.Allow}},
		{"exit 3 allows", `echo boom >&2; exit 3`,
			hooks.Result{Action: hooks.Allow, ExitCode: 3}},
		{"a missing command allows", `/definitely/not/here`,
			hooks.Result{Action: hooks.Allow, ExitCode: 127}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := engine(t, t.TempDir(), hooks.Hook{Event: hooks.PreToolUse, Command: tt.command})
			rs := e.Trigger(t.Context(), hooks.PreToolUse, "Bash", toolInput("Bash", `{}`))
			if len(rs) != 1 {
				t.Fatalf("Trigger returned %d results; want 1", len(rs))
			}
			r := rs[0]
			got := hooks.Result{Action: r.Action, Reason: r.Reason, Message: r.Message, ExitCode: r.ExitCode,
				Structured: r.Structured}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("decision (-want +got):\n%s\nstdout %q stderr %q err %v", d, r.Stdout, r.Stderr, r.Err)
			}
		})
	}
}

func TestScenario44EngineBlocksADangerousCommand(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "check.sh")
	if err := os.WriteFile(script, []byte(`#!/bin/sh
input=$(cat)
case "$input" in
*"rm -rf"*) echo "Dangerous command blocked" >&2; exit 2;;
esac
exit 0
`), 0o755); err != nil {
		t.Fatal(err)
	}
	e := engine(t, dir, hooks.Hook{Event: hooks.PreToolUse, Matcher: "^Bash$", Command: script})
	d := e.TriggerBlock(t.Context(), hooks.PreToolUse, "Bash", toolInput("Bash", `{"command":"rm -rf build"}`))
	if d == nil || d.Reason != "Dangerous command blocked" {
		t.Fatalf("TriggerBlock(rm -rf) = %+v; want a block with the script's reason", d)
	}
	if d := e.TriggerBlock(t.Context(), hooks.PreToolUse, "Bash", toolInput("Bash", `{"command":"ls"}`)); d != nil {
		t.Errorf("TriggerBlock(ls) = %+v; want none", d)
	}
	if rs := e.Trigger(t.Context(), hooks.PreToolUse, "Read", toolInput("Read", `{"path":"a"}`)); len(rs) != 0 {
		t.Errorf("a Read call ran %d hooks; the matcher ^Bash$ should match none", len(rs))
	}
}

func TestScenario45InputPayload(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "stdin.json")
	e := engine(t, dir, hooks.Hook{Event: hooks.PreToolUse, Command: "cat > " + out})
	e.Trigger(t.Context(), hooks.PreToolUse, "Read", toolInput("Read", `{"path": "a.txt"}`))
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]json.RawMessage
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatalf("stdin is not a JSON object: %v\n%s", err, b)
	}
	want := map[string]string{
		"hook_event_name": `"PreToolUse"`,
		"session_id":      `"s1"`,
		"cwd":             strconv.Quote(dir),
		"tool_name":       `"Read"`,
		"tool_input":      `{"path":"a.txt"}`, // the arguments with their own names (compacted)
		"tool_call_id":    `"c1"`,
	}
	gotS := map[string]string{}
	for k, v := range got {
		gotS[k] = string(v)
	}
	if d := cmp.Diff(want, gotS); d != "" {
		t.Errorf("hook stdin (-want +got):\n%s", d)
	}
}

func TestScenario46(t *testing.T) {
	deny := `{"hookSpecificOutput":{"permissionDecision":"deny","permissionDecisionReason":"use rg"}}`
	for _, tt := range []struct {
		name, command, want string // want "" means no block
	}{
		{"json deny", "echo '" + deny + "'", "use rg"},
		{"the same json with exit 1", "echo '" + deny + "'; exit 1", ""},
		{"exit 2 with empty stderr", "exit 2", "Blocked by PreToolUse hook"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := engine(t, t.TempDir(), hooks.Hook{Event: hooks.PreToolUse, Command: tt.command})
			d := e.TriggerBlock(t.Context(), hooks.PreToolUse, "Grep", toolInput("Grep", `{}`))
			got := ""
			if d != nil {
				got = d.Reason
			}
			if got != tt.want {
				t.Errorf("block reason = %q; want %q", got, tt.want)
			}
		})
	}
}

func TestScenario47TimeoutKillsTheGroup(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "pid")
	e := engine(t, dir, hooks.Hook{Event: hooks.PreToolUse, Command: "echo $$ > " + pidFile + "; sleep 10; sleep 10",
		Timeout: 300 * time.Millisecond})
	rs := e.Trigger(t.Context(), hooks.PreToolUse, "Bash", toolInput("Bash", `{}`))
	if len(rs) != 1 || !rs[0].TimedOut || rs[0].Action != hooks.Allow {
		t.Fatalf("results = %+v; want one timed-out allow", rs)
	}
	if d := hooks.Decide(hooks.PreToolUse, rs); d != nil {
		t.Errorf("a timed-out hook blocked: %+v", d)
	}
	if pgid := readPid(t, pidFile); !groupGone(pgid) {
		t.Errorf("process group %d still has members after the timeout", pgid)
	}
}

func TestScenario47FailOpen(t *testing.T) {
	dir := t.TempDir()
	ran := filepath.Join(dir, "ran")
	e := engine(t, dir,
		hooks.Hook{Event: hooks.PreToolUse, Command: "no-such-command-for-kimigo-tests"},
		hooks.Hook{Event: hooks.PreToolUse, Matcher: "(", Command: "touch " + ran},
	)
	rs := e.Trigger(t.Context(), hooks.PreToolUse, "Bash", toolInput("Bash", `{}`))
	if d := hooks.Decide(hooks.PreToolUse, rs); d != nil {
		t.Errorf("a missing command blocked: %+v", d)
	}
	if len(rs) != 1 {
		t.Errorf("%d hooks ran; the one with the invalid matcher must never run", len(rs))
	}
	if _, err := os.Stat(ran); err == nil {
		t.Error("the hook with matcher ( ran")
	}
	if got := e.Matching(hooks.PreToolUse, "("); len(got) != 1 {
		t.Errorf("Matching(\"(\") = %v; the invalid matcher matches nothing, not even its own text", got)
	}
}

func TestCancelKillsTheHook(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "pid")
	started := filepath.Join(dir, "started")
	e := engine(t, dir, hooks.Hook{Event: hooks.Stop,
		Command: "echo $$ > " + pidFile + "; touch " + started + "; sleep 30"})
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan []hooks.Result, 1)
	go func() { done <- e.Trigger(ctx, hooks.Stop, "", nil) }()
	waitForFile(t, started)
	cancel()
	rs := <-done
	if len(rs) != 1 || rs[0].Action != hooks.Allow || rs[0].Err == nil {
		t.Fatalf("results = %+v; want one cancelled allow", rs)
	}
	if pgid := readPid(t, pidFile); !groupGone(pgid) {
		t.Errorf("process group %d survived the cancellation", pgid)
	}
}

// waitForFile waits until path exists: the hook signals that it started.
// It polls the file system, bounded by the test's deadline.
func waitForFile(t *testing.T, path string) {
	t.Helper()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		if _, err := os.Stat(path); err == nil {
			return
		}
		select {
		case <-t.Context().Done():
			t.Fatalf("%s never appeared", path)
		case <-tick.C:
		}
	}
}

func TestScenario50ParallelAndDedup(t *testing.T) {
	dir := t.TempDir()
	// Each hook waits until the other has started: run one after the
	// other, the first would time out.
	wait := func(me, other string) string {
		return "touch " + filepath.Join(dir, me) + "; i=0; while [ ! -e " + filepath.Join(dir, other) +
			" ]; do i=$((i+1)); [ $i -gt 400 ] && exit 9; sleep 0.01; done; echo " + me
	}
	log := filepath.Join(dir, "log")
	dup := "echo once >> " + log
	e := engine(t, dir,
		hooks.Hook{Event: hooks.PostToolUse, Command: wait("a", "b"), Timeout: 10 * time.Second},
		hooks.Hook{Event: hooks.PostToolUse, Command: dup},
		hooks.Hook{Event: hooks.PostToolUse, Command: wait("b", "a"), Timeout: 10 * time.Second},
		hooks.Hook{Event: hooks.PostToolUse, Command: dup},
	)
	rs := e.Trigger(t.Context(), hooks.PostToolUse, "Bash", toolInput("Bash", `{}`))
	var got []string
	for _, r := range rs {
		if r.ExitCode != 0 || r.TimedOut {
			t.Errorf("hook %q: exit %d, timed out %v; the two waiting hooks must run at the same time",
				r.Hook.Command, r.ExitCode, r.TimedOut)
		}
		got = append(got, strings.TrimSpace(r.Stdout))
	}
	if d := cmp.Diff([]string{"a", "", "b"}, got); d != "" {
		t.Errorf("results in definition order, duplicate once (-want +got):\n%s", d)
	}
	b, _ := os.ReadFile(log)
	if string(b) != "once\n" {
		t.Errorf("the duplicated command wrote %q; want it to run once", b)
	}
}

func TestFirstBlockInDefinitionOrderDecides(t *testing.T) {
	e := engine(t, t.TempDir(),
		hooks.Hook{Event: hooks.PreToolUse, Command: "echo ok"},
		hooks.Hook{Event: hooks.PreToolUse, Command: "sleep 0.2; echo first >&2; exit 2"},
		hooks.Hook{Event: hooks.PreToolUse, Command: "echo second >&2; exit 2"},
	)
	if d := e.TriggerBlock(t.Context(), hooks.PreToolUse, "Bash", nil); d == nil || d.Reason != "first" {
		t.Errorf("decision = %+v; want the first blocking hook in definition order, not the first to finish", d)
	}
}

func TestScenario51SessionStartMatcher(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "source")
	e := engine(t, dir,
		hooks.Hook{Event: hooks.SessionStart, Matcher: "^resume$", Command: "cat > " + out},
		hooks.Hook{Event: hooks.SessionStart, Command: "exit 1"},
	)
	if d := e.TriggerBlock(t.Context(), hooks.SessionStart, "startup", map[string]any{"source": "startup"}); d != nil {
		t.Errorf("a failing SessionStart hook blocked: %+v", d)
	}
	if _, err := os.Stat(out); err == nil {
		t.Fatal("the ^resume$ hook ran on startup")
	}
	e.Trigger(t.Context(), hooks.SessionStart, "resume", map[string]any{"source": "resume"})
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("the ^resume$ hook did not run on resume: %v", err)
	}
	var in struct {
		Source string `json:"source"`
		Event  string `json:"hook_event_name"`
	}
	if err := json.Unmarshal(b, &in); err != nil || in.Source != "resume" || in.Event != "SessionStart" {
		t.Errorf("stdin = %s; want source resume", b)
	}
}

func TestProjectHooksNeedTrust(t *testing.T) {
	dir := t.TempDir()
	ran := filepath.Join(dir, "ran")
	h := hooks.Hook{Event: hooks.PreToolUse, Command: "touch " + ran, Source: hooks.SourceProject}
	untrusted := hooks.New(hooks.Options{Hooks: []hooks.Hook{h}, Cwd: dir})
	if untrusted.Has(hooks.PreToolUse) || len(untrusted.Hooks()) != 0 {
		t.Error("an untrusted workspace kept its project hook")
	}
	untrusted.Trigger(t.Context(), hooks.PreToolUse, "Bash", nil)
	if _, err := os.Stat(ran); err == nil {
		t.Fatal("a project hook ran in an untrusted workspace")
	}
	trusted := hooks.New(hooks.Options{Hooks: []hooks.Hook{h}, Cwd: dir, Trusted: true})
	trusted.Trigger(t.Context(), hooks.PreToolUse, "Bash", nil)
	if _, err := os.Stat(ran); err != nil {
		t.Error("a project hook did not run in a trusted workspace")
	}
}

func TestFireAndForgetIsTrackedUntilClose(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	e := hooks.New(hooks.Options{Cwd: dir, Hooks: []hooks.Hook{{Event: hooks.PostToolUse, Command: "sleep 0.1; echo done > " + out}}})
	e.FireAndForget(hooks.PostToolUse, "Bash", toolInput("Bash", `{}`))
	if err := e.Close(t.Context()); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(out); string(b) != "done\n" {
		t.Errorf("Close returned before the fired hook finished: %q", b)
	}
	e.FireAndForget(hooks.PostToolUse, "Bash", nil) // after Close: starts nothing, does not panic
}

func TestCloseKillsHooksThatOutliveItsContext(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "pid")
	e := hooks.New(hooks.Options{Cwd: dir, Hooks: []hooks.Hook{{Event: hooks.SessionEnd,
		Command: "echo $$ > " + pidFile + ".tmp; mv " + pidFile + ".tmp " + pidFile + "; sleep 30"}}})
	e.FireAndForget(hooks.SessionEnd, "exit", map[string]any{"reason": "exit"})
	waitForFile(t, pidFile)
	ctx, cancel := context.WithCancel(t.Context())
	cancel() // nothing left to wait for
	if err := e.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if pgid := readPid(t, pidFile); !groupGone(pgid) {
		t.Errorf("Close left the hook's group %d running", pgid)
	}
}

func TestObserversSeeEveryTriggerAndTheirPanicsChangeNothing(t *testing.T) {
	var triggered, resolved []string
	e := hooks.New(hooks.Options{Cwd: t.TempDir(),
		Hooks: []hooks.Hook{{Event: hooks.PreToolUse, Command: "exit 2"}},
		OnTriggered: func(ev hooks.Event, m string, n int) {
			triggered = append(triggered, string(ev)+" "+m+" "+strconv.Itoa(n))
			panic("observer bug")
		},
		OnResolved: func(ev hooks.Event, m string, a hooks.Action, reason string, _ time.Duration) {
			resolved = append(resolved, string(ev)+" "+string(a)+" "+reason)
		},
	})
	if d := e.TriggerBlock(t.Context(), hooks.PreToolUse, "Bash", nil); d == nil {
		t.Error("an observer's panic changed the decision")
	}
	if d := cmp.Diff([]string{"PreToolUse Bash 1"}, triggered); d != "" {
		t.Errorf("OnTriggered (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"PreToolUse block Blocked by PreToolUse hook"}, resolved); d != "" {
		t.Errorf("OnResolved (-want +got):\n%s", d)
	}
}

func TestOutputIsCappedKeepingTheEnd(t *testing.T) {
	e := engine(t, t.TempDir(), hooks.Hook{Event: hooks.PostToolUse,
		Command: `head -c 1100000 /dev/zero | tr '\0' x; echo END`})
	rs := e.Trigger(t.Context(), hooks.PostToolUse, "Bash", nil)
	if len(rs) != 1 {
		t.Fatal("no result")
	}
	out := rs[0].Stdout
	if len(out) != 1<<20 || !strings.HasSuffix(out, "END\n") {
		t.Errorf("stdout kept %d bytes ending %q; want 1 MiB ending with END", len(out), out[max(0, len(out)-8):])
	}
}

func TestEveryEventHasASampleAndAnInfo(t *testing.T) {
	for _, info := range hooks.Events() {
		if _, _, ok := hooks.SampleInput(info.Event); !ok {
			t.Errorf("no sample input for %s", info.Event)
		}
		if !info.Event.Valid() {
			t.Errorf("%s is listed but not valid", info.Event)
		}
	}
	if len(hooks.Events()) != 16 {
		t.Errorf("%d events; spec 06 §6.4 has 16", len(hooks.Events()))
	}
	if hooks.Event("pretooluse").Valid() {
		t.Error("event names are case-sensitive")
	}
}
