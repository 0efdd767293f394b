package loop

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"strings"
	"unicode/utf8"

	"github.com/kimigo/kimigo/llm"
)

// callPlan is the pure preflight verdict on one tool call (spec 01
// §4.10.2): runnable with a tool, or rejected with a result.
type callPlan struct {
	call    llm.ToolCall
	args    json.RawMessage // compact, valid JSON; {} when empty or unparseable
	rawArgs string          // the model's text when it did not parse
	tool    ExecutableTool
	schema  json.RawMessage
	reject  *ToolResult
}

// parseArgs returns the model's arguments as compact JSON in the model's
// key order. When they are not valid UTF-8 JSON the arguments are {} and
// problem says what is wrong, for the model; no repair is attempted.
func parseArgs(raw string) (args json.RawMessage, problem string) {
	if raw == "" {
		return json.RawMessage(`{}`), ""
	}
	b := []byte(raw)
	if !utf8.Valid(b) {
		at := 0
		for at < len(b) {
			r, size := utf8.DecodeRune(b[at:])
			if r == utf8.RuneError && size == 1 {
				break
			}
			at += size
		}
		return json.RawMessage(`{}`), fmt.Sprintf("the arguments are not valid UTF-8 (byte %d of %d)", at, len(b))
	}
	if !json.Valid(b) {
		return json.RawMessage(`{}`), jsonProblem(b)
	}
	var out bytes.Buffer
	out.Grow(len(b))
	_ = json.Compact(&out, b) // b is valid JSON, so Compact cannot fail
	return out.Bytes(), ""
}

// jsonProblem words why b does not parse: the parser's complaint, where,
// and the text around that place.
func jsonProblem(b []byte) string {
	err := json.Unmarshal(b, new(json.RawMessage))
	var syn *json.SyntaxError
	if !errors.As(err, &syn) {
		return fmt.Sprintf("the arguments are not valid JSON: %v", err)
	}
	at := min(max(int(syn.Offset)-1, 0), len(b))
	if syn.Offset >= int64(len(b)) && strings.Contains(syn.Error(), "unexpected end") {
		return fmt.Sprintf("the arguments are not valid JSON: they end early, after %d bytes (ending %q); "+
			"the text may have been cut off", len(b), excerpt(b, len(b)))
	}
	return fmt.Sprintf("the arguments are not valid JSON: %s at byte %d of %d, near %q", syn.Error(), at, len(b),
		excerpt(b, at))
}

// excerpt is up to 40 bytes of b ending a little after at, on rune
// boundaries.
func excerpt(b []byte, at int) string {
	lo, hi := max(at-30, 0), min(at+10, len(b))
	for lo > 0 && !utf8.RuneStart(b[lo]) {
		lo--
	}
	for hi < len(b) && !utf8.RuneStart(b[hi]) {
		hi++
	}
	return string(b[lo:hi])
}

// preflight classifies every call before any hook runs or any event is
// dispatched: calls without a name, unknown tools, arguments that do not
// parse and schema violations are rejected here. Arguments that do not
// parse reach the model as the parse problem, not as the schema errors of
// {} (ERRATA 4; spec 01 §4.10.2 amended).
func (t *turn) preflight(s *stepState, calls []llm.ToolCall) []callPlan {
	plans := make([]callPlan, len(calls))
	for i, c := range calls {
		p := &plans[i]
		p.call = c
		var problem string
		if p.args, problem = parseArgs(c.Arguments); problem != "" {
			p.rawArgs = c.Arguments
			t.log.Debug("tool arguments are not valid JSON", "tool", c.Name, "call_id", c.ID,
				"raw_len", len(c.Arguments), "problem", problem)
		}
		if c.Name == "" {
			r := ErrorResult(noNameText)
			p.reject = &r
			continue
		}
		tool, def, found := s.lookup(c.Name)
		if !found {
			r := ErrorResult(t.missingTool(c.Name))
			p.reject = &r
			continue
		}
		if problem != "" {
			r := ErrorResult(fmt.Sprintf("Invalid args for tool %q: %s. Send the call again with the arguments "+
				"as one JSON object.", c.Name, problem))
			p.reject = &r
			continue
		}
		p.schema = def.Parameters
		if problems, ok := t.opt.Schemas.Check(p.schema, p.args); !ok {
			r := ErrorResult(fmt.Sprintf("Invalid args for tool %q: %s", c.Name, problems))
			p.reject = &r
			continue
		}
		p.tool = tool
	}
	return plans
}

