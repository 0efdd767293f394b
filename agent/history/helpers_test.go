package history_test

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/kimigo/kimigo/agent/history"
	"github.com/kimigo/kimigo/llm"
)

// The notation of spec 02 §8: U user prompt, N notification, I injection,
// S summary, A assistant with calls, T tool result.

func U(text string) history.Message {
	return history.Message{Message: llm.UserMessage(text), Origin: history.UserOrigin()}
}

func N(text string) history.Message {
	return history.Message{Message: llm.UserMessage(text), Origin: &history.Origin{Kind: history.OriginBackgroundTask,
		TaskID: "t1", Status: "completed", NotificationID: "task:t1:completed"}}
}

func I(text string) history.Message {
	return history.Message{Message: llm.UserMessage(text), Origin: history.InjectionOrigin(history.VariantSystemReminder)}
}

func S(text string) history.Message {
	return history.Message{Message: llm.UserMessage(text), Origin: history.CompactionSummaryOrigin()}
}

// plainUser is a user message without origin.
func plainUser(text string) history.Message { return history.Message{Message: llm.UserMessage(text)} }

// A is an assistant with text (omitted when empty) calling ids.
func A(text string, ids ...string) history.Message {
	var calls []llm.ToolCall
	for _, id := range ids {
		calls = append(calls, llm.ToolCall{ID: id, Name: "Read", Arguments: `{"path":"a.go"}`})
	}
	return history.Message{Message: llm.AssistantMessage(text, calls...)}
}

func T(id, text string) history.Message {
	return history.Message{Message: llm.ToolMessage(id, llm.TextPart(text))}
}

func assistantParts(parts ...llm.ContentPart) history.Message {
	return history.Message{Message: llm.Message{Role: llm.RoleAssistant, Content: parts}}
}

func userParts(parts ...llm.ContentPart) history.Message {
	return history.Message{Message: llm.Message{Role: llm.RoleUser, Content: parts}, Origin: history.UserOrigin()}
}

// roles lists msgs as "role" or "tool:id".
func roles(msgs []llm.Message) []string {
	var out []string
	for _, m := range msgs {
		if m.Role == llm.RoleTool {
			out = append(out, "tool:"+m.ToolCallID)
		} else {
			out = append(out, string(m.Role))
		}
	}
	return out
}

func texts(msgs []llm.Message) []string {
	var out []string
	for _, m := range msgs {
		out = append(out, llm.ExtractText(m, "|"))
	}
	return out
}

// memoryWith returns a Memory whose history is h.
func memoryWith(t *testing.T, opts history.Options, h ...history.Message) *history.Memory {
	t.Helper()
	mem := history.New(opts)
	for _, m := range h {
		if ch := mem.AppendMessage(m); ch.Deferred {
			t.Fatalf("message %v was deferred", m)
		}
	}
	return mem
}

// logRecorder is a slog handler that keeps every record's level and
// message.
type logRecorder struct {
	mu   sync.Mutex
	recs []string
}

func (l *logRecorder) Enabled(context.Context, slog.Level) bool { return true }
func (l *logRecorder) WithAttrs([]slog.Attr) slog.Handler       { return l }
func (l *logRecorder) WithGroup(string) slog.Handler            { return l }
func (l *logRecorder) Handle(_ context.Context, r slog.Record) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	var b strings.Builder
	b.WriteString(r.Level.String() + " " + r.Message)
	r.Attrs(func(a slog.Attr) bool {
		b.WriteString(" " + a.String())
		return true
	})
	l.recs = append(l.recs, b.String())
	return nil
}

func (l *logRecorder) lines() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.recs...)
}

func (l *logRecorder) logger() *slog.Logger { return slog.New(l) }

// cmpEmpty treats nil and empty slices alike.
var cmpEmpty = cmpopts.EquateEmpty()
