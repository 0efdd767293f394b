package print

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"sync"

	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/llm/plainjson"
)

// jsonRenderer is the stream-json format (spec 06 §1.6.3, ERRATA 19):
// one JSON object per stdout line and nothing else on stdout. Each model
// step becomes one assistant line with the step's text and every call it
// made, written before the first tool line of the step; tool lines follow
// in the order their results arrive. Reasoning is never written.
type jsonRenderer struct {
	mu  sync.Mutex
	out io.Writer
	err error // first write error on out

	text  strings.Builder
	calls []*toolCallLine
	byID  map[string]*toolCallLine
}

func newJSONRenderer(o Options) *jsonRenderer {
	return &jsonRenderer{out: o.Stdout, byID: map[string]*toolCallLine{}}
}

// The line shapes. Field order is the order of the spec's examples.
type (
	metaLine struct {
		Role    string `json:"role"`
		Type    string `json:"type"`
		Version string `json:"version,omitempty"`
	}
	assistantLine struct {
		Role      string          `json:"role"`
		Content   string          `json:"content,omitempty"`
		ToolCalls []*toolCallLine `json:"tool_calls,omitempty"`
	}
	toolCallLine struct {
		Type     string       `json:"type"`
		ID       string       `json:"id"`
		Function functionLine `json:"function"`
		// deltas collects streamed argument text until the call starts
		// (then its arguments replace them) or the line is written.
		deltas  strings.Builder
		started bool
	}
	functionLine struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	}
	toolLine struct {
		Role       string `json:"role"`
		ToolCallID string `json:"tool_call_id"`
		Content    string `json:"content"`
	}
	retryLine struct {
		Role          string `json:"role"`
		Type          string `json:"type"`
		FailedAttempt int    `json:"failed_attempt"`
		NextAttempt   int    `json:"next_attempt"`
		MaxAttempts   int    `json:"max_attempts"`
		DelayMs       int64  `json:"delay_ms"`
		ErrorName     string `json:"error_name"`
		ErrorMessage  string `json:"error_message"`
		StatusCode    int    `json:"status_code,omitempty"`
	}
	resumeHintLine struct {
		Role      string `json:"role"`
		Type      string `json:"type"`
		SessionID string `json:"session_id"`
		Command   string `json:"command"`
		Content   string `json:"content"`
	}
)

func (r *jsonRenderer) start(version string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.line(metaLine{Role: "meta", Type: "system.version", Version: version})
}

// render shows one event of the main agent's current turn.
func (r *jsonRenderer) render(ev event.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch e := ev.(type) {
	case event.AssistantDelta:
		r.text.WriteString(e.Delta)
	case event.ToolCallDelta:
		c := r.call(e.ToolCallID)
		if e.Name != "" {
			c.Function.Name = e.Name
		}
		if !c.started {
			c.deltas.WriteString(e.ArgumentsPart)
		}
	case event.ToolCallStarted:
		c := r.call(e.ToolCallID)
		c.Function.Name = e.Name
		c.Function.Arguments = compactArgs(e.Args)
		c.started, c.deltas = true, strings.Builder{}
	case event.ToolResult:
		r.flush()
		r.line(toolLine{Role: "tool", ToolCallID: e.ToolCallID, Content: outputText(e)})
	case event.StepStarted, event.StepCompleted, event.StepInterrupted:
		r.flush()
	case event.TurnEnded:
		if e.Reason == event.EndCompleted {
			r.flush()
		}
	case event.StepRetrying:
		r.discard()
		r.line(retryLine{Role: "meta", Type: "turn.step.retrying", FailedAttempt: e.FailedAttempt,
			NextAttempt: e.NextAttempt, MaxAttempts: e.MaxAttempts, DelayMs: e.DelayMs,
			ErrorName: e.ErrorName, ErrorMessage: e.ErrorMessage, StatusCode: e.StatusCode})
	case event.HookResult:
		r.flush()
		r.line(assistantLine{Role: "assistant", Content: hookText(e)})
	}
}

// call finds or creates the buffered call with id, keeping first-seen
// order.
func (r *jsonRenderer) call(id string) *toolCallLine {
	if c, ok := r.byID[id]; ok {
		return c
	}
	c := &toolCallLine{Type: "function", ID: id}
	r.calls = append(r.calls, c)
	r.byID[id] = c
	return c
}

// flush writes the buffered step as one assistant line; an empty buffer
// writes nothing.
func (r *jsonRenderer) flush() {
	if r.text.Len() == 0 && len(r.calls) == 0 {
		return
	}
	for _, c := range r.calls {
		if !c.started {
			c.Function.Arguments = c.deltas.String()
		}
	}
	r.line(assistantLine{Role: "assistant", Content: r.text.String(), ToolCalls: r.calls})
	r.discard()
}

func (r *jsonRenderer) discard() {
	r.text.Reset()
	r.calls = nil
	clear(r.byID)
}

func (r *jsonRenderer) finish() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.flush()
	return r.err
}

// end writes the resume hint line of a successful run, then the result
// line, which ends every run (issue 15 item 4).
func (r *jsonRenderer) end(res Result) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.flush()
	if res.ended && res.ResumeCommand != "" {
		r.line(resumeHintLine{Role: "meta", Type: "session.resume_hint", SessionID: res.SessionID,
			Command: res.ResumeCommand, Content: "To resume this session: " + res.ResumeCommand})
	}
	if r.err == nil {
		r.err = WriteResult(r.out, res)
	}
}

func (r *jsonRenderer) goalSummary(g *event.Goal) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.line(summaryLine(g))
}

// line writes v as one line with a single write, so lines never
// interleave with anything else written to the stream.
func (r *jsonRenderer) line(v any) {
	if r.err != nil {
		return
	}
	b, err := plainjson.Marshal(v) // the text is shown as written: no \u003c for <
	if err != nil {
		r.err = err
		return
	}
	_, r.err = r.out.Write(append(b, '\n'))
}

// compactArgs is the call's argument text as the model wrote it, without
// insignificant white space and with its key order kept (ERRATA 4).
// Arguments that are not JSON are kept as given.
func compactArgs(raw json.RawMessage) string {
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return string(raw)
	}
	return buf.String()
}

// outputText is a tool line's content: the output string, or the JSON of
// a list of content parts.
func outputText(e event.ToolResult) string {
	if !e.Output.IsParts() {
		return e.Output.Text()
	}
	b, err := json.Marshal(e.Output)
	if err != nil {
		return e.Output.Text()
	}
	return string(b)
}