// noNameText answers a tool call that came without a tool name (a
// provider quirk; the call is sent back as llm.UnnamedTool).
const noNameText = "The tool call had no tool name, so nothing ran. Call the tool again by its name."

func (t *turn) missingTool(name string) string {
	if f := t.in.DescribeMissingTool; f != nil {
		if msg, ok := f(name); ok {
			return msg
		}
	}
	return fmt.Sprintf("Tool %q not found", name)
}

// prepCall is one call moving through preparation.
type prepCall struct {
	plan        *callPlan
	args        json.RawMessage
	rawArgs     string
	meta        any
	description string
	display     Display
}

// prepare takes one preflighted call to its tool.call event and a pending
// result (spec 01 §4.10.4). It reports whether the rest of the batch must be
// skipped. Its only error is a failed transcript write.
func (b *batch) prepare(ctx context.Context, p *callPlan) (*pending, bool, error) {
	c := &prepCall{plan: p, args: p.args, rawArgs: p.rawArgs}
	name := p.call.Name
	if p.reject != nil {
		return b.settle(c, *p.reject)
	}
	if ctx.Err() != nil {
		return b.settle(c, abortedResult(ctx, name))
	}
	if res := b.prepareHook(ctx, c); res != nil {
		return b.settle(c, *res)
	}
	exec, res := b.resolve(c)
	if res != nil {
		return b.settle(c, *res)
	}
	if ctx.Err() != nil {
		return b.settle(c, abortedResult(ctx, name))
	}
	if res := b.authorize(ctx, c, &exec); res != nil {
		return b.settle(c, *res)
	}
	if err := b.recordCall(c); err != nil {
		return nil, false, err
	}
	return b.schedule(c, exec), exec.StopBatchAfterThis, nil
}

func (b *batch) toolCtx(c *prepCall) ToolCtx {
	return ToolCtx{StepCtx: b.t.stepCtx(b.s.n), TraceID: b.s.trace.TraceID(), ToolCall: c.plan.call,
		ToolCalls: b.calls, Tool: c.plan.tool, Args: c.args}
}

// prepareHook runs PrepareToolExecution and validates the arguments it
// leaves. A non-nil result answers the call.
func (b *batch) prepareHook(ctx context.Context, c *prepCall) *ToolResult {
	h := b.t.in.Hooks.PrepareToolExecution
	if h == nil {
		return nil
	}
	name := c.plan.call.Name
	r, err := h(ctx, b.toolCtx(c))
	if err != nil {
		res := ErrorResult(fmt.Sprintf("prepareToolExecution hook failed for %q: %s", name, err))
		if IsAbort(err) || ctx.Err() != nil {
			res = ErrorResult(fmt.Sprintf("Tool %q was aborted during prepareToolExecution hook", name))
		}
		return &res
	}
	if r.UpdatedArgs != nil {
		c.args, _ = parseArgs(string(r.UpdatedArgs)) // unparseable replacements validate as {}
		c.rawArgs = ""
	}
	c.meta = r.ExecutionMetadata
	switch {
	case r.Block:
		res := ErrorResult(blockReason(r.Reason, name))
		return &res
	case r.SyntheticResult != nil:
		res := *r.SyntheticResult
		return &res
	}
	if problems, ok := b.t.opt.Schemas.Check(c.plan.schema, c.args); !ok {
		res := ErrorResult(fmt.Sprintf("Invalid args for tool %q after prepareToolExecution hook: %s", name, problems))
		return &res
	}
	return nil
}

