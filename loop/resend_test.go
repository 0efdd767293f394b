package loop_test

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kimigo/kimigo/loop"
	"github.com/kimigo/kimigo/loop/looptest"
)

func tooLarge() error { return statusErr(413, "Request exceeds the maximum size") }

func (h *harness) projections() []loop.Projection {
	var out []loop.Projection
	for _, c := range h.llm.Calls() {
		out = append(out, c.RequestLogFields.Projection)
	}
	return out
}

func TestSL9StrictResend(t *testing.T) {
	for _, msg := range []string{
		"messages.142: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_1",
		"tool_call_id  is not found",
		"Invalid request: Messages with role 'tool' must be a response to a preceding message with 'tool_calls'",
	} {
		t.Run(msg, func(t *testing.T) {
			h := newHarness(t, looptest.Fail(statusErr(400, msg)), looptest.Text("ok")).withFallbacks()
			if res := h.mustRun(t.Context()); res.StopReason != loop.StopEndTurn {
				t.Errorf("stop = %s", res.StopReason)
			}
			if d := cmp.Diff(map[string]int{"normal": 1, "strict": 1}, h.built); d != "" {
				t.Errorf("builders (-want +got):\n%s", d)
			}
			if d := cmp.Diff([]string{"normal", "strict"}, h.views()); d != "" {
				t.Errorf("views (-want +got):\n%s", d)
			}
			if d := cmp.Diff([]loop.Projection{"", loop.ProjectionStrict}, h.projections()); d != "" {
				t.Errorf("projections (-want +got):\n%s", d)
			}
		})
	}
	t.Run("strict resend fails too", func(t *testing.T) {
		second := statusErr(400, "tool_call_id  is not found")
		h := newHarness(t, looptest.Fail(statusErr(400, "tool_call_id  is not found")), looptest.Fail(second),
			looptest.Text("never")).withFallbacks()
		if _, err := h.run(t.Context()); !errors.Is(err, second) {
			t.Fatalf("err = %v, want the strict resend's error", err)
		}
		if n := len(h.llm.Calls()); n != 2 {
			t.Errorf("%d Chat calls, want 2", n)
		}
	})
	t.Run("unrelated 400", func(t *testing.T) {
		h := newHarness(t, looptest.Fail(statusErr(400, "Bad request")), looptest.Text("never")).withFallbacks()
		if _, err := h.run(t.Context()); err == nil {
			t.Fatal("RunTurn succeeded")
		}
		if d := cmp.Diff(map[string]int{"normal": 1}, h.built); d != "" {
			t.Errorf("builders (-want +got):\n%s", d)
		}
	})
}

func TestSL10MediaDegradedResend(t *testing.T) {
	t.Run("413 then degraded for the rest of the turn", func(t *testing.T) {
		h := newHarness(t,
			looptest.Fail(tooLarge()),
			looptest.Calls(looptest.Call("c1", "echo", `{"text":"x"}`)),
			looptest.Text("done"),
		).withFallbacks().tools(looptest.Echo())
		h.mustRun(t.Context())
		if d := cmp.Diff([]string{"normal", "degraded", "degraded"}, h.views()); d != "" {
			t.Errorf("views (-want +got):\n%s", d)
		}
		want := []loop.Projection{"", loop.ProjectionMediaDegraded, loop.ProjectionMediaDegraded}
		if d := cmp.Diff(want, h.projections()); d != "" {
			t.Errorf("projections (-want +got):\n%s", d)
		}
		if d := cmp.Diff(map[string]int{"normal": 1, "degraded": 2}, h.built); d != "" {
			t.Errorf("builders (-want +got):\n%s", d)
		}
	})
	t.Run("unclassified 413", func(t *testing.T) {
		fail := statusErr(413, "Request failed")
		h := newHarness(t, looptest.Fail(fail), looptest.Text("never")).withFallbacks()
		if _, err := h.run(t.Context()); !errors.Is(err, fail) {
			t.Fatalf("err = %v", err)
		}
		if n := len(h.llm.Calls()); n != 1 {
			t.Errorf("%d Chat calls, want 1", n)
		}
	})
}

func TestSL11DegradedThenStripped(t *testing.T) {
	t.Run("stripped succeeds and sticks", func(t *testing.T) {
		h := newHarness(t, looptest.Fail(tooLarge()), looptest.Fail(tooLarge()),
			looptest.Calls(looptest.Call("c1", "echo", `{"text":"x"}`)), looptest.Text("done"),
		).withFallbacks().tools(looptest.Echo())
		h.mustRun(t.Context())
		if d := cmp.Diff([]string{"normal", "degraded", "stripped", "stripped"}, h.views()); d != "" {
			t.Errorf("views (-want +got):\n%s", d)
		}
	})
	t.Run("all three fail", func(t *testing.T) {
		last := tooLarge()
		h := newHarness(t, looptest.Fail(tooLarge()), looptest.Fail(tooLarge()), looptest.Fail(last),
			looptest.Text("never")).withFallbacks()
		if _, err := h.run(t.Context()); !errors.Is(err, last) {
			t.Fatalf("err = %v, want the last 413", err)
		}
		if n := len(h.llm.Calls()); n != 3 {
			t.Errorf("%d Chat calls, want 3", n)
		}
	})
	t.Run("degraded rejects an image", func(t *testing.T) {
		h := newHarness(t, looptest.Fail(tooLarge()), looptest.Fail(statusErr(400, "unsupported image format")),
			looptest.Text("ok")).withFallbacks()
		h.mustRun(t.Context())
		if d := cmp.Diff([]string{"normal", "degraded", "stripped"}, h.views()); d != "" {
			t.Errorf("views (-want +got):\n%s", d)
		}
	})
	t.Run("image format goes straight to stripped", func(t *testing.T) {
		h := newHarness(t, looptest.Fail(statusErr(400, "Invalid image data")), looptest.Text("ok")).withFallbacks()
		h.mustRun(t.Context())
		if d := cmp.Diff([]string{"normal", "stripped"}, h.views()); d != "" {
			t.Errorf("views (-want +got):\n%s", d)
		}
	})
}

func TestSL12StickyProjections(t *testing.T) {
	t.Run("stripped step 1, 413 in step 2", func(t *testing.T) {
		second := tooLarge()
		h := newHarness(t,
			looptest.Fail(tooLarge()), looptest.Fail(tooLarge()),
			looptest.Calls(looptest.Call("c1", "echo", `{"text":"x"}`)),
			looptest.Fail(second), looptest.Text("never"),
		).withFallbacks().tools(looptest.Echo())
		if _, err := h.run(t.Context()); !errors.Is(err, second) {
			t.Fatalf("err = %v", err)
		}
		if d := cmp.Diff([]string{"normal", "degraded", "stripped", "stripped"}, h.views()); d != "" {
			t.Errorf("views (-want +got):\n%s", d)
		}
	})
	t.Run("degraded step 1, 413 in step 2", func(t *testing.T) {
		h := newHarness(t,
			looptest.Fail(tooLarge()),
			looptest.Calls(looptest.Call("c1", "echo", `{"text":"x"}`)),
			looptest.Fail(tooLarge()), looptest.Text("done"),
		).withFallbacks().tools(looptest.Echo())
		h.mustRun(t.Context())
		if d := cmp.Diff([]string{"normal", "degraded", "degraded", "stripped"}, h.views()); d != "" {
			t.Errorf("views (-want +got):\n%s", d)
		}
	})
}
