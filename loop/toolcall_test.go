package loop_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/loop"
	"github.com/kimigo/kimigo/loop/looptest"
)

// TestSL3MalformedToolArguments: arguments that do not parse are kept
// as given for the record (args {} plus rawArgs) and reach the model as
// the parse problem, naming where it is, never as the schema errors of {}
// (ERRATA 4, issue 13 item 6), and the tool does not run even when {}
// would pass its schema.
func TestSL3MalformedToolArguments(t *testing.T) {
	for _, tt := range []struct{ raw, want string }{
		{`{"text":"hi",}`, `Invalid args for tool "echo": the arguments are not valid JSON: invalid character '}' ` +
			`looking for beginning of object key string at byte 13 of 14, near "{\"text\":\"hi\",}". ` +
			`Send the call again with the arguments as one JSON object.`},
		{`{}{`, `Invalid args for tool "echo": the arguments are not valid JSON: invalid character '{' after ` +
			`top-level value at byte 2 of 3, near "{}{". Send the call again with the arguments as one JSON object.`},
		{`{"text":"a long text that the stream cut`, `Invalid args for tool "echo": the arguments are not valid ` +
			`JSON: they end early, after 40 bytes (ending " long text that the stream cut"); the text may ` +
			`have been cut off. Send the call again with the arguments as one JSON object.`},
		{"{\"text\":\"\xff\"}", `Invalid args for tool "echo": the arguments are not valid UTF-8 (byte 9 of 12). ` +
			`Send the call again with the arguments as one JSON object.`},
	} {
		t.Run(tt.raw, func(t *testing.T) {
			echo := looptest.Echo()
			h := newHarness(t, looptest.Calls(looptest.Call("c1", "echo", tt.raw)), looptest.Text("done")).tools(echo)
			res := h.mustRun(t.Context())

			if n := len(echo.Executions()); n != 0 {
				t.Errorf("echo ran %d times", n)
			}
			c := h.toolCalls()[0]
			if string(c.Args) != `{}` || c.RawArgs != tt.raw {
				t.Errorf("tool.call args %s rawArgs %q; want {} and the raw text", c.Args, c.RawArgs)
			}
			h.wantResults(errResult(tt.want))
			if res.StopReason != loop.StopEndTurn || res.Steps != 2 {
				t.Errorf("result = %+v", res)
			}
			if got := mustJSON(t, c); !strings.Contains(got, `"args":{},"rawArgs":`+mustJSON(t, tt.raw)) {
				t.Errorf("tool.call JSON %s", got)
			}
		})
	}
	t.Run("a tool whose schema {} passes does not run either", func(t *testing.T) {
		tool := &looptest.Tool{Name: "t"}
		h := newHarness(t, looptest.Calls(looptest.Call("c1", "t", `{"a":`)), looptest.Text("done")).tools(tool)
		h.mustRun(t.Context())
		if n := len(tool.Executions()); n != 0 {
			t.Errorf("the tool ran %d times with arguments that do not parse", n)
		}
	})
}

// TestToolCallWithoutName: a call that came without a tool name (a
// provider quirk) is answered with an error result that says so, and the
// turn goes on.
func TestToolCallWithoutName(t *testing.T) {
	echo := looptest.Echo()
	h := newHarness(t, looptest.Calls(looptest.Call("c1", "", `{"text":"x"}`), looptest.Call("c2", "echo", `{"text":"y"}`)),
		looptest.Text("done")).tools(echo)
	res := h.mustRun(t.Context())
	if n := len(echo.Executions()); n != 1 {
		t.Errorf("echo ran %d times; want once, for the named call", n)
	}
	r := h.results()[0].Result
	if !r.IsError || !strings.Contains(r.Output.Text(), "had no tool name") {
		t.Errorf("result of the nameless call = %+v", r)
	}
	if res.StopReason != loop.StopEndTurn || res.Steps != 2 {
		t.Errorf("result = %+v", res)
	}
}

func TestToolArgsKeepKeyOrder(t *testing.T) {
	raw := "{ \"text\" : \"hi\",\n \"b\": 1, \"a\": [1, 2] }"
	tool := &looptest.Tool{Name: "t"}
	h := newHarness(t, looptest.Calls(looptest.Call("c1", "t", raw)), looptest.Text("done")).tools(tool)
	h.mustRun(t.Context())
	want := `{"text":"hi","b":1,"a":[1,2]}`
	if got := string(h.toolCalls()[0].Args); got != want || h.toolCalls()[0].RawArgs != "" {
		t.Errorf("args = %s (raw %q), want %s", got, h.toolCalls()[0].RawArgs, want)
	}
	if got := string(tool.Executions()[0].Args); got != want {
		t.Errorf("tool got %s, want %s", got, want)
	}
}

