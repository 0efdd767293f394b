package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"regexp"
	"sync"

	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/loop"
	"github.com/kimigo/kimigo/workspace"
)

//go:embed cron_delete.md
var cronDeleteMD string

// cronID is the shape of a job id.
var cronID = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[0-9a-f]{8}$`) })

// CronDelete is the CronDelete tool (spec 05 §7.6).
type CronDelete struct {
	cron CronScheduler
	def  llm.Tool
}

// NewCronDelete returns the CronDelete tool over s.
func NewCronDelete(s CronScheduler) *CronDelete {
	return &CronDelete{cron: s, def: definition(NameCronDelete, cronDeleteMD, nil,
		`{"type":"object","properties":{"id":{"type":"string","description":"The job's id."}},"required":["id"],"additionalProperties":false}`)}
}

// Definition implements loop.ExecutableTool.
func (t *CronDelete) Definition() llm.Tool { return t.def }

// ResolveExecution implements loop.ExecutableTool.
func (t *CronDelete) ResolveExecution(raw json.RawMessage) (loop.Execution, *loop.ToolResult, error) {
	var a struct {
		ID string `json:"id"`
	}
	if r := decodeArgs(NameCronDelete, raw, &a); r != nil {
		return loop.Execution{}, r, nil
	}
	if !cronID().MatchString(a.ID) {
		return loop.Execution{}, errorResult("Invalid cron job id %q — must be 8 lowercase hex characters.", a.ID), nil
	}
	return loop.Execution{
		Description:  "Deleting cron job " + a.ID,
		ApprovalRule: NameCronDelete,
		MatchesRule:  workspace.StringRuleMatcher(a.ID),
		Execute: func(ctx context.Context, _ loop.ExecCtx) (loop.ToolResult, error) {
			ok, err := t.cron.Remove(ctx, a.ID)
			switch {
			case err != nil:
				return loop.ErrorResult("Could not delete cron job " + a.ID + ": " + err.Error()), nil
			case !ok:
				return loop.ErrorResult("No cron job with id " + a.ID + "."), nil
			}
			return loop.ToolResult{Output: loop.TextOutput("Deleted cron job " + a.ID + "."), Brief: "Deleted " + a.ID}, nil
		},
	}, nil, nil
}
