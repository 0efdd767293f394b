package anthropic

import (
	"context"
	"io"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kimigo/kimigo/llm"
)

// splitReader returns data in reads that end at the given offsets, which
// ascend.
type splitReader struct {
	data []byte
	pos  int
	cuts []int
}

func (r *splitReader) Read(p []byte) (int, error) {
	if r.pos == len(r.data) {
		return 0, io.EOF
	}
	for len(r.cuts) > 0 && r.cuts[0] <= r.pos {
		r.cuts = r.cuts[1:]
	}
	end := len(r.data)
	if len(r.cuts) > 0 {
		end = min(end, r.cuts[0])
	}
	n := copy(p, r.data[r.pos:end])
	r.pos += n
	return n, nil
}

// outcome is what a stream yields, merged as llm.Generate merges it.
type outcome struct {
	Message llm.Message
	Err     string
}

func readSplit(data []byte, cuts []int) outcome {
	ctx := context.Background()
	s := newStream(ctx, ctx, io.NopCloser(&splitReader{data: data, cuts: cuts}), nil)
	var parts []llm.StreamPart
	for range len(data) + 2 {
		p, err := s.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return outcome{Message: llm.MergeParts(parts), Err: err.Error()}
		}
		parts = append(parts, p)
	}
	return outcome{Message: llm.MergeParts(parts)}
}

// FuzzSplitStream: how the network cuts a stream into reads changes how
// many parts come out (deltas that arrived together are one part), never
// what they add up to.
func FuzzSplitStream(f *testing.F) {
	delta := func(i, typ, field, s string) string {
		return ev("content_block_delta", `{"type":"content_block_delta","index":`+i+`,"delta":{"type":"`+typ+`","`+field+`":"`+s+`"}}`)
	}
	stream := ev("message_start", `{"type":"message_start","message":{"id":"m","usage":{"input_tokens":1}}}`) +
		ev("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":""}}`) +
		delta("0", "thinking_delta", "thinking", "a") + delta("0", "thinking_delta", "thinking", `b\n`) +
		delta("0", "signature_delta", "signature", "sig") +
		ev("content_block_start", `{"type":"content_block_start","index":1,"content_block":{"type":"text","text":"T"}}`) +
		delta("1", "text_delta", "text", "ex") + ev("ping", `{"type": "ping"}`) + delta("1", "text_delta", "text", `t \u00e9`) +
		ev("content_block_start", `{"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"t","name":"Glob","input":{}}}`) +
		delta("2", "input_json_delta", "partial_json", `{\"pattern\"`) + delta("2", "input_json_delta", "partial_json", `:\"*.txt\"}`) +
		ev("content_block_stop", `{"type":"content_block_stop","index":2}`) +
		ev("message_delta", `{"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":2}}`) +
		ev("message_stop", `{"type":"message_stop"}`)
	f.Add([]byte(stream), []byte{30, 200, 7})
	f.Add([]byte(stream), []byte{1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1})
	f.Fuzz(func(t *testing.T, data, gaps []byte) {
		var cuts []int
		at := 0
		for _, g := range gaps {
			at += int(g) + 1
			cuts = append(cuts, at)
		}
		whole := readSplit(data, nil)
		split := readSplit(data, cuts)
		if d := cmp.Diff(whole, split); d != "" {
			t.Fatalf("reads cut at %v change the result (-whole +split):\n%s", cuts, d)
		}
	})
}
