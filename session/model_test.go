package session_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/llm/llmtest"
	"github.com/kimigo/kimigo/session"
)

// twoModels configures model a (the default, output 1,000) and model b
// (output 5,000) on the rig's server.
func (r *rig) twoModels() {
	r.writeConfig(fmt.Sprintf(`default_model = "a"

[providers.fake]
type = "openai"
base_url = %q

[models.a]
provider = "fake"
model = "model-a"
max_context_size = 100000
max_output_size = 1000

[models.b]
provider = "fake"
model = "model-b"
max_context_size = 200000
max_output_size = 5000
`, llmtest.ChatBaseURL(r.srv)))
}

// sentModels are the model and completion cap of every request the server
// got.
func (r *rig) sentModels() []string {
	var out []string
	for _, q := range r.srv.Requests() {
		body := q.JSON(r.t)
		out = append(out, fmt.Sprintf("%v %v", body["model"], body["max_tokens"]))
	}
	return out
}

// SetModel switches the main agent's model with its budget and window;
// the switch survives a resume; an unknown alias is an error naming it
// and changes nothing.
func TestSetModelThroughTheSession(t *testing.T) {
	r := newRig(t, "one", "two", "three")
	r.twoModels()
	s, err := session.Open(t.Context(), r.opts(""))
	if err != nil {
		t.Fatal(err)
	}
	prompt(t, s, "first")
	if err := s.SetModel(t.Context(), "nope"); err == nil || !strings.Contains(err.Error(), `"nope"`) {
		t.Errorf("SetModel(nope) = %v, want an error naming it", err)
	}
	if m := s.Model(); m.Alias != "a" || s.Status().Model != "model-a" {
		t.Errorf("after a refused switch: model %q, status %q", m.Alias, s.Status().Model)
	}
	if err := s.SetModel(t.Context(), "b"); err != nil {
		t.Fatal(err)
	}
	if st := s.Status(); st.Model != "model-b" || st.MaxContextTokens != 200_000 || s.Model().Alias != "b" {
		t.Errorf("after the switch: status %+v, model %q", st, s.Model().Alias)
	}
	prompt(t, s, "second")
	closeSession(t, s)

	again, err := session.Open(t.Context(), r.resumeOpts(s.ID(), ""))
	if err != nil {
		t.Fatal(err)
	}
	defer closeSession(t, again)
	prompt(t, again, "third")
	if d := cmp.Diff([]string{"model-a 1000", "model-b 5000", "model-b 5000"}, r.sentModels()); d != "" {
		t.Errorf("model and cap of each request (-want +got):\n%s", d)
	}
}

// A run may use its own permission mode and leave the session's as it
// was (print mode); a new session starts in default_permission_mode.
func TestModeForThisRun(t *testing.T) {
	r := newRig(t)
	s, err := session.Open(t.Context(), r.opts(""))
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Status().Permission; got != event.ModeManual {
		t.Errorf("a new session's mode = %q, want manual", got)
	}
	closeSession(t, s)

	o := r.resumeOpts(s.ID(), "")
	o.Mode, o.ModeForThisRun = event.ModeAuto, true
	run, err := session.Open(t.Context(), o)
	if err != nil {
		t.Fatal(err)
	}
	if got := run.Status().Permission; got != event.ModeAuto {
		t.Errorf("mode during the run = %q, want auto", got)
	}
	closeSession(t, run)

	after, err := session.Open(t.Context(), r.resumeOpts(s.ID(), ""))
	if err != nil {
		t.Fatal(err)
	}
	if got := after.Status().Permission; got != event.ModeManual {
		t.Errorf("mode after the run = %q, want manual restored", got)
	}
	if err := after.SetMode(t.Context(), "reckless"); err == nil || !strings.Contains(err.Error(), "reckless") {
		t.Errorf("SetMode(reckless) = %v, want an error naming it", err)
	}
	closeSession(t, after)

	cfg := *r.cfg
	cfg.DefaultPermissionMode = "yolo"
	o = r.opts("")
	o.Config = &cfg
	yolo, err := session.Open(t.Context(), o)
	if err != nil {
		t.Fatal(err)
	}
	defer closeSession(t, yolo)
	if got := yolo.Status().Permission; got != event.ModeYolo {
		t.Errorf("a new session under default_permission_mode = yolo runs in %q", got)
	}
}

// SetThinkingEffort changes the effort the next request carries; the
// setting survives a resume, and ThinkingEffort reports it.
func TestSetThinkingEffortThroughTheSession(t *testing.T) {
	r := newRig(t, "one", "two", "three")
	r.writeConfig(fmt.Sprintf(`default_model = "r"

[providers.fake]
type = "openai"
base_url = %q

[models.r]
provider = "fake"
model = "model-r"
max_context_size = 100000
capabilities = ["thinking"]
support_efforts = ["low", "high"]
default_effort = "low"

[models.always]
provider = "fake"
model = "model-always"
max_context_size = 100000
capabilities = ["always_thinking"]

[models.plain]
provider = "fake"
model = "model-plain"
max_context_size = 100000
`, llmtest.ChatBaseURL(r.srv)))
	s, err := session.Open(t.Context(), r.opts(""))
	if err != nil {
		t.Fatal(err)
	}
	if got := s.ThinkingEffort(); got != "low" {
		t.Errorf("a new session's effort = %q, want the default low", got)
	}
	prompt(t, s, "first")
	for _, bad := range []string{"max", ""} {
		if err := s.SetThinkingEffort(t.Context(), bad); err == nil || !strings.Contains(err.Error(), `"r"`) {
			t.Errorf("SetThinkingEffort(%q) = %v, want an error naming the model", bad, err)
		}
	}
	if got := s.ThinkingEffort(); got != "low" {
		t.Errorf("effort after refused switches = %q", got)
	}
	if err := s.SetThinkingEffort(t.Context(), "high"); err != nil {
		t.Fatal(err)
	}
	if got := s.ThinkingEffort(); got != "high" {
		t.Errorf("effort after the switch = %q", got)
	}
	prompt(t, s, "second")
	closeSession(t, s)

	again, err := session.Open(t.Context(), r.resumeOpts(s.ID(), ""))
	if err != nil {
		t.Fatal(err)
	}
	defer closeSession(t, again)
	if got := again.ThinkingEffort(); got != "high" {
		t.Errorf("effort after resume = %q, want high", got)
	}
	prompt(t, again, "third")
	var sent []string
	for _, q := range r.srv.Requests() {
		sent = append(sent, fmt.Sprint(q.JSON(t)["reasoning_effort"]))
	}
	if d := cmp.Diff([]string{"low", "high", "high"}, sent); d != "" {
		t.Errorf("reasoning_effort of each request (-want +got):\n%s", d)
	}
	for _, tc := range []struct{ model, effort string }{{"always", "off"}, {"plain", "on"}} {
		if err := again.SetModel(t.Context(), tc.model); err != nil {
			t.Fatal(err)
		}
		before := again.ThinkingEffort()
		if err := again.SetThinkingEffort(t.Context(), tc.effort); err == nil || !strings.Contains(err.Error(), `"`+tc.model+`"`) {
			t.Errorf("%s: SetThinkingEffort(%q) = %v, want an error naming the model", tc.model, tc.effort, err)
		}
		if got := again.ThinkingEffort(); got != before {
			t.Errorf("%s: a refused switch changed the effort from %q to %q", tc.model, before, got)
		}
	}
}
