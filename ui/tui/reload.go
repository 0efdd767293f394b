package tui

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/BurntSushi/toml"
	"github.com/kimigo/kimigo/ui/render"
)

// Reloaded is what Options.Reload read again: tui.toml's settings, the
// configured models, and what to tell the user (load warnings).
type Reloaded struct {
	TUI     Settings
	Models  []ModelChoice
	Notices []Notice
}

// dirAdder is a session whose additional directories /add-dir lists and
// extends.
type dirAdder interface {
	AdditionalDirs() []string
	AddDir(dir string, remember bool) (string, error)
}

// reopenedMsg is the session opened again after /reload or /add-dir.
type reopenedMsg struct {
	o         Opened
	err       error
	reload    *Reloaded
	reloadErr error  // the configuration did not read: nothing changed
	done      string // the notice it ends with
}

// reopen closes the session and opens it again, so that what changed
// (the configuration, its directories) takes effect; reload, when set,
// reads the configuration first, and its failure leaves the session
// alone. The conversation stays on screen: nothing is replayed.
func (m *Model) reopen(done string, reload func() (Reloaded, error)) tea.Cmd {
	if m.o.Open == nil {
		m.notice(render.Warning, "Reopening the session is not available here.")
		return nil
	}
	open, ctx, old := m.o.Open, m.ctx, m.sess
	id := old.ID()
	m.reopening = &opening{started: m.now()}
	m.touch()
	return tea.Batch(m.animate(), m.calls.Run(func(context.Context) tea.Msg {
		var res *Reloaded
		if reload != nil {
			r, err := reload()
			if err != nil {
				return reopenedMsg{reloadErr: err}
			}
			res = &r
		}
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		err := old.Close(cctx)
		cancel()
		if err != nil {
			return reopenedMsg{err: fmt.Errorf("close it: %w", err), reload: res}
		}
		o, err := open(ctx, id)
		return reopenedMsg{o: o, err: err, reload: res, done: done}
	}))
}

func (m *Model) reopened(msg reopenedMsg) tea.Cmd {
	m.reopening = nil
	m.touch()
	if msg.reloadErr != nil {
		m.notice(render.Error, "Reload failed; nothing changed: "+msg.reloadErr.Error())
		return m.drainQueue()
	}
	if r := msg.reload; r != nil {
		env := m.o.TUI.Env
		m.o.TUI, m.o.Models = r.TUI, r.Models
		if m.o.TUI.Env == nil {
			m.o.TUI.Env = env
		}
		m.applyTheme()
		for _, n := range r.Notices {
			l := render.Info
			if n.Warning {
				l = render.Warning
			}
			m.notice(l, n.Text)
		}
	}
	if msg.err != nil {
		m.notice(render.Error, fmt.Sprintf("The session did not reopen: %v. Restart kimigo to resume it: %s",
			msg.err, m.sess.ResumeCommand()))
		return nil
	}
	queue := m.queue
	cmd := m.switched(switchedMsg{o: msg.o, id: msg.o.Session.ID(), reopened: msg.done})
	m.queue = queue // what was typed meanwhile goes to the reopened session
	return tea.Batch(cmd, m.drainQueue())
}

// cmdReload is /reload: config.toml and tui.toml read again, and the
// session reopened with them (spec 06 §2.8).
func cmdReload(c *Ctx, _ string) tea.Cmd {
	if c.m.o.Reload == nil {
		c.Warn("Reloading the configuration is not available here.")
		return nil
	}
	return c.m.reopen("Reloaded config.toml and tui.toml.", c.m.o.Reload)
}

// cmdReloadTUI is /reload-tui: tui.toml read again, the session left
// alone.
func cmdReloadTUI(c *Ctx, _ string) tea.Cmd {
	m := c.m
	s, notes := LoadSettings(m.settingsPath(), m.o.TUI.Env)
	m.o.TUI = s
	m.applyTheme()
	for _, n := range notes {
		m.notice(render.Warning, n.Text)
	}
	c.Success("Reloaded tui.toml.")
	return nil
}

// cmdAddDir is /add-dir: without arguments (or "list") the directories
// the session works in; with a path, it adds that directory, for this
// session or remembered for the project, and reopens the session.
func cmdAddDir(c *Ctx, args string) tea.Cmd {
	m := c.m
	a, ok := m.sess.(dirAdder)
	if !ok {
		c.Warn("This session cannot add directories.")
		return nil
	}
	if args == "" || args == "list" {
		lines := []string{m.sess.WorkDir() + "  (work dir)"}
		lines = append(lines, a.AdditionalDirs()...)
		c.Notice("Directories", strings.Join(lines, "\n")+"\nAdd one with /add-dir <path>.")
		return nil
	}
	dir := args
	if dir == "~" || strings.HasPrefix(dir, "~/") {
		if m.o.UserHome == "" {
			c.Fail("The home directory is unknown; give an absolute path.")
			return nil
		}
		dir = filepath.Join(m.o.UserHome, dir[1:])
	}
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(m.sess.WorkDir(), dir)
	}
	dir = filepath.Clean(dir)
	if slices.Contains(a.AdditionalDirs(), dir) || dir == m.sess.WorkDir() {
		c.Info(dir + " is already one of the session's directories.")
		return nil
	}
	p := newPicker("Add "+dir, []choice{
		{label: "This session only", detail: "saved with the session", value: false},
		{label: "Remember for this project", detail: "written to .kimi-code/local.toml", value: true},
	})
	p.choose = func(m *Model, ch choice) tea.Cmd {
		remember := ch.value.(bool)
		return m.calls.Run(func(context.Context) tea.Msg {
			got, err := a.AddDir(dir, remember)
			return dirAddedMsg{dir: got, err: err}
		})
	}
	m.overlay = p
	return nil
}

