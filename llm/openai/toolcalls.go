package openai

import (
	"maps"
	"slices"
	"strings"

	"github.com/kimigo/kimigo/llm"
	"github.com/kimigo/kimigo/llm/internal/wire"
)

// toolCallDelta is one entry of delta.tool_calls.
type toolCallDelta struct {
	Index    *int           `json:"index"`
	ID       string         `json:"id"`
	Function *functionDelta `json:"function"`
}

type functionDelta struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
	// args is the arguments as the chunk scanner decoded them, when
	// scanned: bytes of the chunk or of the scanner's scratch, valid until
	// the next scan. encoding/json fills Arguments instead.
	args    []byte
	scanned bool
}

// arguments returns the argument text of the delta.
func (f *functionDelta) arguments() []byte {
	if f.scanned {
		return f.args
	}
	return []byte(f.Arguments)
}

// callBuffer turns streamed tool-call deltas into stream parts (spec 01
// §3.1.2). Some servers stream argument text for an index before its name
// arrives; that text is held back and put into the call header once the
// name is known. An index that never gets a name but has an id or
// arguments becomes a call without a name at the end of the stream (finish),
// which the loop answers with an error result; the spec drops it, and a
// response whose only call it was then looked empty and was retried.
type callBuffer struct {
	byIndex map[int]*bufferedCall
}

type bufferedCall struct {
	id      string
	args    strings.Builder
	emitted bool
}

// add appends the parts one delta entry yields to out. Argument deltas go
// through run, which coalesces consecutive ones of the same call; any
// other part flushes it first.
func (b *callBuffer) add(d *toolCallDelta, run *wire.Run, out []llm.StreamPart) []llm.StreamPart {
	f := d.Function
	if f == nil {
		return out
	}
	args := f.arguments()
	if d.Index == nil {
		switch {
		case f.Name != "":
			id := d.ID
			if id == "" {
				id = newCallID()
			}
			out = append(run.Flush(out), llm.StreamPart{Kind: llm.KindToolCall,
				ToolCall: llm.ToolCall{ID: id, Name: f.Name, Arguments: string(args)}})
		case len(args) > 0:
			out = run.Add(out, wire.ArgsRun(0, false), args)
		}
		return out
	}
	idx := *d.Index
	c := b.byIndex[idx]
	if c == nil {
		if b.byIndex == nil {
			b.byIndex = map[int]*bufferedCall{}
		}
		c = &bufferedCall{}
		b.byIndex[idx] = c
	}
	if c.emitted {
		// Later name fragments and ids are ignored once the header is out.
		if len(args) > 0 {
			out = run.Add(out, wire.ArgsRun(idx, true), args)
		}
		return out
	}
	if d.ID != "" {
		c.id = d.ID
	}
	if f.Name == "" {
		c.args.Write(args)
		return out
	}
	id := c.id
	if id == "" {
		id = newCallID()
	}
	text := string(args)
	if c.args.Len() > 0 {
		text = c.args.String() + text
		c.args = strings.Builder{}
	}
	c.emitted = true
	return append(run.Flush(out), llm.StreamPart{Kind: llm.KindToolCall, Index: idx, Indexed: true,
		ToolCall: llm.ToolCall{ID: id, Name: f.Name, Arguments: text}})
}

// finish appends, in index order, a call without a name for every index
// whose name never arrived but that has an id or arguments. It is called
// once the stream ended; a second call appends nothing.
func (b *callBuffer) finish(out []llm.StreamPart) []llm.StreamPart {
	for _, idx := range slices.Sorted(maps.Keys(b.byIndex)) {
		c := b.byIndex[idx]
		if c.emitted || (c.id == "" && c.args.Len() == 0) {
			continue
		}
		c.emitted = true
		id := c.id
		if id == "" {
			id = newCallID()
		}
		out = append(out, llm.StreamPart{Kind: llm.KindToolCall, Index: idx, Indexed: true,
			ToolCall: llm.ToolCall{ID: id, Arguments: c.args.String()}})
		c.args = strings.Builder{}
	}
	return out
}
