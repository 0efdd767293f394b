package tui

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/session"
)

// dirred is a recorder whose directories /add-dir lists and extends.
type dirred struct {
	*recorder
	dirs []string
}

func (d *dirred) AdditionalDirs() []string { return slices.Clone(d.dirs) }
func (d *dirred) AddDir(dir string, remember bool) (string, error) {
	d.log("add dir %s remember=%v", dir, remember)
	return dir, nil
}

// reopener opens the session again as a second recorder, as
// Options.Open would, and counts the opens.
type reopener struct {
	next   *recorder
	opened []string
}

func (o *reopener) open(_ context.Context, id string) (Opened, error) {
	o.opened = append(o.opened, id)
	return Opened{Session: o.next, Resumed: true, Model: "other"}, nil
}

// /reload reads the configuration again, closes the session and opens
// it again without replaying it; the new models and tui.toml apply. A
// reload that fails leaves the session alone.
func TestReloadCommand(t *testing.T) {
	re := &reopener{next: newRecorder()}
	fail := true
	r := newRig(t, func(o *Options) {
		o.Open = re.open
		o.Reload = func() (Reloaded, error) {
			if fail {
				return Reloaded{}, errors.New("Invalid TOML in config.toml")
			}
			return Reloaded{TUI: Settings{Theme: "light"}, Models: []ModelChoice{{Alias: "fresh"}},
				Notices: []Notice{{Text: "Ignored invalid config in config.toml: models.bad.", Warning: true}}}, nil
		}
	})
	first := r.sess
	r.do("/reload")
	r.contains(r.screen(), "Reload failed; nothing changed: Invalid TOML in config.toml")
	r.expectCalls()
	if len(re.opened) != 0 {
		t.Fatalf("opened %v after a failed reload", re.opened)
	}

	fail = false
	r.do("/reload")
	s := r.screen()
	r.contains(s, "Ignored invalid config in config.toml: models.bad.")
	r.contains(s, "Reloaded config.toml and tui.toml.")
	r.lacks(s, "Resumed session")
	first.mu.Lock()
	calls := slices.Clone(first.calls)
	first.mu.Unlock()
	if !slices.Contains(calls, "close") {
		t.Errorf("first session's calls %q: want it closed", calls)
	}
	if len(re.opened) != 1 || re.opened[0] != "session_test" {
		t.Errorf("opened %q; want the same session again", re.opened)
	}
	if r.m.sess != Session(re.next) || r.m.theme.Dark || r.m.o.Models[0].Alias != "fresh" {
		t.Errorf("after reload: session %v, dark %v, models %v", r.m.sess == Session(re.next), r.m.theme.Dark, r.m.o.Models)
	}
	r.sess = re.next
	r.do("hello")
	r.expectCalls(`prompt "hello"`)

	r.event(event.TurnStarted{Header: event.InTurn(1)})
	r.do("/reload")
	r.contains(r.screen(), "Cannot /reload while streaming")
}

// /add-dir lists the directories; with a path it asks whether to
// remember it, adds it and reopens the session.
func TestAddDirCommand(t *testing.T) {
	re := &reopener{next: newRecorder()}
	d := &dirred{recorder: newRecorder(), dirs: []string{"/srv/shared"}}
	r := newRig(t, func(o *Options) { o.Session = d; o.Open = re.open })
	r.sess = d.recorder
	r.do("/add-dir")
	s := r.screen()
	r.contains(s, "/home/u/proj  (work dir)")
	r.contains(s, "/srv/shared")
	r.do("/add-dir /srv/shared")
	r.contains(r.screen(), "/srv/shared is already one of the session's directories.")

	r.do("/add-dir ~/notes")
	live := r.live()
	r.contains(live, "Add /home/u/notes")
	r.contains(live, "Remember for this project")
	r.key("down")
	r.key("enter")
	calls := r.sess.Calls()
	if len(calls) != 2 || calls[0] != "add dir /home/u/notes remember=true" || calls[1] != "close" {
		t.Errorf("calls %q; want the dir added, remembered, then the session closed", calls)
	}
	r.contains(r.screen(), "Added /home/u/notes.")
	if len(re.opened) != 1 || r.m.sess != Session(re.next) {
		t.Errorf("opened %v; want the session reopened", re.opened)
	}
	r.do("/add-dir ../lib")
	r.key("enter")
	r.expectCalls() // the first session is closed; the second has no directories to add
	r.contains(r.screen(), "This session cannot add directories.")
}

