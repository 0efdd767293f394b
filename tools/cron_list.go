package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/loop"
)

// cronListPromptBytes is how much of a prompt CronList shows.
const cronListPromptBytes = 200

//go:embed cron_list.md
var cronListMD string

// CronList is the CronList tool (spec 05 §7.6).
type CronList struct {
	cron CronScheduler
	def  llm.Tool
}

// NewCronList returns the CronList tool over s.
func NewCronList(s CronScheduler) *CronList {
	return &CronList{cron: s, def: definition(NameCronList, cronListMD, nil,
		`{"type":"object","properties":{},"additionalProperties":false}`)}
}

// Definition implements loop.ExecutableTool.
func (t *CronList) Definition() llm.Tool { return t.def }

// ResolveExecution implements loop.ExecutableTool.
func (t *CronList) ResolveExecution(raw json.RawMessage) (loop.Execution, *loop.ToolResult, error) {
	var a struct{}
	if r := decodeArgs(NameCronList, raw, &a); r != nil {
		return loop.Execution{}, r, nil
	}
	return loop.Execution{
		Accesses:     loop.None(),
		Description:  "Listing cron jobs",
		ApprovalRule: NameCronList,
		Execute: func(context.Context, loop.ExecCtx) (loop.ToolResult, error) {
			jobs := t.cron.List()
			header := fmt.Sprintf("cron_jobs: %d", len(jobs))
			if len(jobs) == 0 {
				return loop.TextResult(header + "\nNo cron jobs scheduled."), nil
			}
			now := t.cron.Now()
			recs := make([]string, 0, len(jobs))
			for _, j := range jobs {
				prompt, err := marshalNoEscape(cutPrompt(j.Prompt))
				if err != nil {
					return loop.ToolResult{}, fmt.Errorf("encode prompt of %s: %w", j.ID, err)
				}
				age := now.Sub(j.CreatedAt).Hours() / 24
				recs = append(recs, strings.Join([]string{
					"id: " + j.ID, "cron: " + j.Cron, "humanSchedule: " + j.Human, "prompt: " + prompt,
					"nextFireAt: " + cronTime(j.NextFire), "recurring: " + strconv.FormatBool(j.Recurring),
					"ageDays: " + strconv.FormatFloat(max(age, 0), 'f', 2, 64), "stale: " + strconv.FormatBool(j.Stale),
				}, "\n"))
			}
			return loop.TextResult(header + "\n" + strings.Join(recs, "\n---\n")), nil
		},
	}, nil, nil
}

// cutPrompt keeps the first 200 bytes of a prompt, on a character
// boundary, marking the cut.
func cutPrompt(p string) string {
	if len(p) <= cronListPromptBytes {
		return p
	}
	cut := cronListPromptBytes
	for cut > 0 && !utf8.RuneStart(p[cut]) {
		cut--
	}
	return p[:cut] + "…(truncated)"
}
