package historytest

import (
	"encoding/json"
	"fmt"
	"maps"

	"github.com/kimigo/kimigo/agent/history"
	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/loop"
)

// Ops are the opcodes Build reads, one byte each (the byte modulo NumOps).
// Exchanges are built from separate ops, so any interleaving the fuzzer
// finds is a history shape: results displaced, missing, duplicated,
// placed before their call or answering nothing.
const (
	OpUser                 byte = iota // U: a prompt, origin user
	OpUserNoOrigin                     // a user message without origin
	OpNotification                     // N: a background-task notification
	OpInjection                        // I: an injected reminder
	OpSummary                          // S: a compaction summary
	OpAssistantEmpty                   // an assistant with no content and no calls
	OpAssistantBlankThink              // an assistant with only an unsigned blank think part
	OpAssistantSignedThink             // an assistant with a signed empty think part
	OpAssistantText                    // an assistant answering with text
	OpUserWhitespace                   // a prompt of whitespace only
	OpUserLeadingEmpty                 // a prompt with a leading "" part
	OpUserMedia                        // a prompt with only an image
	OpPartial                          // a partial assistant message
	OpSchema                           // a system message declaring tools
	OpCalls1                           // an assistant calling one fresh id
	OpCalls2                           // … two fresh ids
	OpCalls3                           // … three fresh ids
	OpResult                           // the result of the oldest open call
	OpResultNewest                     // the result of the newest open call
	OpResultsReversed                  // results of every open call, newest first
	OpResultMedia                      // a text-and-image result of the oldest open call
	OpResultError                      // a failed result with a note, oldest open call
	OpResultBlank                      // an empty or whitespace result, oldest open call
	OpDuplicateResult                  // another result for an answered call
	OpOrphan                           // a result for an id never called
	OpReuseCall                        // an assistant calling an id used before
	OpRepeatInMessage                  // an assistant calling one fresh id twice
	OpEarlyResult                      // a result for the id the next call will use
	OpEmptyIDCall                      // an assistant calling with an empty id
	OpEmptyIDResult                    // a result with an empty id
	OpMissingMedia                     // a prompt whose image blob is missing
	OpUserAudioVideo                   // a prompt with audio and video
	OpCron                             // a cron-job prompt
	OpThinkAndText                     // an assistant with think and text
	NumOps                             // number of opcodes
)

// Build decodes fuzz bytes into a typed history, possibly broken in every
// way projection must repair. The same bytes give the same history.
func Build(ops []byte) []history.Message {
	b := &builder{}
	for _, op := range ops {
		b.op(op % NumOps)
	}
	return b.msgs
}

// builder grows a history and remembers the calls that are open.
type builder struct {
	msgs     []history.Message
	n        int      // counter for texts and fresh ids
	open     []string // calls without a result, in call order
	answered []string // calls with a result
	called   []string // every id called
	early    []string // ids answered before their call, for the next calls
}

func (b *builder) op(op byte) {
	b.n++
	switch op {
	case OpUser:
		b.user(history.UserOrigin(), text(fmt.Sprintf("prompt %d", b.n)))
	case OpUserNoOrigin:
		b.user(nil, text(fmt.Sprintf("plain %d", b.n)))
	case OpNotification:
		b.user(&history.Origin{Kind: history.OriginBackgroundTask, TaskID: "t", Status: "completed",
			NotificationID: fmt.Sprintf("task:t%d:completed", b.n)}, text(fmt.Sprintf("<notification %d>", b.n)))
	case OpInjection:
		b.user(history.InjectionOrigin(history.VariantSystemReminder), text(fmt.Sprintf("<system-reminder>r%d</system-reminder>", b.n)))
	case OpSummary:
		b.user(history.CompactionSummaryOrigin(), text(fmt.Sprintf("summary %d", b.n)))
	case OpAssistantEmpty:
		b.assistant(nil)
	case OpAssistantBlankThink:
		b.assistant([]llm.ContentPart{llm.ThinkPart([]string{"", " \n"}[b.n%2], "")})
	case OpAssistantSignedThink:
		b.assistant([]llm.ContentPart{llm.ThinkPart("", "sig")})
	case OpAssistantText:
		b.assistant(text(fmt.Sprintf("answer %d", b.n)))
	case OpUserWhitespace:
		b.user(history.UserOrigin(), text(" \n\t"))
	case OpUserLeadingEmpty:
		b.user(history.UserOrigin(), []llm.ContentPart{llm.TextPart(""), llm.TextPart(fmt.Sprintf("hi %d", b.n))})
	case OpUserMedia:
		b.user(history.UserOrigin(), []llm.ContentPart{llm.ImagePart(pngURL)})
	case OpPartial:
		b.add(history.Message{Message: llm.Message{Role: llm.RoleAssistant, Partial: true, Content: text("cut off")}})
	case OpSchema:
		b.add(history.Message{Message: llm.Message{Role: llm.RoleSystem, Tools: []llm.Tool{{Name: "Grep",
			Description: "search", Parameters: json.RawMessage(`{"type":"object"}`)}}},
			Origin: history.InjectionOrigin(history.VariantDynamicToolSchema)})
	case OpCalls1, OpCalls2, OpCalls3:
		ids := make([]string, 0, 3)
		for range int(op-OpCalls1) + 1 {
			ids = append(ids, b.freshID())
		}
		b.calls(ids...)
	case OpResult:
		b.resultFor(0, textOutput(fmt.Sprintf("out %d", b.n)), false, "")
	case OpResultNewest:
		b.resultFor(len(b.open)-1, textOutput(fmt.Sprintf("out %d", b.n)), false, "")
	case OpResultsReversed:
		for len(b.open) > 0 {
			b.resultFor(len(b.open)-1, textOutput(fmt.Sprintf("out %d", b.n)), false, "")
		}
	case OpResultMedia:
		b.resultFor(0, []llm.ContentPart{llm.TextPart("<image>"), llm.ImagePart(pngURL)}, false, "")
	case OpResultError:
		b.resultFor(0, textOutput("failed"), true, "<system>note</system>")
	case OpResultBlank:
		b.resultFor(0, textOutput([]string{"", "  \n"}[b.n%2]), b.n%3 == 0, "")
	case OpDuplicateResult:
		if len(b.answered) > 0 {
			b.result(b.answered[b.n%len(b.answered)], textOutput("again"), false, "")
		}
	case OpOrphan:
		b.result(fmt.Sprintf("orphan_%d", b.n), textOutput("stray"), false, "")
	case OpReuseCall:
		if len(b.called) > 0 {
			b.calls(b.called[b.n%len(b.called)])
		}
	case OpRepeatInMessage:
		id := b.freshID()
		b.callsRaw([]string{id, id})
	case OpEarlyResult:
		id := fmt.Sprintf("early_%d", b.n)
		b.early = append(b.early, id)
		b.result(id, textOutput("too early"), false, "")
	case OpEmptyIDCall:
		b.calls("")
	case OpEmptyIDResult:
		b.result("", textOutput("no id"), false, "")
	case OpMissingMedia:
		b.user(history.UserOrigin(), []llm.ContentPart{llm.TextPart("see"), llm.ImagePart(history.MediaMissing)})
	case OpUserAudioVideo:
		b.user(history.UserOrigin(), []llm.ContentPart{llm.AudioPart("https://example.com/a.mp3"), llm.VideoPart(mp4URL, "")})
	case OpCron:
		b.user(&history.Origin{Kind: history.OriginCronJob, JobID: "j", Cron: "* * * * *"}, text("cron tick"))
	case OpThinkAndText:
		b.assistant([]llm.ContentPart{llm.ThinkPart("", ""), llm.TextPart("thought through")})
	}
}

