package print

import "github.com/kimigo/kimigo/event"

// The main agent's events outside its turns: background tasks and cron
// fires. stream-json writes each as a meta line (a kimigo addition to
// spec 06 §1.6.3, so a consumer sees why the run goes on after its
// turn); the text format shows none of them, the wait itself being said
// on stderr.

type (
	taskLine struct {
		Role string     `json:"role"`
		Type string     `json:"type"`
		Task event.Task `json:"task"`
	}
	cronLine struct {
		Role   string `json:"role"`
		Type   string `json:"type"`
		JobID  string `json:"job_id"`
		Prompt string `json:"prompt"`
	}
)

// renderRuntime writes a task or cron meta line, after the buffered
// step: a task starts while its step's calls run, so the step's assistant
// line (every call known by then) comes first.
func (r *jsonRenderer) renderRuntime(ev event.Event) {
	var v any
	switch e := ev.(type) {
	case event.TaskStarted:
		v = taskLine{Role: "meta", Type: string(e.EventType()), Task: e.Task}
	case event.TaskTerminated:
		v = taskLine{Role: "meta", Type: string(e.EventType()), Task: e.Task}
	case event.CronFired:
		v = cronLine{Role: "meta", Type: string(e.EventType()), JobID: e.JobID, Prompt: e.Prompt}
	default:
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.flush()
	r.line(v)
}

func (r *textRenderer) renderRuntime(event.Event) {}

func (r *resultRenderer) renderRuntime(event.Event) {}
