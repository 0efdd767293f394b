package turn_test

import (
	"strings"
	"testing"
	"time"

	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/llm/llmtest"
	"github.com/kimigo/kimigo/loop"
	"github.com/kimigo/kimigo/loop/looptest"
)

// TestFaultMatrix injects every fault a real service or network produces,
// on both wires. The loop either recovers (retryable kinds) or ends the turn
// with the classified error; either way the next turn's request is still
// accepted by the strict server.
func TestFaultMatrix(t *testing.T) {
	text := strings.Repeat("some words ", 6)
	type fault struct {
		name  string
		reply func(w wire) llmtest.Reply
		// wantErr is nil when the turn must recover and end normally.
		wantErr func(error) bool
		// headerTimeout, when set, is the provider's response-header limit.
		headerTimeout time.Duration
		only          string // run on this wire only
	}
	faults := []fault{
		{name: "429 with retry-after", reply: func(w wire) llmtest.Reply { return w.rateLimited(2) }},
		{name: "500", reply: func(w wire) llmtest.Reply { return w.serverError() }},
		{name: "503", reply: func(w wire) llmtest.Reply { return w.unavailable() }},
		{name: "529 overloaded", reply: func(w wire) llmtest.Reply { return w.overloaded() }},
		{name: "502 HTML page from a proxy", reply: func(wire) llmtest.Reply {
			return llmtest.Status(502, "<html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>")
		}},
		{name: "413 request too large", reply: func(w wire) llmtest.Reply { return w.tooLarge() }, wantErr: llm.IsRequestTooLarge},
		{name: "400 context length", reply: func(w wire) llmtest.Reply { return w.contextOverflow() }, wantErr: llm.IsContextOverflow},
		{name: "quota exhausted", reply: func(wire) llmtest.Reply { return llmtest.ChatQuotaExhausted() },
			wantErr: llm.IsQuotaExhausted, only: "kimi"},
		{name: "connection reset mid-stream", reply: func(wire) llmtest.Reply {
			return llmtest.Text(text).WithFault(llmtest.Fault{ResetAfter: 3})
		}},
		{name: "torn SSE event", reply: func(wire) llmtest.Reply {
			return llmtest.Text(text).WithFault(llmtest.Fault{TornAfter: 3})
		}},
		{name: "malformed JSON chunk", reply: func(wire) llmtest.Reply {
			return llmtest.Text(text).WithFault(llmtest.Fault{MalformedAfter: 2})
		}},
		{name: "error event mid-stream", reply: func(wire) llmtest.Reply {
			return llmtest.Text(text).WithFault(llmtest.Fault{ErrorEventAfter: 3, ErrorMessage: "upstream hiccup"})
		}},
		{name: "stream ends without finish reason", reply: func(wire) llmtest.Reply {
			r := llmtest.Text("answer without a finish")
			r.NoFinish = true
			return r
		}},
		// The limit is far from both the delay and the time a loaded
		// machine takes to answer the retry on loopback: with 50 ms the
		// retry itself sometimes timed out under load.
		{name: "slow first byte past the header timeout", headerTimeout: time.Second,
			reply: func(wire) llmtest.Reply {
				return llmtest.Text("late").WithFault(llmtest.Fault{FirstByteDelay: time.Minute})
			}},
	}
	for _, w := range []wire{kimiWire, anthropicWire} {
		for _, f := range faults {
			if f.only != "" && f.only != w.name {
				continue
			}
			t.Run(w.name+"/"+f.name, func(t *testing.T) {
				srv, p := w.serve(t, f.headerTimeout, f.reply(w), llmtest.Text("recovered"))
				c := newConversation("start")
				res, _, err := c.run(t, p)
				switch {
				case f.wantErr == nil && err != nil:
					t.Fatalf("turn did not recover: %v", err)
				case f.wantErr == nil && res.StopReason != loop.StopEndTurn:
					t.Fatalf("stop reason %s, want end_turn", res.StopReason)
				case f.wantErr != nil && !f.wantErr(err):
					t.Fatalf("error = %v (%T), want the classified error", err, err)
				}
				if f.wantErr != nil {
					if _, ok := llm.AsError(err); !ok {
						t.Errorf("error %v is not an *llm.Error", err)
					}
					ints := looptest.LiveOfType[loop.TurnInterruptedEvent](&c.rec)
					if len(ints) != 1 || ints[0].Reason != loop.InterruptError || ints[0].Message == "" {
						t.Errorf("turn.interrupted = %+v", ints)
					}
				}

				// The next request must pass the strict server. (After a
				// failed turn the unused "recovered" reply answers it.)
				c.addUser("and now?")
				srv.Add(llmtest.Text("next turn"))
				res2, _, err2 := c.run(t, p)
				if err2 != nil || res2.StopReason != loop.StopEndTurn {
					t.Fatalf("next turn = %+v, %v", res2, err2)
				}
				acceptedAll(t, srv)
			})
		}
	}
}
