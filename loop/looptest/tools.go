package looptest

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/loop"
)

// Run is the body of a Tool's execution.
type Run func(ctx context.Context, args json.RawMessage, ec loop.ExecCtx) (loop.ToolResult, error)

// Tool is a configurable loop.ExecutableTool. Set the fields before the
// first call; the tool records every execution it starts.
type Tool struct {
	Name        string
	Description string
	// Schema is the parameters schema; empty means {"type":"object"}.
	Schema string
	// Accesses are declared on the execution; nil means the default (all).
	Accesses []loop.Access
	// ExecDescription and Display become the execution's display fields.
	ExecDescription string
	Display         loop.Display
	// StopBatch sets the execution's StopBatchAfterThis.
	StopBatch bool
	// Run is the work; nil returns an empty successful result.
	Run Run
	// Resolve, when set, replaces ResolveExecution entirely.
	Resolve func(args json.RawMessage) (loop.Execution, *loop.ToolResult, error)

	mu       sync.Mutex
	executed []Executed // guarded by mu
}

// Executed is one started execution of a Tool.
type Executed struct {
	Args json.RawMessage
	Ctx  loop.ExecCtx
}

// Definition implements loop.ExecutableTool.
func (t *Tool) Definition() llm.Tool {
	schema := t.Schema
	if schema == "" {
		schema = `{"type":"object"}`
	}
	return llm.Tool{Name: t.Name, Description: t.Description, Parameters: json.RawMessage(schema)}
}

// ResolveExecution implements loop.ExecutableTool.
func (t *Tool) ResolveExecution(args json.RawMessage) (loop.Execution, *loop.ToolResult, error) {
	if t.Resolve != nil {
		return t.Resolve(args)
	}
	return loop.Execution{
		Accesses:           t.Accesses,
		Display:            t.Display,
		Description:        t.ExecDescription,
		StopBatchAfterThis: t.StopBatch,
		ApprovalRule:       t.Name,
		Execute: func(ctx context.Context, ec loop.ExecCtx) (loop.ToolResult, error) {
			t.mu.Lock()
			t.executed = append(t.executed, Executed{Args: args, Ctx: ec})
			t.mu.Unlock()
			if t.Run == nil {
				return loop.ToolResult{}, nil
			}
			return t.Run(ctx, args, ec)
		},
	}, nil, nil
}

// Executions returns the executions started so far, in start order.
func (t *Tool) Executions() []Executed {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]Executed(nil), t.executed...)
}

// EchoSchema is the parameters schema of Echo.
const EchoSchema = `{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`

// Echo returns the "echo" tool: it answers with its text argument and
// declares no accesses (so it runs alone).
func Echo() *Tool {
	return &Tool{Name: "echo", Description: "Echo the text back.", Schema: EchoSchema,
		Run: func(_ context.Context, args json.RawMessage, _ loop.ExecCtx) (loop.ToolResult, error) {
			var a struct {
				Text string `json:"text"`
			}
			if err := json.Unmarshal(args, &a); err != nil {
				return loop.ToolResult{}, err
			}
			return loop.TextResult(a.Text), nil
		}}
}

// Gate coordinates a test with the tools that use it: each execution sends
// its call id on Started, and Gated tools wait for Release.
type Gate struct {
	// Started receives the call id of every execution that began.
	Started chan string
	release chan struct{}
	once    sync.Once
}

// NewGate returns a gate whose Started channel buffers 64 starts.
func NewGate() *Gate {
	return &Gate{Started: make(chan string, 64), release: make(chan struct{})}
}

// Release lets every Gated execution return; it may be called more than once.
func (g *Gate) Release() { g.once.Do(func() { close(g.release) }) }

func (g *Gate) start(id string) {
	if g != nil {
		g.Started <- id
	}
}

// Slow returns the "slow" tool: it reports its start on g (which may be
// nil), blocks until its ctx is cancelled and returns an abort error.
func Slow(g *Gate) *Tool {
	return &Tool{Name: "slow", Description: "Wait until cancelled.",
		Run: func(ctx context.Context, _ json.RawMessage, ec loop.ExecCtx) (loop.ToolResult, error) {
			g.start(ec.ToolCallID)
			<-ctx.Done()
			return loop.ToolResult{}, llm.Aborted(ctx)
		}}
}

// Gated returns a tool that reports its start on g and then ignores its ctx
// until g is released; it answers "<name> released".
func Gated(name string, g *Gate, accesses []loop.Access) *Tool {
	return &Tool{Name: name, Accesses: accesses,
		Run: func(_ context.Context, _ json.RawMessage, ec loop.ExecCtx) (loop.ToolResult, error) {
			g.start(ec.ToolCallID)
			<-g.release
			return loop.TextResult(name + " released"), nil
		}}
}

// Func returns a tool with the given accesses that runs run.
func Func(name string, accesses []loop.Access, run Run) *Tool {
	return &Tool{Name: name, Accesses: accesses, Run: run}
}