// Media URLs the loopback Anthropic fake accepts.
const (
	pngURL = "data:image/png;base64,iVBORw0KGgo="
	mp4URL = "https://example.com/v.mp4"
)

func text(s string) []llm.ContentPart { return []llm.ContentPart{llm.TextPart(s)} }

// textOutput is how a string output is stored: one text part.
func textOutput(s string) []llm.ContentPart { return text(s) }

func (b *builder) add(m history.Message) { b.msgs = append(b.msgs, m) }

func (b *builder) user(origin *history.Origin, parts []llm.ContentPart) {
	b.add(history.Message{Message: llm.Message{Role: llm.RoleUser, Content: parts}, Origin: origin})
}

func (b *builder) assistant(parts []llm.ContentPart) {
	b.add(history.Message{Message: llm.Message{Role: llm.RoleAssistant, Content: parts}})
}

func (b *builder) freshID() string {
	if len(b.early) > 0 {
		id := b.early[0]
		b.early = b.early[1:]
		return id
	}
	return fmt.Sprintf("call_%d_%d", b.n, len(b.called))
}

// calls adds an assistant calling ids (deduplicated into the open set).
func (b *builder) calls(ids ...string) { b.callsRaw(ids) }

func (b *builder) callsRaw(ids []string) {
	m := history.Message{Message: llm.Message{Role: llm.RoleAssistant}}
	if b.n%2 == 0 {
		m.Content = text(fmt.Sprintf("calling %d", b.n))
	}
	for _, id := range ids {
		m.ToolCalls = append(m.ToolCalls, llm.ToolCall{ID: id, Name: "Read", Arguments: `{"path":"a.go"}`})
		if m.ToolCallDisplays == nil {
			m.ToolCallDisplays = map[string]loop.Display{}
		}
		m.ToolCallDisplays[id] = &loop.FileIODisplay{Operation: "read", Path: "a.go"}
		b.called = append(b.called, id)
		if !contains(b.open, id) {
			b.open = append(b.open, id)
		}
	}
	b.add(m)
}

// resultFor answers the open call at index i, if there is one.
func (b *builder) resultFor(i int, content []llm.ContentPart, isError bool, note string) {
	if i < 0 || i >= len(b.open) {
		return
	}
	id := b.open[i]
	b.open = append(b.open[:i:i], b.open[i+1:]...)
	b.answered = append(b.answered, id)
	b.result(id, content, isError, note)
}

func (b *builder) result(id string, content []llm.ContentPart, isError bool, note string) {
	b.add(history.Message{
		Message: llm.Message{Role: llm.RoleTool, ToolCallID: id, Content: content},
		IsError: isError, Note: note,
	})
}

func contains(ids []string, id string) bool {
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}

// Wrap turns projected messages back into a history without origins, to
// check that projecting a projection changes nothing.
func Wrap(msgs []llm.Message) []history.Message { return history.FromProjected(msgs) }

// Clone deep-copies a history, so that a test can prove projection left
// its input alone.
func Clone(h []history.Message) []history.Message {
	if h == nil {
		return nil
	}
	out := make([]history.Message, len(h))
	for i, m := range h {
		c := m
		c.Message = m.Message.Clone()
		if m.Origin != nil {
			o := *m.Origin
			c.Origin = &o
		}
		c.ToolCallDisplays = maps.Clone(m.ToolCallDisplays)
		out[i] = c
	}
	return out
}
