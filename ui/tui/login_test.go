package tui

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
)

// /login: platform, the key typed into a masked prompt (never on the
// screen), the models the key lists, the default model saved, then the
// configuration reloaded. A rejected key ends it with the reason.
func TestLoginCommand(t *testing.T) {
	re := &reopener{next: newRecorder()}
	var saved []string
	reloads := 0
	r := newRig(t, func(o *Options) {
		o.Open = re.open
		o.Reload = func() (Reloaded, error) { reloads++; return Reloaded{TUI: o.TUI}, nil }
		o.Login = &Login{
			Platforms: []string{"Kimi Platform (China)", "Kimi Platform (international)"},
			Models: func(_ context.Context, i int, key string) ([]string, error) {
				if key != "sk-good" {
					return nil, errors.New("HTTP 401")
				}
				return []string{"kimi-k2-turbo", "kimi-k3"}, nil
			},
			Save: func(i int, key, model string) (string, error) {
				saved = append(saved, fmt.Sprintf("%d %s %s", i, key, model))
				return "Setup complete: Kimi Platform (international) · " + model, nil
			},
		}
	})
	r.do("/login")
	r.contains(r.live(), "Kimi Platform (international)")
	r.key("down")
	r.key("enter")
	r.contains(r.live(), "API key for Kimi Platform (international)")
	r.typeText("sk-bad")
	r.lacks(r.live(), "sk-bad")
	r.contains(r.live(), "••••••")
	r.key("enter")
	r.contains(r.screen(), "Failed to verify the API key: HTTP 401")

	r.do("/login")
	r.key("2")
	r.send(tea.PasteMsg{Content: "sk-good\n"})
	r.key("enter")
	r.contains(r.live(), "kimi-k2-turbo")
	r.key("down")
	r.key("enter")
	s := r.screen()
	if len(saved) != 1 || saved[0] != "1 sk-good kimi-k3" {
		t.Errorf("saved %q; want platform 1, the key and kimi-k3", saved)
	}
	r.contains(s, "Setup complete: Kimi Platform (international) · kimi-k3")
	r.contains(s, "Reloaded the configuration")
	r.lacks(s, "sk-good")
	if reloads != 1 || len(re.opened) != 1 {
		t.Errorf("reloads %d, opens %d; want the session reopened once", reloads, len(re.opened))
	}

	r.do("/login")
	r.key("enter")
	r.key("esc")
	r.contains(r.screen(), "Login cancelled.")
}

// /logout removes the provider named, or the only one; the failure says
// why.
func TestLogoutCommand(t *testing.T) {
	var asked []string
	r := newRig(t, func(o *Options) {
		o.Logout = func(name string) (string, error) {
			asked = append(asked, name)
			if name == "" {
				return "", errors.New("several providers are configured (a, b): name one, /logout <provider>")
			}
			return "Logged out of " + name + ": removed the provider and 2 models from config.toml", nil
		}
	})
	r.do("/logout")
	r.contains(r.screen(), "several providers are configured (a, b)")
	r.do("/disconnect b")
	r.contains(r.screen(), "Logged out of b: removed the provider and 2 models")
	if strings.Join(asked, ",") != ",b" {
		t.Errorf("asked %q", asked)
	}
}
