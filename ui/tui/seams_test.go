package tui

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/session"
)

// tasked is a recorder with background tasks.
type tasked struct {
	*recorder
	tasks []Task
}

func (t *tasked) Tasks() []Task { return t.tasks }
func (t *tasked) TaskOutput(id string) (string, error) {
	if id == "bash-1" {
		return "line one\nline two", nil
	}
	return "", errors.New("no such task")
}
func (t *tasked) StopTask(_ context.Context, id string) error { t.log("stop %s", id); return nil }

func TestTasksBrowser(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	s := &tasked{recorder: newRecorder(), tasks: []Task{
		{ID: "bash-1", Kind: "process", Status: "running", Description: "make test", Started: now.Add(-time.Minute)},
		{ID: "agent-2", Kind: "agent", Status: "running", Description: "explore", Started: now.Add(-time.Minute)},
		{ID: "bash-3", Kind: "process", Status: "timed_out", Description: "sleep", Started: now.Add(-time.Hour), Ended: now},
	}}
	r := newRig(t, func(o *Options) { o.Session = s })
	r.sess = s.recorder
	r.contains(r.live(), "[1 task running] [1 agent running]")
	r.typeText("/tasks")
	r.key("enter")
	live := r.live()
	for _, want := range []string{"Background tasks", "bash-1  make test", "timed out", "s stop"} {
		r.contains(live, want)
	}
	r.key("enter")
	r.contains(r.live(), "line two")
	r.key("esc")
	r.key("s")
	r.contains(r.live(), "Stop bash-1? y to stop")
	r.key("y")
	r.expectCalls("stop bash-1")
	r.key("tab")
	r.lacks(r.live(), "bash-3")
	r.key("esc")
	if r.m.overlay != nil {
		t.Errorf("overlay %T after esc", r.m.overlay)
	}
}

// The questions of Options.Ask (the workspace trust question) come
// before the session opens, and their answer decides.
func TestAskBeforeTheSessionOpens(t *testing.T) {
	var got []int
	opened := 0
	mk := func(answerErr error) func(o *Options) {
		return func(o *Options) {
			sess := o.Session
			o.Session = nil
			o.Start = func(context.Context) (Opened, error) {
				opened++
				return Opened{Session: sess, Model: "fake"}, nil
			}
			o.Ask = []Ask{{Title: "Trust this folder?", Detail: "Its hooks and MCP servers would run.",
				Choices: []string{"Trust", "Do not trust"},
				Answer:  func(i int) error { got = append(got, i); return answerErr }}}
		}
	}
	r := newRig(t, mk(nil))
	r.contains(r.live(), "Trust this folder?")
	r.contains(r.live(), "Its hooks and MCP servers would run.")
	if opened != 0 {
		t.Fatal("the session opened before the answer")
	}
	r.key("2")
	if len(got) != 1 || got[0] != 1 || opened != 1 {
		t.Errorf("answers %v, opened %d", got, opened)
	}
	r.contains(r.screen(), "kimigo")

	got = nil
	stop := errors.New("not trusted: nothing opened")
	r = newRig(t, mk(stop))
	r.key("esc")
	if len(got) != 1 || got[0] != -1 || !r.quit || !errors.Is(r.m.StartError(), stop) {
		t.Errorf("answers %v, quit %v, err %v", got, r.quit, r.m.StartError())
	}

	// Enter takes the default answer, which need not be the first.
	got, opened = nil, 0
	r = newRig(t, mk(nil), func(o *Options) { o.Ask[0].Default = 1 })
	r.key("enter")
	if len(got) != 1 || got[0] != 1 || opened != 1 {
		t.Errorf("enter on the default: answers %v, opened %d", got, opened)
	}
}

// Help and completion show only the commands the session offers: /tasks
// with background tasks, not without; typing it anyway says why.
func TestCommandsTheSessionOffers(t *testing.T) {
	menu := func(r *rig) []string {
		var names []string
		if r.m.menu != nil {
			for _, it := range r.m.menu.list.items {
				names = append(names, it.label)
			}
		}
		return names
	}
	plain := newRig(t)
	plain.typeText("/ta")
	if got := menu(plain); len(got) != 0 {
		t.Errorf("completion offers %v to a session without background tasks", got)
	}
	plain.key("ctrl+u")
	plain.typeText("/help")
	plain.key("enter")
	help, ok := plain.m.overlay.(*pager)
	if !ok {
		t.Fatalf("/help opened %T", plain.m.overlay)
	}
	plain.lacks(help.vp.GetContent(), "/tasks")
	plain.contains(help.vp.GetContent(), "/usage")
	plain.key("esc")
	plain.typeText("/tasks")
	plain.key("enter")
	plain.contains(plain.screen()+plain.live(), "This session has no background tasks to show.")

	s := &tasked{recorder: newRecorder()}
	with := newRig(t, func(o *Options) { o.Session = s })
	with.sess = s.recorder
	with.typeText("/ta")
	if got := menu(with); len(got) != 1 || got[0] != "/tasks" {
		t.Errorf("completion offers %v; want /tasks", got)
	}
}

// shelled is a recorder that runs "!" commands in the conversation, as
// *session.Session does: its output streams as events named by the
// command id, and the result is Bash's account of the whole command.
type shelled struct {
	*recorder
	ids []string
}

func (s *shelled) RunShell(_ context.Context, commandID, command string) (session.ShellResult, error) {
	s.ids = append(s.ids, commandID)
	s.log("shell %s", command)
	s.bus.Publish(event.WithAgent(event.ShellOutput{CommandID: commandID, Text: "partial"}, mainAgent))
	return session.ShellResult{Output: "touch: cannot touch '/etc/x': Permission denied\nCommand failed with exit code: 1.",
		IsError: true}, nil
}

// A "!" command goes to a session that runs it (through its Bash and
// sandbox), never to a shell of the interface's own; the transcript
// shows the session's result, failed, once; output of the command that
// arrives after its end is dropped.
func TestShellCommandRunsInTheSession(t *testing.T) {
	s := &shelled{recorder: newRecorder()}
	r := newRig(t, func(o *Options) { o.Session = s })
	r.sess = s.recorder
	r.typeText("!touch /etc/x")
	r.key("enter")
	r.expectCalls("shell touch /etc/x")
	if len(s.ids) != 1 || s.ids[0] == "" {
		t.Fatalf("command ids %q", s.ids)
	}
	scr := r.screen()
	r.contains(scr, "✗")
	r.contains(scr, "Permission denied")
	r.lacks(scr, "partial")
	got, err := r.m.Subscription().Next(t.Context()) // the stream's event, after the end
	if err != nil {
		t.Fatal(err)
	}
	r.send(eventMsg{sub: r.m.Subscription(), ev: got})
	r.lacks(r.screen()+r.live(), "partial")
	if n := strings.Count(r.screen(), "Permission denied"); n != 1 {
		t.Errorf("the result shows %d times:\n%s", n, r.screen())
	}
}