func blockReason(reason, name string) string {
	if reason != "" {
		return reason
	}
	return fmt.Sprintf("Tool call %q was blocked", name)
}

// resolve asks the tool for its execution. It fills the display fields of c
// when there is one; otherwise it returns the result that answers the call.
func (b *batch) resolve(c *prepCall) (Execution, *ToolResult) {
	name := c.plan.call.Name
	exec, r, err := resolveSafely(b.t.log, c.plan.tool, name, c.plan.call.ID, c.args)
	var res ToolResult
	switch {
	case err != nil:
		var v VerbatimError
		if errors.As(err, &v) && v.Verbatim() {
			res = ErrorResult(err.Error())
		} else {
			b.t.log.Warn("tool failed to resolve execution", "tool", name, "call_id", c.plan.call.ID, "error", err)
			res = ErrorResult(fmt.Sprintf("Tool %q failed to resolve execution: %s", name, err))
		}
	case exec.Execute != nil:
		c.description, c.display = exec.Description, exec.Display
		return exec, nil
	case r != nil:
		res = *r
	default:
		res = ErrorResult(fmt.Sprintf("Tool %q returned no result.", name))
	}
	return Execution{}, &res
}

// resolveSafely calls ResolveExecution, turning a panic into an error and
// logging the defect with its stack.
func resolveSafely(log *slog.Logger, tool ExecutableTool, name, callID string,
	args json.RawMessage) (exec Execution, res *ToolResult, err error) {
	defer func() {
		if r := recover(); r != nil {
			exec, res, err = Execution{}, nil, fmt.Errorf("panic: %v", r)
			log.Error("tool panicked in ResolveExecution", "tool", name, "call_id", callID, "panic", fmt.Sprint(r),
				"stack", string(debug.Stack()))
		}
	}()
	return tool.ResolveExecution(args)
}

// authorize runs AuthorizeToolExecution. A non-nil result answers the call.
func (b *batch) authorize(ctx context.Context, c *prepCall, exec *Execution) *ToolResult {
	name := c.plan.call.Name
	var a Authorization
	if h := b.t.in.Hooks.AuthorizeToolExecution; h != nil {
		hc := b.toolCtx(c)
		hc.Execution = exec
		var err error
		if a, err = h(ctx, hc); err != nil {
			reason := fmt.Sprintf("authorizeToolExecution hook failed for %q: %s", name, err)
			if IsAbort(err) || ctx.Err() != nil {
				reason = fmt.Sprintf("Tool %q was aborted during authorizeToolExecution hook", name)
			}
			a = Authorization{Block: true, Reason: reason}
		}
	}
	var res ToolResult
	switch {
	case ctx.Err() != nil:
		res = abortedResult(ctx, name)
	case a.Block:
		res = ErrorResult(blockReason(a.Reason, name))
	case a.SyntheticResult != nil:
		res = *a.SyntheticResult
	default:
		if a.ExecutionMetadata != nil {
			c.meta = a.ExecutionMetadata
		}
		return nil
	}
	return &res
}

func (b *batch) recordCall(c *prepCall) error {
	call := c.plan.call
	return b.t.record(ToolCallEvent{UUID: call.ID, TurnID: b.t.in.TurnID, Step: b.s.n, StepUUID: b.s.uuid,
		ToolCallID: call.ID, Name: call.Name, Args: c.args, RawArgs: c.rawArgs, Description: c.description,
		Display: c.display, Extras: call.Extras, TraceID: b.s.trace.TraceID()})
}

// settle records the tool.call of a call answered without executing it.
func (b *batch) settle(c *prepCall, res ToolResult) (*pending, bool, error) {
	if err := b.recordCall(c); err != nil {
		return nil, false, err
	}
	return &pending{call: c.plan.call, args: c.args, result: res}, res.StopTurn, nil
}