func TestSL4UnknownTool(t *testing.T) {
	t.Run("default wording", func(t *testing.T) {
		h := newHarness(t, looptest.Calls(looptest.Call("c1", "ghost", `{"x":1}`)), looptest.Text("done"))
		h.mustRun(t.Context())
		c := h.toolCalls()[0]
		if c.Name != "ghost" || string(c.Args) != `{"x":1}` {
			t.Errorf("tool.call = %s %s", c.Name, c.Args)
		}
		h.wantResults(errResult(`Tool "ghost" not found`))
	})
	t.Run("described by the host", func(t *testing.T) {
		h := newHarness(t, looptest.Calls(looptest.Call("c1", "ghost", `{"x":1}`)), looptest.Text("done"))
		h.in.DescribeMissingTool = func(string) (string, bool) { return "server disconnected", true }
		h.mustRun(t.Context())
		h.wantResults(errResult("server disconnected"))
	})
}

func TestSL26PrepareToolExecution(t *testing.T) {
	echoCall := looptest.Call("c1", "echo", `{"text":"hi"}`)
	run := func(t *testing.T, hook func(context.Context, loop.ToolCtx) (loop.Preparation, error)) (*harness, *looptest.Tool) {
		t.Helper()
		echo := looptest.Echo()
		h := newHarness(t, looptest.Calls(echoCall, looptest.Call("c2", "ghost", `{}`)), looptest.Text("done")).tools(echo)
		h.in.Hooks.PrepareToolExecution = hook
		h.mustRun(t.Context())
		return h, echo
	}
	t.Run("updated args", func(t *testing.T) {
		var batch []llm.ToolCall
		h, echo := run(t, func(_ context.Context, c loop.ToolCtx) (loop.Preparation, error) {
			batch = c.ToolCalls
			return loop.Preparation{UpdatedArgs: json.RawMessage(`{"text": "changed"}`)}, nil
		})
		if got := string(h.toolCalls()[0].Args); got != `{"text":"changed"}` {
			t.Errorf("tool.call args = %s", got)
		}
		if ex := echo.Executions(); len(ex) != 1 || string(ex[0].Args) != `{"text":"changed"}` {
			t.Errorf("executions = %v", ex)
		}
		h.wantResults(okResult("changed"), errResult(`Tool "ghost" not found`))
		if len(batch) != 2 {
			t.Errorf("hook saw %d calls, want the whole batch of 2", len(batch))
		}
	})
	for _, tt := range []struct {
		name string
		prep loop.Preparation
		err  error
		want loop.ToolResult
	}{
		{"invalid updated args", loop.Preparation{UpdatedArgs: json.RawMessage(`{}`)}, nil,
			errResult(`Invalid args for tool "echo" after prepareToolExecution hook: must have required property 'text'`)},
		{"block", loop.Preparation{Block: true, Reason: "nope"}, nil, errResult("nope")},
		{"block without reason", loop.Preparation{Block: true}, nil, errResult(`Tool call "echo" was blocked`)},
		{"synthetic", loop.Preparation{SyntheticResult: &loop.ToolResult{Output: loop.TextOutput("cached")}}, nil,
			okResult("cached")},
		{"hook error", loop.Preparation{}, errBoom, errResult(`prepareToolExecution hook failed for "echo": boom`)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h, echo := run(t, func(context.Context, loop.ToolCtx) (loop.Preparation, error) { return tt.prep, tt.err })
			if n := len(echo.Executions()); n != 0 {
				t.Errorf("echo ran %d times", n)
			}
			h.wantResults(tt.want, errResult(`Tool "ghost" not found`))
		})
	}
}

