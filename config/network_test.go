package config_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kimigo/kimigo/config"
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/llm/llmtest"
)

// TestServiceBoundKeys: the [loop_control] keys that bound a slow or
// failing service read as durations in the convention of the packages
// that take them: unset is 0 (their default), 0 is negative (off).
func TestServiceBoundKeys(t *testing.T) {
	dir, _ := home(t, "[loop_control]\nstream_idle_timeout_ms = 90000\nresponse_timeout_ms = 0\n"+
		"step_stall_timeout_ms = 240000\nmax_retry_after_ms = 0\n")
	cfg, w := mustLoad(t, dir, nil)
	if len(w) != 0 {
		t.Errorf("warnings: %v", messages(w))
	}
	lc := cfg.LoopControl
	got := []time.Duration{lc.StreamIdleTimeout(), lc.ResponseTimeout(), lc.StepStallTimeout(), lc.MaxRetryAfter()}
	if d := cmp.Diff([]time.Duration{90 * time.Second, -1, 4 * time.Minute, -1}, got); d != "" {
		t.Errorf("durations (-want +got):\n%s", d)
	}
	empty, _ := home(t, "")
	cfg, _ = mustLoad(t, empty, nil)
	lc = cfg.LoopControl
	got = []time.Duration{lc.StreamIdleTimeout(), lc.ResponseTimeout(), lc.StepStallTimeout(), lc.MaxRetryAfter()}
	if d := cmp.Diff([]time.Duration{0, 0, 0, 0}, got); d != "" {
		t.Errorf("unset keys (-want +got):\n%s", d)
	}
}

// TestIdleTimeoutReachesTheProvider: stream_idle_timeout_ms is the idle
// timeout of the provider NewProvider builds, on both wires.
func TestIdleTimeoutReachesTheProvider(t *testing.T) {
	for _, kind := range []string{"openai", "anthropic"} {
		t.Run(kind, func(t *testing.T) {
			var srv *llmtest.Server
			base := ""
			if kind == "anthropic" {
				srv = llmtest.FakeAnthropic(t, llmtest.HeadersThenSilence())
				base = srv.URL
			} else {
				srv = llmtest.FakeChatCompletions(t, llmtest.HeadersThenSilence())
				base = llmtest.ChatBaseURL(srv)
			}
			dir, _ := home(t, "[loop_control]\nstream_idle_timeout_ms = 50\n")
			cfg, _ := mustLoad(t, dir, config.Env{"KIMI_MODEL_NAME": "fake-model", "KIMI_MODEL_API_KEY": "k",
				"KIMI_MODEL_PROVIDER_TYPE": kind, "KIMI_MODEL_BASE_URL": base, "KIMI_MODEL_MAX_CONTEXT_SIZE": "131072"})
			m, _, err := cfg.SelectModel("")
			if err != nil {
				t.Fatal(err)
			}
			p, err := config.NewProvider(m, config.ProviderOptions{})
			if err != nil {
				t.Fatal(err)
			}
			_, err = llm.Generate(t.Context(), p, llm.Request{Messages: []llm.Message{llm.UserMessage("hi")}}, llm.Callbacks{})
			e, ok := llm.AsError(err)
			if !ok || e.Kind != llm.KindTimeout || e.Message != "request timed out: the model service sent nothing for 50ms (loop_control.stream_idle_timeout_ms)" {
				t.Errorf("err = %v; want the idle timeout", err)
			}
		})
	}
}