// /theme switches the theme at once and saves it in tui.toml, keeping
// the file's other settings; /editor saves the Ctrl-G editor;
// /reload-tui reads the file back.
func TestThemeAndEditorCommands(t *testing.T) {
	r := newRig(t, func(o *Options) {
		o.TUI.Env = func(k string) string { return map[string]string{"EDITOR": "nvim"}[k] }
	})
	path := filepath.Join(r.m.o.Home, "tui.toml")
	if err := os.WriteFile(path, []byte("[status_line]\nitems = [\"mode\", \"model\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r.do("/theme")
	r.contains(r.live(), "follow the terminal's background")
	r.key("down") // from dark, the current one
	r.key("enter")
	if r.m.theme.Dark {
		t.Error("the theme is still dark after choosing light")
	}
	r.contains(r.screen(), "Theme: light (saved in")
	r.contains(r.screen(), path+").")
	r.do("/theme purple")
	r.contains(r.screen(), `Unknown theme "purple": use auto, dark or light.`)

	r.do("/editor")
	r.contains(r.live(), "nvim")
	r.contains(r.live(), "$EDITOR")
	r.key("enter")
	r.contains(r.screen(), "Ctrl-G opens nvim")
	r.do("/editor code --wait")
	if r.m.o.TUI.Editor != "code --wait" {
		t.Errorf("editor %q", r.m.o.TUI.Editor)
	}

	s, notes := LoadSettings(path, nil)
	if s.Theme != "light" || s.Editor != "code --wait" || strings.Join(s.StatusItems, ",") != "mode,model" || len(notes) != 0 {
		t.Errorf("tui.toml reads %+v %v; want light, code --wait and the status items kept", s, notes)
	}
	if err := os.WriteFile(path, []byte("theme = \"dark\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r.do("/reload-tui")
	r.contains(r.screen(), "Reloaded tui.toml.")
	if !r.m.theme.Dark || r.m.o.TUI.Editor != "" {
		t.Errorf("after /reload-tui: dark %v, editor %q", r.m.theme.Dark, r.m.o.TUI.Editor)
	}
}

// The session adds directories.
var _ dirAdder = (*session.Session)(nil)

// /add-dir completes directories (not files) after ".", "./", "../", "/"
// and "~"; accepting a folder keeps completing inside it.
func TestAddDirCompletion(t *testing.T) {
	work, home := t.TempDir(), t.TempDir()
	for _, d := range []string{filepath.Join(work, "alpha", "inner"), filepath.Join(work, "beta"), filepath.Join(home, "notes")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(work, "afile"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	r := newRig(t, func(o *Options) { o.WorkDir, o.UserHome = work, home })
	r.typeText("/add-dir .")
	r.contains(r.live(), "../")
	r.typeText("/a")
	live := r.live()
	r.contains(live, "./alpha/")
	r.lacks(live, "afile")
	r.lacks(live, "beta")
	r.key("tab")
	r.contains(r.live(), "./alpha/inner/")
	r.key("esc")
	if v := r.m.ed.Value(); v != "/add-dir ./alpha/" {
		t.Errorf("editor %q", v)
	}
	r.key("ctrl+u")
	r.typeText("/add-dir ~/n")
	r.contains(r.live(), "~/notes/")
	r.key("ctrl+u")
	r.typeText("/add-dir x")
	r.lacks(r.live(), "alpha")

	// Enter before the paths of the last key arrive submits what was
	// typed; it never accepts the list of an earlier token.
	r.key("ctrl+u")
	r.typeText("/add-dir ./al")
	r.contains(r.live(), "./alpha/")
	r.m.Update(tea.KeyPressMsg{Code: 'x', Text: "x"}) // its listing never arrives
	r.key("tab")
	if v := r.m.ed.Value(); v != "/add-dir ./alx" {
		t.Errorf("Tab on a stale list: editor %q", v)
	}
	r.key("enter")
	r.contains(r.screen(), "This session cannot add directories.")
}

// While the session reopens, messages wait in the queue and idle-only
// commands are refused; the reopened session then gets the queue.
func TestReopenQueues(t *testing.T) {
	re := &reopener{next: newRecorder()}
	r := newRig(t, func(o *Options) {
		o.Open = re.open
		o.Reload = func() (Reloaded, error) { return Reloaded{TUI: o.TUI}, nil }
	})
	r.typeText("/reload")
	r.key("esc") // close the completion menu
	_, cmd := r.m.Update(tea.KeyPressMsg{Code: tea.KeyEnter})
	r.paint()
	r.contains(r.live(), "Opening the session…")
	r.do("/compact")
	r.contains(r.screen(), "Cannot /compact while the session reopens — wait for it.")
	r.do("typed meanwhile")
	r.contains(r.live(), "typed meanwhile")
	r.expectCalls("close") // the model tests' caller runs the call at once; its result waits in cmd
	r.run(cmd)
	r.paint()
	r.contains(r.screen(), "Reloaded config.toml and tui.toml.")
	r.sess = re.next
	r.expectCalls(`prompt "typed meanwhile"`)
}