func TestSL27AuthorizeAndDisplayFields(t *testing.T) {
	newEcho := func() *looptest.Tool {
		echo := looptest.Echo()
		echo.ExecDescription = "Echo hi"
		echo.Display = &loop.GenericDisplay{Summary: "echo"}
		return echo
	}
	for _, tt := range []struct {
		name string
		auth loop.Authorization
		err  error
		want loop.ToolResult
		runs int
	}{
		{"allowed", loop.Authorization{}, nil, okResult("hi"), 1},
		{"blocked", loop.Authorization{Block: true, Reason: "denied"}, nil, errResult("denied"), 0},
		{"synthetic", loop.Authorization{SyntheticResult: &loop.ToolResult{Output: loop.TextOutput("cached")}}, nil,
			okResult("cached"), 0},
		{"hook error", loop.Authorization{}, errBoom, errResult(`authorizeToolExecution hook failed for "echo": boom`), 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			echo := newEcho()
			h := newHarness(t, looptest.Calls(looptest.Call("c1", "echo", `{"text":"hi"}`)), looptest.Text("done")).tools(echo)
			var sawExec bool
			h.in.Hooks.AuthorizeToolExecution = func(_ context.Context, c loop.ToolCtx) (loop.Authorization, error) {
				sawExec = c.Execution != nil && c.Execution.Description == "Echo hi"
				return tt.auth, tt.err
			}
			h.mustRun(t.Context())
			c := h.toolCalls()[0]
			if c.Description != "Echo hi" || c.Display == nil {
				t.Errorf("tool.call description %q display %v", c.Description, c.Display)
			}
			if !sawExec {
				t.Error("the hook did not see the execution")
			}
			h.wantResults(tt.want)
			if n := len(echo.Executions()); n != tt.runs {
				t.Errorf("echo ran %d times, want %d", n, tt.runs)
			}
		})
	}
	t.Run("metadata reaches the execution", func(t *testing.T) {
		echo := newEcho()
		h := newHarness(t, looptest.Calls(looptest.Call("c1", "echo", `{"text":"hi"}`)), looptest.Text("done")).tools(echo)
		h.in.Hooks.PrepareToolExecution = func(context.Context, loop.ToolCtx) (loop.Preparation, error) {
			return loop.Preparation{ExecutionMetadata: "from-prepare"}, nil
		}
		h.in.Hooks.AuthorizeToolExecution = func(context.Context, loop.ToolCtx) (loop.Authorization, error) {
			return loop.Authorization{ExecutionMetadata: "from-authorize"}, nil
		}
		h.mustRun(t.Context())
		ec := echo.Executions()[0].Ctx
		if ec.Metadata != "from-authorize" || ec.TurnID != "turn-1" || ec.ToolCallID != "c1" {
			t.Errorf("exec ctx = %+v", ec)
		}
	})
}

func TestSL28FinalizeToolResult(t *testing.T) {
	t.Run("replacement", func(t *testing.T) {
		h := newHarness(t, looptest.Calls(looptest.Call("c1", "echo", `{"text":"secret"}`)), looptest.Text("done")).
			tools(looptest.Echo())
		h.in.Hooks.FinalizeToolResult = func(_ context.Context, c loop.ResultCtx) (*loop.ToolResult, error) {
			r := loop.TextResult("redacted " + c.Result.Output.Text()[:1])
			return &r, nil
		}
		h.mustRun(t.Context())
		h.wantResults(okResult("redacted s"))
	})
	t.Run("error hides the raw output", func(t *testing.T) {
		h := newHarness(t, looptest.Calls(looptest.Call("c1", "echo", `{"text":"secret"}`)), looptest.Text("done")).
			tools(looptest.Echo())
		h.in.Hooks.FinalizeToolResult = func(context.Context, loop.ResultCtx) (*loop.ToolResult, error) {
			return nil, errors.New("offload failed")
		}
		h.mustRun(t.Context())
		h.wantResults(errResult(`finalizeToolResult hook failed for "echo": offload failed`))
		for _, ev := range h.rec.Transcript() {
			if strings.Contains(mustJSON(t, ev), `secret"`) && ev.EventType() == result {
				t.Errorf("raw output reached the transcript: %s", mustJSON(t, ev))
			}
		}
	})
	t.Run("rejected calls pass through", func(t *testing.T) {
		h := newHarness(t, looptest.Calls(looptest.Call("c1", "ghost", `{}`)), looptest.Text("done"))
		var seen []string
		h.in.Hooks.FinalizeToolResult = func(_ context.Context, c loop.ResultCtx) (*loop.ToolResult, error) {
			seen = append(seen, c.Result.Output.Text())
			return nil, nil
		}
		h.mustRun(t.Context())
		if d := cmp.Diff([]string{`Tool "ghost" not found`}, seen); d != "" {
			t.Errorf("finalize saw (-want +got):\n%s", d)
		}
	})
}

