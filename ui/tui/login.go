package tui

import (
	"context"
	"strings"

	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/kimigo/kimigo/ui/render"
	"github.com/kimigo/kimigo/ui/term"
)

// Login is the API-key setup /login walks through (spec 06 §3.5):
// choose a platform, type the key (masked), choose one of the models the
// key lists. The command line's `kimigo login` does the same on a plain
// terminal.
type Login struct {
	// Platforms are the services to choose from, as the user reads them.
	Platforms []string
	// Models checks key against platform i and lists its models.
	Models func(ctx context.Context, platform int, key string) ([]string, error)
	// Save writes the provider, its models and model as the default into
	// config.toml, and says what it did.
	Save func(platform int, key, model string) (string, error)
}

// cmdLogin is /login: the API-key setup, then /reload, so the new
// models are offered.
func cmdLogin(c *Ctx, _ string) tea.Cmd {
	m := c.m
	l := m.o.Login
	if l == nil || len(l.Platforms) == 0 {
		c.Warn("Login is not available here; run `kimigo login` in a terminal.")
		return nil
	}
	var items []choice
	for i, p := range l.Platforms {
		items = append(items, choice{label: p, value: i})
	}
	p := newPicker("Log in: platform", items)
	p.choose = func(m *Model, ch choice) tea.Cmd {
		platform := ch.value.(int)
		m.overlay = newSecretPrompt("Log in: API key for "+l.Platforms[platform], "The key is not shown as you type it.",
			func(m *Model, key string) tea.Cmd {
				m.notice(render.Info, "Checking the key with "+l.Platforms[platform]+"…")
				return m.calls.Run(func(ctx context.Context) tea.Msg {
					models, err := l.Models(ctx, platform, key)
					return loginModelsMsg{platform: platform, key: key, models: models, err: err}
				})
			})
		return nil
	}
	m.overlay = p
	return nil
}

type loginModelsMsg struct {
	platform int
	key      string
	models   []string
	err      error
}

type loginSavedMsg struct {
	text string
	err  error
}

func (m *Model) loginModels(msg loginModelsMsg) tea.Cmd {
	switch {
	case msg.err != nil:
		m.notice(render.Error, "Failed to verify the API key: "+msg.err.Error())
		return nil
	case len(msg.models) == 0:
		m.notice(render.Error, "No models available for this platform.")
		return nil
	}
	var items []choice
	for _, id := range msg.models {
		items = append(items, choice{label: id, value: id})
	}
	p := newPicker("Log in: default model", items)
	p.choose = func(m *Model, ch choice) tea.Cmd {
		save, model := m.o.Login.Save, ch.value.(string)
		return m.calls.Run(func(context.Context) tea.Msg {
			text, err := save(msg.platform, msg.key, model)
			return loginSavedMsg{text: text, err: err}
		})
	}
	m.overlay = p
	return nil
}

func (m *Model) loginSaved(msg loginSavedMsg) tea.Cmd {
	if msg.err != nil {
		m.notice(render.Error, msg.err.Error())
		return nil
	}
	m.notice(render.Success, msg.text)
	if m.o.Reload == nil {
		return nil
	}
	return m.reopen("Reloaded the configuration; /model switches to the new models.", m.o.Reload)
}

// cmdLogout is /logout [provider]: the provider and its models removed
// from config.toml.
func cmdLogout(c *Ctx, args string) tea.Cmd {
	m := c.m
	logout := m.o.Logout
	if logout == nil {
		c.Warn("Logout is not available here; run `kimigo logout` in a terminal.")
		return nil
	}
	return m.calls.Run(func(context.Context) tea.Msg {
		text, err := logout(args)
		if err != nil {
			return noticeMsg{level: render.Error, text: err.Error()}
		}
		return noticeMsg{level: render.Success, text: text, detail: "The open session keeps its model until /reload or /model."}
	})
}

// secretPrompt asks for one line of text without showing it.
type secretPrompt struct {
	baseOverlay
	title, detail string
	in            textinput.Model
	submit        func(m *Model, text string) tea.Cmd
}

func newSecretPrompt(title, detail string, submit func(m *Model, text string) tea.Cmd) *secretPrompt {
	in := newInput("")
	in.EchoMode = textinput.EchoPassword
	in.EchoCharacter = '•'
	return &secretPrompt{title: title, detail: detail, in: in, submit: submit}
}

func (p *secretPrompt) key(m *Model, k tea.KeyPressMsg) tea.Cmd {
	switch k.String() {
	case "esc", "ctrl+c":
		m.overlay = nil
		m.notice(render.Info, "Login cancelled.")
		return m.drainQueue()
	case "enter":
		text := strings.TrimSpace(p.in.Value())
		if text == "" {
			return nil
		}
		m.overlay = nil
		return p.submit(m, text)
	}
	var cmd tea.Cmd
	p.in, cmd = p.in.Update(k)
	return cmd
}

func (p *secretPrompt) paste(m *Model, s string) tea.Cmd {
	p.in.SetValue(p.in.Value() + strings.TrimSpace(s))
	p.in.CursorEnd()
	return nil
}

func (p *secretPrompt) lines(m *Model) ([]string, *term.Cursor) {
	t, w := m.theme, m.width
	out := []string{panelRule(t, w), t.Bold.Render(p.title)}
	if p.detail != "" {
		out = append(out, t.Dim.Render("  "+render.Truncate(p.detail, w-3)))
	}
	line, x := inputLine(&p.in, "  key: ", w)
	out = append(out, line)
	cur := &term.Cursor{X: x, Y: len(out) - 1}
	return append(out, t.Dim.Render("  enter confirm · esc cancel")), cur
}
