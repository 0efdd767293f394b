package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/loop"
	"github.com/kimigo/kimigo/workspace"
)

// Cron tool names.
const (
	NameCronCreate = "CronCreate"
	NameCronList   = "CronList"
	NameCronDelete = "CronDelete"
)

// oneShotHorizon is how far ahead a one-off job may first fire (spec 05
// §7.6): a pinned date further away already passed this year.
const oneShotHorizon = 350 * 24 * time.Hour

// cronTimeLayout is local time with milliseconds and a numeric offset.
const cronTimeLayout = "2006-01-02T15:04:05.000-07:00"

//go:embed cron_create.md
var cronCreateMD string

const cronCreateSchema = `{
  "type": "object",
  "properties": {
    "cron": {"type": "string", "description": "Five fields in local time: minute hour day-of-month month day-of-week."},
    "prompt": {"type": "string", "minLength": 1, "maxLength": %d, "description": "What to do when it fires."},
    "recurring": {"type": "boolean", "default": true, "description": "false: fire once, then remove the job."}
  },
  "required": ["cron", "prompt"],
  "additionalProperties": false
}`

// CronCreate is the CronCreate tool (spec 05 §7.6).
type CronCreate struct {
	cron CronScheduler
	def  llm.Tool
}

// NewCronCreate returns the CronCreate tool over s.
func NewCronCreate(s CronScheduler) *CronCreate {
	return &CronCreate{cron: s, def: definition(NameCronCreate, cronCreateMD,
		struct{ MaxJobs, MaxPromptBytes int }{CronMaxJobs, CronMaxPromptBytes},
		fmt.Sprintf(cronCreateSchema, CronMaxPromptBytes))}
}

// Definition implements loop.ExecutableTool.
func (t *CronCreate) Definition() llm.Tool { return t.def }

// ResolveExecution implements loop.ExecutableTool. Every check that can
// fail happens here, before anyone is asked to approve the call.
func (t *CronCreate) ResolveExecution(raw json.RawMessage) (loop.Execution, *loop.ToolResult, error) {
	var a struct {
		Cron      string `json:"cron"`
		Prompt    string `json:"prompt"`
		Recurring *bool  `json:"recurring"`
	}
	if r := decodeArgs(NameCronCreate, raw, &a); r != nil {
		return loop.Execution{}, r, nil
	}
	recurring := a.Recurring == nil || *a.Recurring
	if t.cron.Disabled() {
		return loop.Execution{}, errorResult("Cron scheduling is disabled (KIMI_DISABLE_CRON=1)."), nil
	}
	plan, err := t.cron.Plan(a.Cron, recurring)
	if err != nil {
		return loop.Execution{}, errorResult("Invalid cron expression: %s", err), nil
	}
	if plan.FirstFire.IsZero() {
		return loop.Execution{}, errorResult("Cron expression %q has no fire within 5 years; refusing to schedule.", plan.Cron), nil
	}
	if t.cron.Count() >= CronMaxJobs {
		return loop.Execution{}, errorResult("%s", ErrCronCapReached), nil
	}
	if n := len(a.Prompt); n > CronMaxPromptBytes {
		return loop.Execution{}, errorResult("Prompt exceeds %d bytes (got %d).", CronMaxPromptBytes, n), nil
	}
	if !recurring && plan.FirstFire.Sub(t.cron.Now()) > oneShotHorizon {
		return loop.Execution{}, errorResult("A one-off job with %q would first fire at %s, more than 350 days from now: "+
			"the day and month it pins have already passed this year. Pick a date within the coming months.",
			plan.Cron, plan.FirstFire.Format(cronTimeLayout)), nil
	}
	payload, err := marshalNoEscape(struct {
		Cron      string `json:"cron"`
		Prompt    string `json:"prompt"`
		Recurring bool   `json:"recurring"`
	}{plan.Cron, a.Prompt, recurring})
	if err != nil {
		return loop.Execution{}, nil, fmt.Errorf("encode the approval rule: %w", err)
	}
	label := "Scheduling cron "
	if !recurring {
		label = "Scheduling one-shot "
	}
	return loop.Execution{
		Description:  label + plan.Cron,
		ApprovalRule: workspace.ApprovalRule(NameCronCreate, payload),
		MatchesRule:  workspace.StringRuleMatcher(payload),
		Execute: func(ctx context.Context, _ loop.ExecCtx) (loop.ToolResult, error) {
			job, err := t.cron.Add(ctx, CronJobSpec{Cron: plan.Cron, Prompt: a.Prompt, Recurring: recurring})
			switch {
			case errors.Is(err, ErrCronCapReached):
				return loop.ErrorResult(err.Error()), nil
			case err != nil:
				return loop.ErrorResult("Could not schedule the job: " + err.Error()), nil
			}
			out := strings.Join([]string{
				"id: " + job.ID, "cron: " + job.Cron, "humanSchedule: " + job.Human,
				"recurring: " + strconv.FormatBool(job.Recurring), "nextFireAt: " + cronTime(job.NextFire),
			}, "\n")
			return loop.ToolResult{Output: loop.TextOutput(out), Message: "Scheduled cron " + job.ID, Brief: "Scheduled " + job.ID}, nil
		},
	}, nil, nil
}

// cronTime is t in local ISO form, or null.
func cronTime(t time.Time) string {
	if t.IsZero() {
		return "null"
	}
	return t.Format(cronTimeLayout)
}