type dirAddedMsg struct {
	dir string
	err error
}

func (m *Model) dirAdded(msg dirAddedMsg) tea.Cmd {
	if msg.err != nil {
		m.notice(render.Error, msg.err.Error())
		return nil
	}
	return m.reopen("Added "+msg.dir+".", nil)
}

// themes are what /theme offers.
var themes = []struct{ name, detail string }{
	{"auto", "follow the terminal's background"},
	{"dark", "for a dark background"},
	{"light", "for a light background"},
}

// cmdTheme is /theme [auto|dark|light]: the theme applied now and saved
// in tui.toml; without an argument, a picker.
func cmdTheme(c *Ctx, args string) tea.Cmd {
	m := c.m
	if args != "" {
		m.setThemeSetting(strings.ToLower(args))
		return nil
	}
	var items []choice
	for _, t := range themes {
		items = append(items, choice{label: t.name, detail: t.detail, current: t.name == m.o.TUI.Theme, value: t.name})
	}
	p := newPicker("Theme", items)
	p.choose = func(m *Model, ch choice) tea.Cmd {
		m.setThemeSetting(ch.value.(string))
		return nil
	}
	m.overlay = p
	return nil
}

func (m *Model) setThemeSetting(name string) {
	if !slices.ContainsFunc(themes, func(t struct{ name, detail string }) bool { return t.name == name }) {
		m.notice(render.Error, fmt.Sprintf("Unknown theme %q: use auto, dark or light.", name))
		return
	}
	m.o.TUI.Theme = name
	m.applyTheme()
	if err := saveSetting(m.settingsPath(), "theme", name); err != nil {
		m.notice(render.Warning, fmt.Sprintf("Theme: %s, for this run only: %v", name, err))
		return
	}
	m.notice(render.Success, fmt.Sprintf("Theme: %s (saved in %s).", name, m.settingsPath()))
}

// applyTheme draws with the theme tui.toml names; "auto" follows the
// background the terminal reported, if it did.
func (m *Model) applyTheme() {
	dark := m.theme.Dark
	switch m.o.TUI.Theme {
	case "light":
		dark = false
	case "dark":
		dark = true
	default:
		if m.bgDark != nil {
			dark = *m.bgDark
		}
	}
	if dark != m.theme.Dark {
		if dark {
			m.setTheme(render.Dark())
		} else {
			m.setTheme(render.Light())
		}
	}
	m.touch()
}

// cmdEditor is /editor [command]: the editor Ctrl-G opens, saved in
// tui.toml; without an argument, a picker of the usual ones.
func cmdEditor(c *Ctx, args string) tea.Cmd {
	m := c.m
	if args != "" {
		m.setEditor(args)
		return nil
	}
	var cands []string
	for _, e := range []string{m.o.TUI.Editor, m.o.TUI.env("VISUAL"), m.o.TUI.env("EDITOR"), "vim", "nano", "code --wait"} {
		if e != "" && !slices.Contains(cands, e) {
			cands = append(cands, e)
		}
	}
	var items []choice
	for _, e := range cands {
		d := ""
		switch e {
		case m.o.TUI.env("VISUAL"):
			d = "$VISUAL"
		case m.o.TUI.env("EDITOR"):
			d = "$EDITOR"
		}
		items = append(items, choice{label: e, detail: d, current: e == m.o.TUI.Editor, value: e})
	}
	p := newPicker("Editor for Ctrl-G", items)
	p.detail = "Or type /editor <command>."
	p.choose = func(m *Model, ch choice) tea.Cmd {
		m.setEditor(ch.value.(string))
		return nil
	}
	m.overlay = p
	return nil
}

func (m *Model) setEditor(command string) {
	m.o.TUI.Editor = command
	if err := saveSetting(m.settingsPath(), "editor.command", command); err != nil {
		m.notice(render.Warning, fmt.Sprintf("Ctrl-G opens %s, for this run only: %v", command, err))
		return
	}
	m.notice(render.Success, fmt.Sprintf("Ctrl-G opens %s (saved in %s).", command, m.settingsPath()))
}

// settingsPath is tui.toml.
func (m *Model) settingsPath() string { return filepath.Join(m.o.Home, "tui.toml") }

// saveSetting sets key (dotted: "editor.command") to value in the TOML
// file at path, keeping its other keys, and writes it atomically. A file
// that does not parse is left alone. Comments are not kept.
func saveSetting(path, key string, value any) error {
	raw := map[string]any{}
	b, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return err
	default:
		if _, err := toml.Decode(string(b), &raw); err != nil {
			return fmt.Errorf("%s does not parse, so it was not changed: %w", path, err)
		}
	}
	parts := strings.Split(key, ".")
	t := raw
	for _, p := range parts[:len(parts)-1] {
		sub, ok := t[p].(map[string]any)
		if !ok {
			sub = map[string]any{}
			t[p] = sub
		}
		t = sub
	}
	t[parts[len(parts)-1]] = value
	var buf bytes.Buffer
	if err := toml.NewEncoder(&buf).Encode(raw); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tui.toml-*")
	if err != nil {
		return err
	}
	_, werr := tmp.Write(buf.Bytes())
	if err := errors.Join(werr, tmp.Close()); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return nil
}
