package tui

import (
	"fmt"
	"io"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/kimigo/kimigo/event"
	"github.com/kimigo/kimigo/session"
	"github.com/kimigo/kimigo/ui/term"
)

// benchModel is a model that replayed n transcript entries, drawn on a
// screen that writes nowhere.
func benchModel(b *testing.B, n int) (*Model, *term.Screen) {
	b.Helper()
	var replay []session.TranscriptEntry
	for i := range n {
		replay = append(replay, session.TranscriptEntry{Kind: session.TranscriptUser, Text: fmt.Sprintf("prompt %d", i)},
			session.TranscriptEntry{Kind: session.TranscriptAssistant, Text: fmt.Sprintf("answer **%d** with `code`", i)})
	}
	rec := newRecorder()
	m := New(b.Context(), Options{Session: rec, Home: b.TempDir(), WorkDir: "/w", Replay: replay, TUI: Settings{Theme: "dark"}},
		inlineCaller{ctx: b.Context()})
	m.afterFunc = func(_ time.Duration, _ tea.Msg) tea.Cmd { return nil }
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 40})
	m.Init()
	scr := term.NewScreen(io.Discard, 100, 40)
	if err := scr.Update(m.TakePrints(), m.Frame()); err != nil {
		b.Fatal(err)
	}
	m.Painted()
	return m, scr
}

// BenchmarkKeystroke is one key typed in an idle interface after a
// replay of 5,000 messages: the update, the frame and its drawing. It
// does not grow with the transcript.
func BenchmarkKeystroke(b *testing.B) {
	for _, n := range []int{10, 2500} {
		b.Run(fmt.Sprintf("messages=%d", 2*n), func(b *testing.B) {
			m, scr := benchModel(b, n)
			keys := []tea.KeyPressMsg{{Code: 'a', Text: "a"}, {Code: tea.KeyBackspace}}
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				m.Update(keys[i%2])
				if err := scr.Update(m.TakePrints(), m.Frame()); err != nil {
					b.Fatal(err)
				}
				m.Painted()
			}
		})
	}
}

// BenchmarkStreamingFrame is one frame of a streaming answer: a delta
// and the frame that shows it.
func BenchmarkStreamingFrame(b *testing.B) {
	m, scr := benchModel(b, 10)
	m.Update(eventMsg{sub: m.sub, ev: event.TurnStarted{Header: event.InTurn(1)}})
	for b.Loop() {
		m.Update(eventMsg{sub: m.sub, ev: event.AssistantDelta{Header: event.InTurn(1), Delta: "more words of the answer "}})
		m.Update(frameMsg{})
		if err := scr.Update(m.TakePrints(), m.Frame()); err != nil {
			b.Fatal(err)
		}
		m.Painted()
	}
}
