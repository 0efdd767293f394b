package history_test

import (
	"fmt"
	"testing"

	"github.com/kimigo/kimigo/agent/history"
	"github.com/kimigo/kimigo/llm"
)

// benchHistory is a realistic history of about n messages: turns of a
// prompt, an assistant calling two tools, their results (one with a note,
// every seventh failed) and an answer; every 50th turn a notification
// separates a call from its result and every 80th leaves a result missing.
func benchHistory(n int) []history.Message {
	h := make([]history.Message, 0, n+8)
	for turn := 0; len(h) < n; turn++ {
		a, b := fmt.Sprintf("call_%d_a", turn), fmt.Sprintf("call_%d_b", turn)
		h = append(h, U(fmt.Sprintf("prompt %d: please look at the files", turn)))
		call := A("let me read them", a, b)
		call.Content = append([]llm.ContentPart{llm.ThinkPart("thinking about it", "sig")}, call.Content...)
		h = append(h, call)
		if turn%50 == 49 {
			h = append(h, N("background task finished"))
		}
		h = append(h, history.Message{Message: llm.ToolMessage(a, llm.TextPart("package main\n\nfunc main() {}\n")),
			Note: "<system>3 lines read.</system>", IsError: turn%7 == 6})
		if turn%80 != 79 {
			h = append(h, T(b, "package lib"))
		}
		h = append(h, A(fmt.Sprintf("answer %d", turn)))
	}
	return h
}

func benchProject(b *testing.B, n int) {
	h := benchHistory(n)
	for _, v := range []struct {
		name string
		opts history.ProjectOptions
	}{{"normal", history.NormalOptions()}, {"strict", history.StrictOptions()}} {
		b.Run(v.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if out := history.Project(h, v.opts); len(out) == 0 {
					b.Fatal("empty projection")
				}
			}
		})
	}
}

func BenchmarkProject1k(b *testing.B)   { benchProject(b, 1_000) }
func BenchmarkProject10k(b *testing.B)  { benchProject(b, 10_000) }
func BenchmarkProject100k(b *testing.B) { benchProject(b, 100_000) }
