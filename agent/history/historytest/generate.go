package historytest

import (
	"fmt"
	"math/rand/v2"

	"github.com/kimigo/kimigo/agent/history"
	"github.com/kimigo/kimigo/llm"
)

// Generate is generator G of spec 02 §8.1: 2–12 blocks of every message
// shape projection meets, and tool exchanges whose results go missing
// (p = 0.25 each), arrive shuffled, sit behind a sandwiched user message,
// arrive after a later exchange, arrive twice, arrive before their call,
// or answer nothing; ids are reused across (p = 0.1) and within (p = 0.05)
// messages. The same seed gives the same history.
func Generate(seed uint64) []history.Message {
	g := &generator{r: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), b: &builder{}}
	if g.r.IntN(10) == 0 {
		if g.r.IntN(2) == 0 {
			g.b.op(OpAssistantText)
		} else {
			g.b.op(OpOrphan)
		}
	}
	for range 2 + g.r.IntN(11) {
		if g.r.IntN(3) == 0 {
			g.exchange()
		} else {
			g.b.op(plainBlocks[g.r.IntN(len(plainBlocks))])
		}
	}
	return g.b.msgs
}

// plainBlocks are the non-exchange block kinds of G.
var plainBlocks = []byte{
	OpUser, OpUserNoOrigin, OpNotification, OpInjection, OpSummary, OpAssistantEmpty,
	OpAssistantBlankThink, OpAssistantSignedThink, OpAssistantText, OpUserWhitespace,
	OpUserLeadingEmpty, OpUserMedia, OpPartial, OpSchema, OpMissingMedia, OpUserAudioVideo,
	OpCron, OpThinkAndText,
}

type generator struct {
	r *rand.Rand
	b *builder
	// delayed is a result held back until after the next full exchange.
	delayed []history.Message
}

// exchange adds an assistant with 1–3 calls and some of their results.
func (g *generator) exchange() {
	b := g.b
	b.n++
	var ids []string
	for range 1 + g.r.IntN(3) {
		switch {
		case len(b.called) > 0 && g.r.Float64() < 0.1:
			ids = append(ids, b.called[g.r.IntN(len(b.called))])
		case len(ids) > 0 && g.r.Float64() < 0.05:
			ids = append(ids, ids[g.r.IntN(len(ids))])
		default:
			ids = append(ids, fmt.Sprintf("call_%d_%d", b.n, len(b.called)+len(ids)))
		}
	}
	var before []history.Message
	if g.r.IntN(10) == 0 {
		before = append(before, g.result(ids[0]))
	}
	b.msgs = append(b.msgs, before...)
	b.open = nil
	b.callsRaw(ids)
	b.open = nil

	var results []history.Message
	for _, id := range uniq(ids) {
		if g.r.Float64() < 0.25 {
			continue
		}
		results = append(results, g.result(id))
		b.answered = append(b.answered, id)
	}
	g.r.Shuffle(len(results), func(i, j int) { results[i], results[j] = results[j], results[i] })
	if g.r.IntN(8) == 0 {
		b.op([]byte{OpUser, OpNotification}[g.r.IntN(2)])
	}
	var held []history.Message
	if len(results) > 0 && g.r.IntN(8) == 0 {
		held, results = results[len(results)-1:], results[:len(results)-1]
	}
	b.msgs = append(b.msgs, results...)
	if len(results) == len(uniq(ids)) && len(g.delayed) > 0 {
		// A full exchange: the result held back by an earlier one lands
		// after it.
		b.msgs = append(b.msgs, g.delayed...)
		g.delayed = nil
	}
	g.delayed = append(g.delayed, held...)
	if g.r.IntN(10) == 0 && len(b.answered) > 0 {
		b.msgs = append(b.msgs, g.result(b.answered[g.r.IntN(len(b.answered))]))
	}
	if g.r.IntN(10) == 0 {
		b.msgs = append(b.msgs, g.result(fmt.Sprintf("orphan_%d", b.n)))
	}
}

// result is a random result for id: text (possibly empty or blank) or
// text and media parts; isError and note at random.
func (g *generator) result(id string) history.Message {
	var content []llm.ContentPart
	switch g.r.IntN(5) {
	case 0:
		content = text("")
	case 1:
		content = text(" \n ")
	case 2:
		content = []llm.ContentPart{llm.TextPart("see image"), llm.ImagePart(pngURL)}
	case 3:
		content = []llm.ContentPart{llm.TextPart(" "), llm.ImagePart("https://example.com/b.png"), llm.AudioPart("https://example.com/c.mp3")}
	default:
		content = text(fmt.Sprintf("output of %s", id))
	}
	m := history.Message{
		Message: llm.Message{Role: llm.RoleTool, ToolCallID: id, Content: content},
		IsError: g.r.IntN(4) == 0,
	}
	if g.r.IntN(4) == 0 {
		m.Note = "<system>note</system>"
	}
	return m
}

func uniq(ids []string) []string {
	var out []string
	for _, id := range ids {
		if !contains(out, id) {
			out = append(out, id)
		}
	}
	return out
}