func TestSL30StopTurnResultSkipsLaterCalls(t *testing.T) {
	stopper := &looptest.Tool{Name: "stop-success", StopBatch: true,
		Run: func(context.Context, json.RawMessage, loop.ExecCtx) (loop.ToolResult, error) {
			return loop.ToolResult{Output: loop.TextOutput("stopped"), StopTurn: true}, nil
		}}
	echo := looptest.Echo()
	h := newHarness(t, looptest.Calls(
		looptest.Call("c1", "stop-success", `{}`),
		looptest.Call("c2", "echo", `{"text":"x"}`),
	), looptest.Text("never")).tools(stopper, echo)
	res := h.mustRun(t.Context())

	if n := len(echo.Executions()); n != 0 {
		t.Errorf("echo ran %d times", n)
	}
	h.wantResults(okResult("stopped"), errResult("Tool skipped because a previous tool call stopped the turn."))
	if res.StopReason != loop.StopEndTurn || res.Steps != 1 {
		t.Errorf("result = %+v; want end_turn after one step", res)
	}
	if got := mustJSON(t, h.results()[0]); strings.Contains(got, "stopTurn") {
		t.Errorf("stopTurn persisted: %s", got)
	}
	if c := h.toolCalls()[1]; string(c.Args) != `{"text":"x"}` || c.Description != "" {
		t.Errorf("skipped tool.call = %+v", c)
	}
}

func TestSL31UnexecutedCallsOnAbnormalFinish(t *testing.T) {
	for _, tt := range []struct {
		finish llm.FinishReason
		want   loop.StopReason
	}{
		{llm.FinishPaused, loop.StopPaused},
		{llm.FinishOther, loop.StopUnknown},
		{llm.FinishTruncated, loop.StopMaxTokens},
	} {
		t.Run(string(tt.finish), func(t *testing.T) {
			echo := looptest.Echo()
			h := newHarness(t, looptest.Calls(looptest.Call("c1", "echo", `{"text":"hel`)).WithFinish(tt.finish, "x")).
				tools(echo)
			var hooked bool
			h.in.Hooks.FinalizeToolResult = func(context.Context, loop.ResultCtx) (*loop.ToolResult, error) {
				hooked = true
				return nil, nil
			}
			res := h.mustRun(t.Context())
			if res.StopReason != tt.want {
				t.Errorf("stop = %s, want %s", res.StopReason, tt.want)
			}
			h.wantTypes(begin, call, result, end)
			if c := h.toolCalls()[0]; string(c.Args) != `{}` || c.RawArgs != `{"text":"hel` {
				t.Errorf("tool.call = %+v", c)
			}
			r := h.results()[0].Result
			if !r.IsError || !strings.Contains(r.Output.Text(), "not executed") {
				t.Errorf("result = %+v", r)
			}
			if hooked || len(echo.Executions()) != 0 {
				t.Error("a hook or the tool ran")
			}
		})
	}
	t.Run("filtered", func(t *testing.T) {
		h := newHarness(t, looptest.Calls(looptest.Call("c1", "echo", `{}`)).WithFinish(llm.FinishFiltered, "content_filter")).
			tools(looptest.Echo())
		if res := h.mustRun(t.Context()); res.StopReason != loop.StopFiltered {
			t.Errorf("stop = %s", res.StopReason)
		}
		h.wantTypes(begin, end)
	})
	t.Run("end_turn without calls", func(t *testing.T) {
		h := newHarness(t, looptest.Text("ok"))
		h.mustRun(t.Context())
		h.wantTypes(begin, part, end)
	})
}

