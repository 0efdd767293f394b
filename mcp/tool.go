package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/loop"
)

// Tool is one MCP tool as the loop runs it (spec 06 §7.5–7.6): its name is
// qualified, its description and input schema are the server's, and a
// call goes to the server that listed it, bound to the tool timeout and
// to the turn's cancellation, which is sent on to the server. Every
// failure becomes an error result; nothing a server does stops the turn.
type Tool struct {
	def     llm.Tool
	server  string
	remote  string
	conn    *connection
	timeout time.Duration
}

var _ loop.ExecutableTool = (*Tool)(nil)

// Definition implements loop.ExecutableTool.
func (t *Tool) Definition() llm.Tool { return t.def }

// Server is the name of the server the tool belongs to.
func (t *Tool) Server() string { return t.server }

// RemoteName is the tool's name on its server.
func (t *Tool) RemoteName() string { return t.remote }

// ResolveExecution implements loop.ExecutableTool. An MCP call may touch
// anything, so it runs alone; its permission rule is its qualified name.
func (t *Tool) ResolveExecution(args json.RawMessage) (loop.Execution, *loop.ToolResult, error) {
	args = bytes.TrimSpace(args)
	if len(args) == 0 || string(args) == "null" {
		args = json.RawMessage("{}")
	}
	return loop.Execution{
		ApprovalRule: t.def.Name,
		Description:  fmt.Sprintf("Calling %s on MCP server %s", t.remote, t.server),
		Execute:      func(ctx context.Context, ec loop.ExecCtx) (loop.ToolResult, error) { return t.call(ctx, ec, args) },
	}, nil, nil
}

// errCallTimeout is the cause of a call's timeout.
var errCallTimeout = errors.New("mcp tool timeout")

func (t *Tool) call(ctx context.Context, ec loop.ExecCtx, args json.RawMessage) (loop.ToolResult, error) {
	if t.conn.isClosed() {
		return loop.ToolResult{}, fmt.Errorf("MCP server %q is not connected", t.server)
	}
	cctx, cancel := context.WithTimeoutCause(ctx, t.timeout, errCallTimeout)
	defer cancel()
	cctx, abort := context.WithCancelCause(cctx)
	defer abort(nil)
	defer t.conn.track(abort)()
	params := &sdk.CallToolParams{Name: t.remote, Arguments: args}
	if ec.ToolCallID != "" && ec.OnUpdate != nil {
		params.SetProgressToken(ec.ToolCallID)
		defer t.conn.watchProgress(ec.ToolCallID, ec.OnUpdate)()
	}
	res, err := t.conn.cs.CallTool(cctx, params)
	switch {
	case err == nil:
		return ConvertResult(t.def.Name, res), nil
	case ctx.Err() != nil: // the turn was cancelled; the SDK told the server
		return loop.ToolResult{}, context.Cause(ctx)
	case errors.Is(context.Cause(cctx), errShutDown):
		return loop.ToolResult{}, fmt.Errorf("MCP server %q was shut down during the call", t.server)
	case errors.Is(context.Cause(cctx), errCallTimeout):
		return loop.ToolResult{}, fmt.Errorf("timed out after %dms waiting for MCP server %q", t.timeout.Milliseconds(), t.server)
	}
	if we := (*jsonrpc.Error)(nil); errors.As(err, &we) {
		return loop.ToolResult{}, err // the server answered with an error
	}
	// The server may have gone away: let the manager settle that first, so
	// the next step's tool table no longer offers its tools.
	timer := time.NewTimer(exitSettle)
	defer timer.Stop()
	select {
	case <-t.conn.settled:
		return loop.ToolResult{}, fmt.Errorf("MCP server %q closed the connection: %w", t.server, err)
	case <-timer.C:
	}
	return loop.ToolResult{}, err
}
