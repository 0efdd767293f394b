package cron

import (
	"fmt"

	"github.com/kimigo/kimigo/agent/history"
	"github.com/kimigo/kimigo/llm"
)

// Envelope renders a fire as the user message a turn starts with (spec
// 05 §7.5): the prompt verbatim inside a <cron-fire> block whose
// attributes say which job fired and how.
func Envelope(o history.Origin, prompt string) string {
	return fmt.Sprintf("<cron-fire jobId=\"%s\" cron=\"%s\" recurring=\"%t\" coalescedCount=\"%d\" stale=\"%t\">\n<prompt>\n%s\n</prompt>\n</cron-fire>",
		history.EscapeXMLAttr(o.JobID), history.EscapeXMLAttr(o.Cron), o.Recurring, o.CoalescedCount, o.Stale, prompt)
}

// fireOrigin is the origin of a fire's message.
func fireOrigin(f Fire, stale bool) *history.Origin {
	return &history.Origin{Kind: history.OriginCronJob, JobID: f.Job.ID, Cron: f.Job.Cron,
		Recurring: f.Job.Recurring, CoalescedCount: f.CoalescedCount, Stale: stale}
}

// fireParts is a fire's message content.
func fireParts(o *history.Origin, prompt string) []llm.ContentPart {
	return []llm.ContentPart{llm.TextPart(Envelope(*o, prompt))}
}
