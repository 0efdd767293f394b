package openai

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/kimigo/kimigo/llm"
)

// benchTools is a tool table the size of the agent's: a dozen tools, each
// with a described schema of a few properties.
func benchTools() []llm.Tool {
	tools := make([]llm.Tool, 12)
	for i := range tools {
		schema := fmt.Sprintf(`{"type":"object","properties":{"path":{"type":"string","description":"The file to work on, relative to the work dir (tool %d)."},`+
			`"line_offset":{"type":"integer","description":"The first line, from 1."},"n_lines":{"type":"integer","description":"How many lines."},`+
			`"mode":{"type":"string","enum":["a","b","c"]}},"required":["path"]}`, i)
		tools[i] = llm.Tool{Name: fmt.Sprintf("Tool%d", i), Description: strings.Repeat("Does one thing well, and says so. ", 20),
			Parameters: json.RawMessage(schema)}
	}
	return tools
}

// benchHistories are two conversations of steps Read round trips after a
// prompt that differ only in their last round trip, as the requests of two
// consecutive steps differ in what they add.
func benchHistories(steps int) (a, b []llm.Message) {
	msgs := []llm.Message{llm.UserMessage("Page through a.txt and summarise it.")}
	step := func(i int) []llm.Message {
		id := fmt.Sprintf("call_%d", i)
		return []llm.Message{
			llm.AssistantMessage("", llm.ToolCall{ID: id, Name: "Tool0", Arguments: fmt.Sprintf(`{"path":"a.txt","line_offset":%d,"n_lines":1}`, i)}),
			llm.ToolMessage(id, llm.TextPart(fmt.Sprintf("     %d\tline %d of the file the model pages through\n", i, i))),
		}
	}
	for i := range steps - 1 {
		msgs = append(msgs, step(i)...)
	}
	a = append(msgs[:len(msgs):len(msgs)], step(steps-1)...)
	b = append(msgs[:len(msgs):len(msgs)], step(steps)...)
	return a, b
}

// BenchmarkStepRequest encodes one step's request as Generate does (the
// wire body built from the llm.Request and read whole, as the transport
// reads it) at 20 and 200 steps into a conversation, with the agent's
// system prompt and tool table, for both flavours. Consecutive requests
// alternate between two histories that share all but their last round
// trip, so each request has a step's worth of messages the last one did
// not.
func BenchmarkStepRequest(b *testing.B) {
	system := strings.Repeat("You are a coding agent. Follow the rules of the project <AGENTS.md> & be brief.\n", 100)
	for _, fl := range []struct {
		name    string
		flavour Flavour
		model   string
	}{{"kimi", Kimi, "kimi-k2-turbo-preview"}, {"openai", OpenAI, "gpt-5"}} {
		for _, steps := range []int{20, 200} {
			b.Run(fmt.Sprintf("%s/steps=%d", fl.name, steps), func(b *testing.B) {
				p := New(Options{Flavour: fl.flavour, APIKey: "k", Model: fl.model})
				ha, hb := benchHistories(steps)
				reqs := [2]llm.Request{{System: system, Tools: benchTools(), Messages: ha}, {System: system, Messages: hb}}
				reqs[1].Tools = reqs[0].Tools
				b.ReportAllocs()
				i := 0
				for b.Loop() {
					body, err := p.requestBody(&reqs[i%2])
					if err != nil {
						b.Fatal(err)
					}
					n, err := io.Copy(io.Discard, body.Reader())
					if err != nil || n != body.Len() {
						b.Fatalf("read %d of %d bytes: %v", n, body.Len(), err)
					}
					i++
				}
			})
		}
	}
}

// BenchmarkToolTable encodes a tool table the first time a provider sends
// it (every later request takes it from the cache), for both flavours.
func BenchmarkToolTable(b *testing.B) {
	tools := benchTools()
	for _, kimi := range []bool{true, false} {
		b.Run(fmt.Sprintf("kimi=%v", kimi), func(b *testing.B) {
			e := &encoder{kimi: kimi}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := (&toolsCache{}).encode(e, tools); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
