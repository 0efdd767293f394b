package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestVersionAndHelp(t *testing.T) {
	for _, tt := range []struct {
		args       []string
		code       int
		wantPrefix string
	}{
		{[]string{"--version"}, 0, "kimigo "},
		{[]string{"-V"}, 0, "kimigo "},
		{[]string{"--help"}, 0, "kimigo — a terminal coding agent"},
		{[]string{"-h"}, 0, "kimigo — a terminal coding agent"},
	} {
		var out, errw bytes.Buffer
		if code := run(tt.args, &out, &errw); code != tt.code {
			t.Errorf("run(%v) = %d, want %d (stderr %q)", tt.args, code, tt.code, errw.String())
		}
		if !strings.HasPrefix(out.String(), tt.wantPrefix) {
			t.Errorf("run(%v) stdout = %q, want prefix %q", tt.args, out.String(), tt.wantPrefix)
		}
	}
}

func TestUnknownOptionNamesIt(t *testing.T) {
	var out, errw bytes.Buffer
	if code := run([]string{"--frobnicate"}, &out, &errw); code != 2 {
		t.Fatalf("exit code %d, want 2", code)
	}
	if !strings.Contains(errw.String(), `"--frobnicate"`) {
		t.Errorf("stderr %q does not name the option", errw.String())
	}
}

func TestPrintModeNotYetAvailableSaysSo(t *testing.T) {
	var out, errw bytes.Buffer
	if code := run([]string{"-p", "hello"}, &out, &errw); code != 2 {
		t.Fatalf("exit code %d, want 2", code)
	}
	if !strings.Contains(errw.String(), "print mode (-p) is not available") {
		t.Errorf("stderr %q does not explain that print mode is missing", errw.String())
	}
}
