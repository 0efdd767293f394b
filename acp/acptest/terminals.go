// Package acptest holds what the ACP tests and benchmarks share as an
// editor client.
package acptest

import (
	"context"
	"errors"

	sdk "github.com/coder/acp-go-sdk"
)

// errNotOffered answers a terminal method of a client that offers none.
var errNotOffered = errors.New("not offered")

// NoTerminals is embedded by a test client that offers no terminals: it
// answers every terminal method of sdk.Client with an error.
type NoTerminals struct{}

// CreateTerminal implements sdk.Client.
func (NoTerminals) CreateTerminal(context.Context, sdk.CreateTerminalRequest) (sdk.CreateTerminalResponse, error) {
	return sdk.CreateTerminalResponse{}, errNotOffered
}

// KillTerminal implements sdk.Client.
func (NoTerminals) KillTerminal(context.Context, sdk.KillTerminalRequest) (sdk.KillTerminalResponse, error) {
	return sdk.KillTerminalResponse{}, errNotOffered
}

// TerminalOutput implements sdk.Client.
func (NoTerminals) TerminalOutput(context.Context, sdk.TerminalOutputRequest) (sdk.TerminalOutputResponse, error) {
	return sdk.TerminalOutputResponse{}, errNotOffered
}

// ReleaseTerminal implements sdk.Client.
func (NoTerminals) ReleaseTerminal(context.Context, sdk.ReleaseTerminalRequest) (sdk.ReleaseTerminalResponse, error) {
	return sdk.ReleaseTerminalResponse{}, errNotOffered
}

// WaitForTerminalExit implements sdk.Client.
func (NoTerminals) WaitForTerminalExit(context.Context, sdk.WaitForTerminalExitRequest) (sdk.WaitForTerminalExitResponse, error) {
	return sdk.WaitForTerminalExitResponse{}, errNotOffered
}
