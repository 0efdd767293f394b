package session_test

import (
	"bytes"
	"regexp"
	"runtime/pprof"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kimigo/kimigo/llm/llmtest"
	"github.com/kimigo/kimigo/session"
)

// The walk of one prompt to the provider's request: while the fake server
// holds the request, the goroutine that sends it shows every package it
// went through. Nothing of the command or the session is on it, and only
// the loop's callback pair repeats a package: the turn runs the loop, and
// the loop calls the turn's model adapter back, which sends through the
// agent's request choke point. (The prompt's own call, from the front end
// to that goroutine, is print.Run → Session.Prompt → Agent.Prompt →
// TurnFlow.Prompt.)
func TestOnePromptWalksEachPackageOnce(t *testing.T) {
	r := newRig(t)
	held := llmtest.NewGate()
	r.srv.Add(llmtest.Reply{Response: llmtest.Text("ok").Response, Fault: llmtest.Fault{Hold: held}})
	s, err := session.Open(t.Context(), r.opts(""))
	if err != nil {
		t.Fatal(err)
	}
	defer closeSession(t, s)
	sub := s.Subscribe()
	defer sub.Close()
	if err := s.Prompt(t.Context(), textParts("hi")); err != nil {
		t.Fatal(err)
	}
	<-held.Reached()
	var dump bytes.Buffer
	if err := pprof.Lookup("goroutine").WriteTo(&dump, 2); err != nil {
		t.Fatal(err)
	}
	held.Release()
	waitEnded(t, sub)

	var walk []string
	for _, g := range strings.Split(dump.String(), "\n\n") {
		if strings.Contains(g, "github.com/kimigo/kimigo/llm/openai.") {
			walk = packagesOf(g)
			break
		}
	}
	// config is last: the HTTP client the configuration built sends it
	// (proxy settings, a loopback endpoint's missing key).
	want := []string{"agent/turn", "loop", "agent/turn", "agent", "llm", "llm/openai", "config"}
	if d := cmp.Diff(want, walk); d != "" {
		t.Errorf("packages from the turn's goroutine to the request (-want +got):\n%s\n%s", d, dump.String())
	}
}

// frame matches a stack frame's function line of this module.
var frame = regexp.MustCompile(`(?m)^github\.com/kimigo/kimigo/([a-z0-9/]+?)\.[^/\s]*\(`)

// packagesOf is the module packages a goroutine's stack went through, from
// where it started to where it is, each run of frames of one package
// shown once.
func packagesOf(stack string) []string {
	var pkgs []string
	for _, m := range frame.FindAllStringSubmatch(stack, -1) {
		pkgs = append(pkgs, m[1])
	}
	slices.Reverse(pkgs) // a dump lists the innermost frame first
	return slices.Compact(pkgs)
}