func TestSL33NormalizedResults(t *testing.T) {
	img := llm.ImagePart("data:image/png;base64,AAAA")
	for _, tt := range []struct {
		name string
		in   loop.ToolResult
		json string
	}{
		{"empty string", loop.ToolResult{}, `{"output":"Tool output is empty."}`},
		{"empty list", loop.ToolResult{Output: loop.PartsOutput()}, `{"output":"Tool output is empty."}`},
		{"image only", loop.ToolResult{Output: loop.PartsOutput(img)},
			`{"output":[{"type":"text","text":"Tool returned non-text content."},{"type":"image_url","imageUrl":{"url":"data:image/png;base64,AAAA"}}]}`},
		{"text and image", loop.ToolResult{Output: loop.PartsOutput(llm.TextPart("see"), img)},
			`{"output":[{"type":"text","text":"see"},{"type":"image_url","imageUrl":{"url":"data:image/png;base64,AAAA"}}]}`},
		{"text parts", loop.ToolResult{Output: loop.PartsOutput(llm.TextPart("a"), llm.TextPart("b"))}, `{"output":"ab"}`},
		{"side channels", loop.ToolResult{Output: loop.TextOutput("x"), Note: "n", Message: "m", StopTurn: true,
			Truncated: true, IsError: true, Brief: "b"}, `{"output":"x","isError":true,"note":"n","truncated":true}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tool := &looptest.Tool{Name: "t", Run: func(context.Context, json.RawMessage, loop.ExecCtx) (loop.ToolResult, error) {
				return tt.in, nil
			}}
			h := newHarness(t, looptest.Calls(looptest.Call("c1", "t", `{}`)), looptest.Text("done")).tools(tool)
			h.mustRun(t.Context())
			if got := mustJSON(t, h.results()[0].Result); got != tt.json {
				t.Errorf("result JSON\n got %s\nwant %s", got, tt.json)
			}
		})
	}
	t.Run("no result", func(t *testing.T) {
		tool := &looptest.Tool{Name: "t", Resolve: func(json.RawMessage) (loop.Execution, *loop.ToolResult, error) {
			return loop.Execution{}, nil, nil
		}}
		h := newHarness(t, looptest.Calls(looptest.Call("c1", "t", `{}`)), looptest.Text("done")).tools(tool)
		h.mustRun(t.Context())
		h.wantResults(errResult(`Tool "t" returned no result.`))
	})
}

type verbatimErr string

func (e verbatimErr) Error() string  { return string(e) }
func (e verbatimErr) Verbatim() bool { return true }

func TestResolveExecutionErrors(t *testing.T) {
	for _, tt := range []struct {
		name string
		err  error
		want string
	}{
		{"path security error is verbatim", verbatimErr(`"../x" is outside the workspace`), `"../x" is outside the workspace`},
		{"other errors are wrapped", errBoom, `Tool "t" failed to resolve execution: boom`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tool := &looptest.Tool{Name: "t", Resolve: func(json.RawMessage) (loop.Execution, *loop.ToolResult, error) {
				return loop.Execution{}, nil, tt.err
			}}
			h := newHarness(t, looptest.Calls(looptest.Call("c1", "t", `{}`)), looptest.Text("done")).tools(tool)
			h.mustRun(t.Context())
			h.wantResults(errResult(tt.want))
		})
	}
}

func TestToolPanicsAreRecovered(t *testing.T) {
	panicky := &looptest.Tool{Name: "panicky", Run: func(context.Context, json.RawMessage, loop.ExecCtx) (loop.ToolResult, error) {
		panic("kaboom")
	}}
	resolver := &looptest.Tool{Name: "resolver", Resolve: func(json.RawMessage) (loop.Execution, *loop.ToolResult, error) {
		panic("bad resolve")
	}}
	h := newHarness(t, looptest.Calls(
		looptest.Call("c1", "panicky", `{}`),
		looptest.Call("c2", "resolver", `{}`),
	), looptest.Text("done")).tools(panicky, resolver)
	var logged bytes.Buffer // the handler serialises its writes
	h.in.Log = slog.New(slog.NewTextHandler(&logged, nil))
	res := h.mustRun(t.Context())
	h.wantResults(errResult(`Tool "panicky" failed: panic: kaboom`),
		errResult(`Tool "resolver" failed to resolve execution: panic: bad resolve`))
	if res.StopReason != loop.StopEndTurn {
		t.Errorf("stop = %s", res.StopReason)
	}
	// Each panic is a defect of its tool: logged as an error with the
	// stack that led to it.
	for _, want := range []string{
		`level=ERROR msg="tool panicked in Execute" tool=panicky call_id=c1 panic=kaboom stack=`,
		`level=ERROR msg="tool panicked in ResolveExecution" tool=resolver call_id=c2 panic="bad resolve" stack=`,
	} {
		if !strings.Contains(logged.String(), want) {
			t.Errorf("log lacks %q:\n%s", want, logged.String())
		}
	}
	if n := strings.Count(logged.String(), "runtime/debug.Stack"); n != 2 {
		t.Errorf("%d stacks logged; want 2:\n%s", n, logged.String())
	}
}

func TestToolErrorResult(t *testing.T) {
	failing := &looptest.Tool{Name: "f", Run: func(context.Context, json.RawMessage, loop.ExecCtx) (loop.ToolResult, error) {
		return loop.ToolResult{}, errors.New("disk on fire")
	}}
	h := newHarness(t, looptest.Calls(looptest.Call("c1", "f", `{}`)), looptest.Text("done")).tools(failing)
	h.mustRun(t.Context())
	h.wantResults(errResult(`Tool "f" failed: disk on fire`))
}
