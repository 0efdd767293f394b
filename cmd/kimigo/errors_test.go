package main

import (
	"bytes"
	"errors"
	"testing"

	"github.com/kimigo/kimigo/config"
)

// The startup error format of spec 06 §1.8.
func TestReport(t *testing.T) {
	for _, tt := range []struct {
		name   string
		err    error
		log    string
		colour bool
		want   string
	}{
		{"coded", &config.Error{Code: config.CodeInvalid, Message: "Invalid TOML in /h/config.toml: bad"}, "/h/logs/kimigo.log", false,
			"error: Invalid configuration\n\nmessage:\nInvalid TOML in /h/config.toml: bad\nSee log: /h/logs/kimigo.log\n"},
		{"login", &config.Error{Code: config.CodeLoginRequired, Message: "log in"}, "", false,
			"error: Login required\n\nmessage:\nlog in\n"},
		{"other", errors.New("Session \"x\" not found."), "/l", false,
			"error: failed to run prompt: Session \"x\" not found.\nSee log: /l\n"},
		{"hint", &startupError{op: "run prompt", err: errors.New("provider.auth_error: no"), hint: "check the key"}, "/l", false,
			"error: failed to run prompt: provider.auth_error: no\nhint: check the key\nSee log: /l\n"},
		{"coloured", errors.New("boom"), "", true, "\x1b[38;2;232;84;84merror: failed to run prompt: boom\x1b[0m\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			if code := report(&buf, tt.err, tt.log, tt.colour); code != 1 {
				t.Errorf("exit code %d; want 1", code)
			}
			if buf.String() != tt.want {
				t.Errorf("report =\n%q\nwant\n%q", buf.String(), tt.want)
			}
		})
	}
}
